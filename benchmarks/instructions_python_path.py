"""Instructions of one ``dnnmem.sweep()`` call beside the engine's, under callgrind (issue 31).

Run: ``PYTHONHASHSEED=0 valgrind --tool=callgrind python benchmarks/instructions_python_path.py
K`` with K = 1 and K = 2, and take the difference of the two runs' "Collected" totals (one
call: the imports and the warm-up call cancel) and of ``dnnmem::sweep``'s inclusive counts
(``callgrind_annotate --inclusive=yes``: the engine's part of that call). The grid is
``benchmarks/bench_python_path.py``'s: ResNet-50, N = 32, 489 capacities (24-1000 MiB) x
bandwidths {616, 1555} GB/s x throughputs {13.45, 23.04} TFLOPS, ``lookahead``, one thread.
"""

from __future__ import annotations

import sys

import dnnmem

MiB = 2**20


def main() -> None:
    net = dnnmem.network("resnet50", batch=32)
    caps = [(24 + 2 * i) * MiB for i in range(489)]
    for _ in range(1 + int(sys.argv[1])):  # a warm-up call (lazy imports, first-call memos)
        dnnmem.sweep(
            net,
            capacity=caps,
            bandwidth=[616e9, 1555e9],
            throughput=[13.45e12, 23.04e12],
            threads=1,
            progress=False,
        )


if __name__ == "__main__":
    main()

"""Start-up cost of dnnmem in a fresh process: ``import dnnmem``, a one-point command, the
command line's help, and ``estimate()`` in a loop, for two source trees alternating (each run
``python`` with ``PYTHONPATH=<tree>/python``; each tree needs its own built ``_core``).

Run: ``python benchmarks/bench_startup.py BEFORE_TREE AFTER_TREE [REPEATS]``. Prints, per
measurement, the best of REPEATS runs of each tree in milliseconds (CPU = user + system time of
the child process) and the ratio before / after (docs/performance.md, "Python start-up").
"""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys
import time

LOOP = (
    "import dnnmem, time\n"
    "n = dnnmem.network('resnet50', batch=32)\n"
    "hw = dnnmem.hardware('rtx2080ti', capacity='128MiB')\n"
    "dnnmem.estimate(n, hw)\n"
    "t = time.process_time()\n"
    "for _ in range(200):\n"
    "    dnnmem.estimate(n, hw).time\n"
    "print('per call', (time.process_time() - t) / 200)\n"
)
COMMANDS = {
    "import dnnmem": ["-X", "importtime", "-c", "import dnnmem"],
    "dnnmem estimate": [
        "-m",
        "dnnmem",
        "estimate",
        "--network",
        "resnet50",
        "--batch",
        "32",
        "--hardware",
        "rtx2080ti",
        "--capacity",
        "128MiB",
    ],
    "dnnmem --help": ["-m", "dnnmem", "--help"],
    "estimate() x 200": ["-c", LOOP],
}


def _run(tree: str, args: list[str]) -> dict[str, float]:
    """One fresh process: its wall and CPU seconds, and what it reports."""
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "python"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.check_returncode()
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    found = {"wall": wall, "cpu": cpu}
    m = re.search(r"\|\s+(\d+) \| dnnmem\n", out.stderr)  # -X importtime: cumulative µs
    if m:
        found["importtime"] = int(m.group(1)) / 1e6
    m = re.search(r"per call (\S+)", out.stdout)
    if m:
        found["per call"] = float(m.group(1))
    return found


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    trees = {"before": sys.argv[1], "after": sys.argv[2]}
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    best: dict[tuple[str, str, str], float] = {}
    for _ in range(repeats):
        for what, args in COMMANDS.items():
            for label, tree in trees.items():  # alternating: the load hits both alike
                for key, seconds in _run(tree, args).items():
                    k = (what, key, label)
                    best[k] = min(best.get(k, float("inf")), seconds)
    print(f"best of {repeats} runs, ms (load average {os.getloadavg()[0]:.1f})")
    for what, key, label in best:
        if label == "before":
            a, b = best[(what, key, "before")], best[(what, key, "after")]
            print(f"{what:18} {key:10} {a * 1e3:9.2f} ms -> {b * 1e3:9.2f} ms  {a / b:5.2f}x")


if __name__ == "__main__":
    main()

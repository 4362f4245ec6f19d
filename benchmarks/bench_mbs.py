"""Mini-batch serialization at large batches: ``estimate("resnet50", batch=N, policy="mbs +
mbs-strict")`` (schedule, plan, timeline) for two builds, alternating, each in a fresh process.

Run: ``python benchmarks/bench_mbs.py BEFORE_PYTHON AFTER_PYTHON [REPEATS] [BATCHES]`` — each
PYTHON an interpreter whose ``import dnnmem`` is the build to measure (a worktree's
``.venv/bin/python``); BATCHES comma-separated (default 1024,4096,16384). Prints per batch the
best of REPEATS runs of each build: the CPU seconds of the call (process time), the peak memory
of the process, and the ratios before / after; and checks that both give the same time and
traffic (docs/performance.md, "Mini-batch serialization at large batches").
"""

from __future__ import annotations

import subprocess
import sys

CHILD = (
    "import resource, time, dnnmem\n"
    "net = dnnmem.network('resnet50')\n"
    "t = time.process_time()\n"
    "r = dnnmem.estimate(net, batch={batch}, policy='mbs + mbs-strict')\n"
    "cpu = time.process_time() - t\n"
    "rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
    "print(cpu, rss, repr(r.time), r.traffic_in, r.traffic_out, len(r.steps))\n"
)


def _run(python: str, batch: int) -> tuple[float, float, str]:
    out = subprocess.run(
        [python, "-c", CHILD.format(batch=batch)], capture_output=True, text=True, check=True
    )
    cpu, rss, *result = out.stdout.split()
    return float(cpu), float(rss), " ".join(result)


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    pythons = {"before": sys.argv[1], "after": sys.argv[2]}
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    batches = [int(b) for b in (sys.argv[4] if len(sys.argv) > 4 else "1024,4096,16384").split(",")]
    print(
        f"{'batch':>6} {'steps':>9} {'CPU before':>11} {'CPU after':>10} {'ratio':>6} "
        f"{'MiB before':>11} {'MiB after':>10} {'ratio':>6}"
    )
    for batch in batches:
        best: dict[str, tuple[float, float]] = {}
        results: dict[str, str] = {}
        for _ in range(repeats):
            for label, python in pythons.items():  # alternating: the load hits both alike
                cpu, rss, result = _run(python, batch)
                old = best.get(label, (float("inf"), float("inf")))
                best[label] = (min(old[0], cpu), min(old[1], rss))
                results.setdefault(label, result)
                if results[label] != result:
                    sys.exit(
                        f"batch {batch}: {label} gave two results: {results[label]} / {result}"
                    )
        if results["before"] != results["after"]:
            sys.exit(f"batch {batch}: the builds differ: {results['before']} / {results['after']}")
        (cb, mb), (ca, ma) = best["before"], best["after"]
        steps = results["after"].split()[-1]
        print(
            f"{batch:>6} {steps:>9} {cb:>10.2f}s {ca:>9.2f}s {cb / ca:>5.1f}x "
            f"{mb:>11.0f} {ma:>10.0f} {mb / ma:>5.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()

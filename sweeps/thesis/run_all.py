"""Regenerate every thesis figure (5.1–5.6), the sensitivity data and docs/thesis-figures.md.

    python sweeps/thesis/run_all.py [--small] [--force] [--reading thesis]

``--small`` is the CI mode (seconds); its page of small-mode numbers goes to
``results/thesis/thesis-figures.md`` (a quick mode never writes into ``docs/``). The full grid (489 capacities × 4 networks × the
figures' hardware) takes about a minute on 2 cores, most of it GNMT's 26k steps. Cached
DataFrames under ``results/thesis/`` are reused unless ``--force``. ``--reading thesis``
draws the figures under :func:`dnnmem.thesis_reading` (``figures/<name>_thesis.png``) and
leaves the sensitivity data and the page, which describe the defaults, alone.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from types import ModuleType

import _common as C
import fig5_1_roofline
import fig5_2_traffic
import fig5_3_time
import fig5_4_bandwidth
import fig5_5_breakdown
import fig5_6_batch
import report
import sensitivity

FIGURES: list[ModuleType] = [
    fig5_1_roofline,
    fig5_2_traffic,
    fig5_3_time,
    fig5_4_bandwidth,
    fig5_5_breakdown,
    fig5_6_batch,
]


def main(argv: Sequence[str] | None = None) -> None:
    """Compute (or read back) and plot every figure, then write the report."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="CI mode: few capacities and batches")
    p.add_argument("--force", action="store_true", help="recompute even if cached")
    p.add_argument("--no-report", action="store_true", help="figures only")
    p.add_argument(
        "--reading",
        choices=C.READINGS,
        default="default",
        help="dnnmem's defaults or dnnmem.thesis_reading() (default: default)",
    )
    a = p.parse_args(argv)
    C.set_reading(a.reading)
    C.use_agg()
    for mod in FIGURES:
        t0 = time.perf_counter()
        df = mod.compute(small=a.small, force=a.force)
        path = C.save_figure(mod.plot(df), mod.NAME)
        print(f"{mod.NAME}: {len(df)} rows, {time.perf_counter() - t0:.1f} s -> {path}")
    if a.reading != "default":
        print(
            f"reading {a.reading}: figures only (the page and the sensitivity data describe "
            f"the defaults)"
        )
        return
    sensitivity.compute(small=a.small, force=a.force)
    if not a.no_report:
        report.main(["--small"] if a.small else [])


if __name__ == "__main__":
    main()

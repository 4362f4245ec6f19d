"""Interleaved-gradient paper Fig. 12: the ablation ladder (interleaving, + rearrangement by
Algorithm 1 and ideal, + partitioning, and beyond the paper + partitioning with the order searched
jointly), execution time relative to the sequential baseline, per
model and on average, small and large NPU, beside the paper's averages; also measured on the
tiled backward GEMM steps alone (``gemm_change_pct``: their time; ``gemm_bytes_change_pct``: their
traffic), without the rest of the iteration in the denominator.

    python sweeps/interleaved/fig12_ladder.py [--small] [--no-plot] [--tiler best|fixed|lru|simple|handicap]

``--tiler`` is the baseline tiler of every rung (``_igo.TILERS``; docs/model/interleaved.md,
"Reading (baseline tiler)"): ``simple`` = output-stationary nests with LRU replacement;
``handicap`` = the baseline alone with fixed output-stationary nests, the fused rungs with the
best nests (how much of the paper's gap a weak baseline can explain, at most).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_fig12_ladder"


def compute(small: bool = False, tiler: str = "best") -> pd.DataFrame:
    """One row per (NPU, network, rung): time and its change vs the baseline (%), and the same on
    the backward GEMM steps alone; the rows with network "average" hold the mean changes and the
    paper's. Every rung uses the baseline tiler ``tiler``."""
    rows = []
    for npu in C.NPUS:
        for net in C.networks(small):
            for rung, options in C.LADDER.items():
                opts = {**options, **C.tiler_options(tiler, rung)}
                rows.append({"rung": rung, **C.run(net, npu, **opts)})
    df = pd.DataFrame(rows)
    base = df[df["rung"] == "Baseline"].set_index(["npu", "network"])
    for column, source in (
        ("change_pct", "time"),
        ("gemm_change_pct", "gemm_time"),
        ("gemm_bytes_change_pct", "gemm_bytes"),
    ):
        df[column] = [
            100 * (v / base[source][(n, w)] - 1) if base[source][(n, w)] else 0.0
            for n, w, v in zip(df["npu"], df["network"], df[source])
        ]
    means = ["change_pct", "gemm_change_pct", "gemm_bytes_change_pct"]
    avg = df.groupby(["npu", "rung"], sort=False)[means].mean().reset_index()
    avg["network"] = "average"
    avg["paper_pct"] = [
        C.PAPER_LADDER[n].get(r, 0.0 if r == "Baseline" else float("nan"))
        for n, r in zip(avg["npu"], avg["rung"])
    ]
    df["tiler"] = avg["tiler"] = tiler
    return pd.concat([df, avg], ignore_index=True)[
        ["npu", "network", "rung", "tiler", "time", *means, "paper_pct"]
    ]


def plot(df: pd.DataFrame) -> Figure:
    """Average change per rung, dnnmem beside the paper, one panel per NPU."""
    return C.ladder_bars(
        df, "npu", list(C.NPUS), "change_pct", "dnnmem", lambda npu: f"{npu} NPU",
        "execution time vs baseline (%)",
        "Interleaved-gradient Fig. 12 analogue: the ablation ladder",
    )  # fmt: skip


if __name__ == "__main__":
    C.main(NAME, compute, plot, tiler=True)

"""Interleaved-gradient paper Fig. 15 taken apart at the scorecard's reading (`keep`): the full
technique against the baseline on the large NPU at 1x and 0.25x bandwidth, the GEMM layers' time
(the scorecard's), the tiled backward GEMM steps' time and bytes, and how memory-bound those steps
are (1 - compute / time). The paper's gain grows as the bandwidth falls (-14.5 -> -22.7 %); a
gain can only grow if the steps whose bytes the technique cuts are not yet memory-bound.

    python sweeps/interleaved/fig15_bytes.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import hypotheses
import pandas as pd
from _pages import num, table

import dnnmem
import dnnmem.interleaved as igo
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "fig15", "bytes")
READING = "keep"  # the scorecard's (sweeps/interleaved/claims.py)
SCALES = (1.0, 0.25)


def _parts(network: str, scale: float, options: dict[str, object]) -> dict[str, float]:
    """The GEMM layers' time, and the tiled backward steps' time, compute time and bytes."""
    hw = C.large_npu(1, scale)
    policy = f"{igo.policy(hardware=hw, **C.tile_options(**options))} + systolic(rows=128, cols=128, arrays=1)"
    r = dnnmem.estimate(C.load(network, 8, hw), hw, C.fused(policy), batch=8)
    st = r.steps
    tiled = sorted({s for t in r._core.tile_table() for s in (t["step"], t["step2"]) if s >= 0})
    sub = st.iloc[tiled]
    return {
        "time": C.accounted_time(r),
        "gemm_time": float(sub["time"].sum()),
        "gemm_compute": float(sub["compute_time"].sum()),
        "gemm_bytes": float((sub["bytes_in"] + sub["bytes_out"]).sum()),
    }


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (bandwidth scale, network) of the large NPU's nine models (ResNet-50 in the
    small mode): changes (%) of the accounted time, the tiled steps' time and bytes, and the
    tiled steps' memory-bound share (%) under the baseline and the technique."""
    # The small mode: ResNet-50, one of the nine (BERT-tiny is the small NPU's), in a second.
    nets = ["resnet50"] if small else list(hypotheses._claims().models("large"))
    rows = []
    with C.using(READING):
        for scale in SCALES:
            for net in nets:
                b = _parts(net, scale, {"order": "seq"})
                t = _parts(net, scale, C.TECHNIQUE)
                rows.append({
                    "bandwidth_scale": scale, "network": net,
                    "change_pct": 100 * (t["time"] / b["time"] - 1),
                    "gemm_change_pct": 100 * (t["gemm_time"] / b["gemm_time"] - 1),
                    "gemm_bytes_change_pct": 100 * (t["gemm_bytes"] / b["gemm_bytes"] - 1),
                    "gemm_share_pct": 100 * b["gemm_time"] / b["time"],
                    "baseline_memory_bound_pct": 100 * (1 - b["gemm_compute"] / b["gemm_time"]),
                    "technique_memory_bound_pct": 100 * (1 - t["gemm_compute"] / t["gemm_time"]),
                })  # fmt: skip
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """Per bandwidth: the mean change of the time and of the tiled steps' time and bytes."""
    fig, axes = style.figure(panel=(6.5, 3.8))
    ax = axes[0, 0]
    m = df.groupby("bandwidth_scale")[["change_pct", "gemm_change_pct", "gemm_bytes_change_pct"]]
    t = m.mean().rename(columns={"change_pct": "GEMM layers' time",
                                 "gemm_change_pct": "tiled backward steps' time",
                                 "gemm_bytes_change_pct": "tiled backward steps' bytes"})  # fmt: skip
    t.index = [f"{v:g}× bandwidth" for v in t.index]
    style.bars(ax, t, reference=0.0)
    ax.set_ylabel("technique vs baseline (%)")
    ax.set_title("Interleaved-gradient Fig. 15 taken apart (`keep`, large NPU, nine models)",
                 fontsize=10)  # fmt: skip
    style.legend(ax)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's table: the means per bandwidth."""
    df = tables["fig15_bytes"]
    rows = []
    for scale, g in df.groupby("bandwidth_scale", sort=False):
        rows.append([
            f"{scale:g}×", {1.0: "−14.5 %", 0.25: "−22.7 %"}.get(scale, ""),
            f"{num(g['change_pct'].mean(), 1, sign=True)} %",
            f"{num(g['gemm_change_pct'].mean(), 1, sign=True)} %",
            f"{num(g['gemm_bytes_change_pct'].mean(), 1, sign=True)} %",
            f"{num(g['gemm_share_pct'].mean(), 0)} %",
            f"{num(g['baseline_memory_bound_pct'].mean(), 0)} % / "
            f"{num(g['technique_memory_bound_pct'].mean(), 0)} %",
        ])  # fmt: skip
    head = ["bandwidth", "paper", "GEMM layers' time (the scorecard's)",
            "tiled backward steps' time", "their bytes", "their share of the baseline's time",
            "their memory-bound share, baseline / technique"]  # fmt: skip
    return {"fig15_bytes": table(head, rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

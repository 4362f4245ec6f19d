"""Beyond the paper: what the tile orders are worth as the scratchpad grows from 256 KiB to
64 MiB on both NPUs, with no inter-layer cache (`none`, the paper's NPUs) and with the thesis's
(`lookahead`): where does interleaving stop mattering, and does the inter-layer cache take the
same bytes?

    python sweeps/interleaved/beyond_scratchpad.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import pct, table

import dnnmem
import dnnmem.interleaved as igo
from dnnmem.plots import style
from dnnmem.units import format_bytes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "beyond", "scratchpad")
KiB, MiB = 2**10, 2**20
CAPACITIES = [256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB]


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, cache manager, capacity, network): the sequential baseline's time, the
    best fused order's, and its change (%, negative = faster); ``vs_none_seq_pct`` the change
    against the `none` manager's sequential baseline (the paper's setup: what the inter-layer
    cache and the order give together)."""
    rows = []
    caps = CAPACITIES[1:2] if small else CAPACITIES
    nets = ["bert_tiny"] if small else ["resnet50", "bert_tiny", "t5_small"]
    for npu, (key, batch) in C.NPUS.items():
        for cap in caps:
            hw = dnnmem.hardware(key, capacity=cap)
            for net in nets:
                t = {}
                for cache in ("none", "lookahead"):
                    for order in ("seq", "best"):
                        p = igo.policy(order, hw, cache=cache)
                        t[cache, order] = dnnmem.estimate(net, hw, p, batch=batch).time
                for cache in ("none", "lookahead"):
                    rows.append(
                        {
                            "npu": npu,
                            "cache": cache,
                            "capacity_mib": cap / MiB,
                            "network": net,
                            "seq": t[cache, "seq"],
                            "best": t[cache, "best"],
                            "change_pct": 100 * (t[cache, "best"] / t[cache, "seq"] - 1),
                            "vs_none_seq_pct": 100 * (t[cache, "best"] / t["none", "seq"] - 1),
                        }
                    )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """The mean change of the best order against the sequential one vs capacity, per NPU and
    cache manager."""
    fig, axes = style.figure(panel=(7.0, 4.0))
    ax = axes[0, 0]
    data = {}
    for npu in C.NPUS:
        for cache in ("none", "lookahead"):
            d = df[(df["npu"] == npu) & (df["cache"] == cache)]
            m = d.groupby("capacity_mib")["change_pct"].mean()
            data[f"{npu} NPU, {cache}"] = (m.index, m.to_numpy())
    style.lines(ax, data)
    style.log_ticks(ax, sorted(df["capacity_mib"].unique()),
                    fmt=lambda v: format_bytes(v * MiB).replace(" ", "\u2009"))  # fmt: skip
    ax.axhline(0, color="k", lw=0.6)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("scratchpad")
    ax.set_ylabel("best order vs sequential (%)")
    ax.set_title("Tile orders vs scratchpad size\n(mean of ResNet-50, BERT-tiny, T5-small; "
                 "negative = faster)", fontsize=10)  # fmt: skip
    style.legend(ax)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The mean change per capacity, NPU and cache manager, and what the cache with the best
    order saves against the paper's setup at the largest size."""
    df = tables["beyond_scratchpad"]
    m = df.groupby(["capacity_mib", "npu", "cache"], sort=False)["change_pct"].mean()
    rows = []
    for cap in sorted(df["capacity_mib"].unique()):
        rows.append([format_bytes(cap * MiB), *(pct(m[cap, npu, cache], 1, sign=True)
                     for npu in C.NPUS for cache in ("none", "lookahead"))])  # fmt: skip
    top = max(df["capacity_mib"])
    both = df[(df["cache"] == "lookahead") & (df["capacity_mib"] == top)]
    both = both.groupby("npu", sort=False)["vs_none_seq_pct"].mean()
    text = (
        f"(execution time of `best` against `seq`; negative = faster.) Against the paper's setup "
        f"(`none`, `seq`), the cache with the best order changes the time at "
        f"{format_bytes(top * MiB)} by "
        + " and ".join(f"{pct(v, 0, sign=True)} ({npu} NPU)" for npu, v in both.items())
        + " (means of the three models)."
    )  # fmt: skip
    header = ["scratchpad", "small NPU, `none`", "small, `lookahead`", "large NPU, `none`",
              "large, `lookahead`"]  # fmt: skip
    return {"beyond_scratchpad": table(header, rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

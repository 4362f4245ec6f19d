"""Beyond the paper: what the tile orders are worth as the scratchpad grows from 256 KiB to
64 MiB on both NPUs, with no inter-layer cache (`none`, the paper's NPUs) and with the thesis's
(`lookahead`): where does interleaving stop mattering, and does the inter-layer cache take the
same bytes?

    python sweeps/interleaved/beyond_scratchpad.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _igo as C
import pandas as pd

import dnnmem
import dnnmem.interleaved as igo

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "igo_beyond_scratchpad"
KiB, MiB = 2**10, 2**20
CAPACITIES = [256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB]


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, cache manager, capacity, network): the sequential baseline's time, the
    best fused order's, and the reduction (%); plus the `none` baseline, the reference for what
    the inter-layer cache alone saves."""
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
                            "reduction_pct": 100 * (1 - t[cache, "best"] / t[cache, "seq"]),
                            "vs_none_seq_pct": 100 * (1 - t[cache, "best"] / t["none", "seq"]),
                        }
                    )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """Mean reduction of the best order vs capacity, per NPU and cache manager."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for (npu, cache), d in df.groupby(["npu", "cache"]):
        m = d.groupby("capacity_mib")["reduction_pct"].mean()
        ax.plot(m.index, m.to_numpy(), "o-", label=f"{npu} NPU, {cache}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("scratchpad (MiB)")
    ax.set_ylabel("best order vs sequential (%)")
    ax.set_title("Tile orders vs scratchpad size")
    ax.legend()
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)

"""Partitioning: how often the one-line `rule` picks the dimension that `best` (the least traffic
of M, N, K) picks, per layer, and what its misses cost — the paper's KNN classifier stands at
91 % accuracy (§5; 21.5 % gain vs 22.4 % for the ideal). Two parts on one core, Algorithm 1's
order, both NPUs.

    python sweeps/interleaved/partition_rule.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, pct, share

import dnnmem
import dnnmem.interleaved as igo
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "beyond", "partition_rule")


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (NPU, network): layers, agreement of `rule` with `best`, and the bytes the
    tiled layers move under each."""
    rows = []
    for npu, (key, batch) in C.NPUS.items():
        hw = dnnmem.hardware(key)
        for net in C.sensitivity_networks(small):
            tables = {}
            for choice in ("best", "rule"):
                p = igo.policy("alg1", hw, partition=choice, parts=2)
                tables[choice] = igo.layer_table(dnnmem.estimate(net, hw, p, batch=batch))
            b, r = tables["best"], tables["rule"]
            rows.append(
                {
                    "npu": npu,
                    "network": net,
                    "layers": len(b),
                    "agree": float((b["partition"] == r["partition"]).mean()),
                    "bytes_best": int(b["bytes"].sum()),
                    "bytes_rule": int(r["bytes"].sum()),
                }
            )
    df = pd.DataFrame(rows)
    df["extra_bytes_pct"] = 100 * (df["bytes_rule"] / df["bytes_best"] - 1)
    return df


def plot(df: pd.DataFrame) -> Figure:
    """Agreement of the rule with ``best`` per model, both NPUs, and the paper's KNN."""
    fig, axes = style.figure(panel=(7.0, 3.8))
    ax = axes[0, 0]
    t = 100 * df.pivot(index="network", columns="npu", values="agree")
    t = t.loc[list(dict.fromkeys(df["network"])), list(C.NPUS)]
    t.columns = [f"rule, {c} NPU" for c in t.columns]
    style.bars(ax, t, average="mean")
    ax.axhline(91, color="0.3", ls="--", lw=1, label="paper's KNN (91 %)")
    ax.set_ylabel("layers where rule = best (%)")
    ax.set_ylim(0, 100)
    ax.set_title("Partition rule vs best: Algorithm 1's order, two parts", fontsize=10)
    style.legend(ax)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The sentence on the page: agreement per model and what the misses cost."""
    df = tables["partition_rule"]
    small = df[df["npu"] == "small"].set_index("network")
    large = df[df["npu"] == "large"].set_index("network")
    worst = df.loc[df["extra_bytes_pct"].idxmax()]
    text = (
        f"The one-line `rule` (M if M ≥ the tile and M is the largest, else the larger of N and K) "
        f"picks `best`'s dimension on {num(100 * df['agree'].min(), 0)}–{share(df['agree'].max(), 0)} "
        "of the layers (small NPU: "
        + ", ".join(f"{style.display_name(m)} {share(v, 0)}" for m, v in small["agree"].items())
        + f"; large NPU {num(100 * large['agree'].min(), 0)}–{share(large['agree'].max(), 0)}); its "
        f"misses cost {num(df['extra_bytes_pct'].min(), 0)}–{pct(df['extra_bytes_pct'].max(), 0)} "
        f"more bytes in the tiled layers ({style.display_name(worst['network'])} on the "
        f"{worst['npu']} NPU: {pct(worst['extra_bytes_pct'], 0)})."
    )  # fmt: skip
    return {"partition_rule": text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

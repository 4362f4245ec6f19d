"""OnSRAM Table I: speedup of infinite SPM and 1-Step over No SPM Mgmt, per network, beside the
paper's, at 1, 2 and 4 bytes per element (the paper states none).

    python sweeps/onsram/table1.py [--small]
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "table1"
POLICIES = {"inf": "infinite-spm", "one_step": "one-step"}


def compute(small: bool = False) -> pd.DataFrame:
    """Table I at each element size, with the paper's values beside.

    Returns
    -------
    DataFrame
        One row per (network, bytes_per_element): ``inf``, ``one_step`` (dnnmem's speedups),
        ``paper_inf``, ``paper_one_step``, and the rows ``GeoMean`` per element size.
    """
    frames = []
    for b in (2,) if small else (1, 2, 4):
        df = C.speedups(C.networks(small), POLICIES, bytes_per_element=b)
        df["paper_inf"] = [C.TABLE_I[n][0] for n in df["network"]]
        df["paper_one_step"] = [C.TABLE_I[n][1] for n in df["network"]]
        geo = {"network": "GeoMean", "bytes_per_element": b}
        for col in ("inf", "one_step", "paper_inf", "paper_one_step"):
            geo[col] = C.geomean(df[col])
        frames.append(pd.concat([df, pd.DataFrame([geo])], ignore_index=True))
    cols = ["network", "bytes_per_element", "inf", "paper_inf", "one_step", "paper_one_step"]
    return pd.concat(frames, ignore_index=True)[cols]


#: The paper's scratchpad bandwidth (section IV: "a 2 MB on-chip SPM with 384 GBps bandwidth").
SPM_BANDWIDTH = 384e9
#: The ``onsram`` preset's compute model with the scratchpad floor on (docs/model/onsram.md, O1).
SPM_COMPUTE = f"peak(vector=0.125, spm_bandwidth={SPM_BANDWIDTH:.0f})"


def spm_effect(small: bool = False) -> pd.DataFrame:
    """Table I at 2 bytes per element without and with the scratchpad bandwidth floor.

    Returns
    -------
    DataFrame
        One row per network and a ``GeoMean`` row: ``inf``, ``one_step`` (floor off, the
        default), ``inf_spm``, ``one_step_spm`` (floor on: each speedup over No SPM Mgmt with the
        same floor) and the paper's two columns.
    """
    off = C.speedups(C.networks(small), POLICIES)
    on = C.speedups(C.networks(small), {k: f"{v} + {SPM_COMPUTE}" for k, v in POLICIES.items()})
    df = off[["network", "inf", "one_step"]].copy()
    df["inf_spm"] = on["inf"]
    df["one_step_spm"] = on["one_step"]
    df["paper_inf"] = [C.TABLE_I[n][0] for n in df["network"]]
    df["paper_one_step"] = [C.TABLE_I[n][1] for n in df["network"]]
    geo = {"network": "GeoMean"} | {c: C.geomean(df[c]) for c in df.columns[1:]}
    return pd.concat([df, pd.DataFrame([geo])], ignore_index=True)


def fit(df: pd.DataFrame) -> pd.DataFrame:
    """Per element size: the geomeans, the mean |log(dnnmem / paper)| of each column, and the
    Spearman rank correlation of the infinite-SPM speedups with the paper's."""
    rows = []
    for b, g in df[df["network"] != "GeoMean"].groupby("bytes_per_element"):
        err = {
            col: float((g[col].map(math.log) - g[f"paper_{col}"].map(math.log)).abs().mean())
            for col in ("inf", "one_step")
        }
        rows.append(
            {
                "bytes_per_element": b,
                "geomean_inf": C.geomean(g["inf"]),
                "geomean_one_step": C.geomean(g["one_step"]),
                "log_error_inf": err["inf"],
                "log_error_one_step": err["one_step"],
                "spearman_inf": float(g["inf"].rank().corr(g["paper_inf"].rank())),
            }
        )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """Paper vs dnnmem, infinite SPM and 1-Step, one bar group per network."""
    import matplotlib.pyplot as plt

    sizes = sorted(df["bytes_per_element"].unique())
    fig, axes = plt.subplots(len(sizes), 1, figsize=(12, 3 * len(sizes)), squeeze=False)
    for ax, b in zip(axes[:, 0], sizes):
        g = df[df["bytes_per_element"] == b].reset_index(drop=True)
        x = range(len(g))
        for k, (col, label) in enumerate(
            [
                ("paper_inf", "paper ∞ SPM"),
                ("inf", "dnnmem ∞ SPM"),
                ("paper_one_step", "paper 1-Step"),
                ("one_step", "dnnmem 1-Step"),
            ]
        ):
            ax.bar([i + 0.2 * k - 0.3 for i in x], g[col], width=0.2, label=label)
        ax.set_xticks(list(x), g["network"], rotation=30, ha="right")
        ax.set_ylabel("speedup over No SPM Mgmt")
        ax.set_title(f"OnSRAM Table I, {b} byte(s) per element")
        ax.legend(fontsize=7, ncol=4)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    import sys

    C.main(NAME, compute, plot)
    small = "--small" in sys.argv
    print(fit(compute(small=small)).round(3).to_string(index=False))
    print(f"with the scratchpad bandwidth ({SPM_COMPUTE}):")
    print(spm_effect(small=small).round(2).to_string(index=False))

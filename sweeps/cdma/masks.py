"""Issue 28, reading M of the cDMA paper's compression ratios: ZVC's masks left out.

The paper's own ratio arithmetic counts no masks: §V-A, "If 60% of the total activations are
zero-valued, we would expect an overall compression ratio of 2.5×" (1 / (1 − 0.6); with the
32-bit mask per 32 elements it is 2.32×). Its two headline ratios pair with its two headline
sparsities the same way: "average 62% network-wide activation sparsity (maximum of 93%)"
(§IV-B) against "an average 2.6× (maximum 13.8×) compression ratio" (Abstract): 1 / (1 − 0.62)
= 2.63×, and 13.8× is 1 / (1 − 0.9275). With the masks counted, 93 % gives 9.9× and 13.8× needs
95.9 % zeros, above the largest sparsity the text reports. The ``zvc`` link's option
``mask=off`` (docs/model/cdma.md, C2) is that arithmetic.

This script runs the page's Fig. 11 and Fig. 13 setups (per-network sparsity, rule G1) with
ZVC's masks counted (``on``, the page) and left out (``off``), every ZVC bar of both figures.

    python sweeps/cdma/masks.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import _cdma as C
import pandas as pd
from _pages import share, table, times

from dnnmem import cdma
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "beyond", "masks")
GPUS = ("titan-x-maxwell", "titan-xp")
MASKS = ("on", "off")
#: What each reading is called in the tables.
MASK_NAMES = {"on": "masks counted (the page)", "off": "masks left out (reading M)"}


def policies(mask: str) -> dict[str, str]:
    """The Fig. 13 bars (_cdma.POLICIES) with ZVC's masks counted (``on``) or not (``off``)."""
    if mask not in MASKS:
        raise ValueError(f"mask: must be 'on' or 'off', got {mask!r}")
    if mask == "on":
        return dict(C.POLICIES)
    return {k: v.replace("zvc(", "zvc(mask=off, ") for k, v in C.POLICIES.items()}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (mask, GPU, network, bar): the Fig. 13 columns of ``cdma.compare``."""
    return compute_readings("mask", MASKS, policies, small, GPUS)


def compute_readings(
    column: str,
    readings: tuple[str, ...],
    policies_of: Callable[[str], dict[str, str]],
    small: bool,
    gpus: tuple[str, ...],
) -> pd.DataFrame:
    """Fig. 13's bars under each reading (``policies_of(reading)``), on each of ``gpus`` at the
    measured rate (rule G1): one row per (``column``, GPU, network, bar). pooled.py's table too."""
    rows = []
    measured_on = cdma.gpu(C.MEASURED_ON)
    for reading in readings:
        pols = policies_of(reading)
        for gpu in gpus:
            for net, batch in C.networks(small).items():
                hw = cdma.measured_gpu(net, cdma.gpu(gpu), batch=batch, measured_on=measured_on)
                df = cdma.compare(
                    net, hw, [C.with_target(p, C.target(net)) for p in pols.values()], batch=batch
                )
                df.insert(0, "bar", list(pols))
                df.insert(0, "network", net)
                df.insert(0, "gpu", gpu)
                df.insert(0, column, reading)
                rows.append(df[[column, "gpu", "network", "bar", "time", "performance", "gain",
                                "map_ratio", "max_ratio"]])  # fmt: skip
    return pd.concat(rows, ignore_index=True)


def quantities(df: pd.DataFrame, mask: str, column: str = "mask") -> dict[str, float]:
    """The cDMA claims the masks touch, from ``df``'s rows whose ``column`` is ``mask`` (% or
    ×; pooled.py reads its own readings' rows the same way)."""
    d = df[df[column] == mask]

    def bars(gpu: str, bar: str) -> pd.DataFrame:
        return d[(d["gpu"] == gpu) & (d["bar"] == bar)].set_index("network")

    xp = "titan-xp"
    zv, zl, bw = bars(xp, "ZV"), bars(xp, "ZL"), bars(xp, "BW")
    best = pd.concat([bars(xp, b)["performance"] for b in ("RL", "ZV", "ZL")], axis=1).max(axis=1)
    zlib_less = 100 * (1 - zv["map_ratio"] / zl["map_ratio"])
    zlib_speed = 100 * (zv["time"] / zl["time"] - 1)
    mgain = 100 * bars("titan-x-maxwell", "ZV")["gain"]
    return {
        "ratio_average": float(zv["map_ratio"].mean()),
        "ratio_largest": float(zv["max_ratio"].max()),
        "zlib_less_average": float(zlib_less.mean()),
        "zlib_less_googlenet": float(zlib_less.get("googlenet", float("nan"))),
        "gain_average": float(100 * zv["gain"].mean()),
        "gain_largest": float(100 * zv["gain"].max()),
        "second_gain_average": float(mgain.mean()),
        "second_gain_largest": float(mgain.max()),
        "bw_gives_up": float(100 * (1 - (bw["performance"] / best).mean())),
        "zlib_speedup_average": float(zlib_speed.mean()),
        "zlib_speedup_largest": float(zlib_speed.max()),
    }


#: The claims of the table: key of :func:`quantities`, what the paper says, the paper's value,
#: its unit.
CLAIMS = (
    ("ratio_average", "ZVC ratio over the activation maps, average", 2.6, "×"),
    ("ratio_largest", "ZVC ratio, largest per layer", 13.8, "×"),
    ("zlib_less_average", "zlib's traffic below ZVC's, average", 3.0, "%"),
    ("zlib_less_googlenet", "zlib's traffic below ZVC's, GoogLeNet", 30.0, "%"),
    ("gain_average", "ZVC gain over vDNN, Titan Xp, average", 53.0, "%"),
    ("gain_largest", "ZVC gain over vDNN, Titan Xp, largest", 79.0, "%"),
    ("second_gain_average", "ZVC gain over vDNN, Maxwell Titan X, average", 32.0, "%"),
    ("second_gain_largest", "ZVC gain over vDNN, Maxwell Titan X, largest", 61.0, "%"),
    ("bw_gives_up", "performance the 48 GB/s cap gives up", 6.0, "%"),
    ("zlib_speedup_average", "zlib's speed-up over ZVC, average", 0.7, "%"),
    ("zlib_speedup_largest", "zlib's speed-up over ZVC, largest", 2.2, "%"),
)


def _fmt(v: float, unit: str) -> str:
    return times(v, 1 if v >= 10 else 2) if unit == "×" else share(v / 100, sign=v < 0)


def plot(df: pd.DataFrame) -> Figure:
    """The largest per-layer ZVC ratio per network, masks counted and left out, beside the
    paper's 13.8×."""
    return plot_readings(
        df,
        "mask",
        {m: MASK_NAMES[m] for m in MASKS},
        lambda d: d[d["bar"] == "ZV"].set_index("network")["max_ratio"],
        "largest per-layer ZVC ratio (×)",
        "cDMA, ZVC: the largest per-layer ratio with and without the masks",
        reference=1.0,
        paper=(13.8, "paper (largest): 13.8×"),
    )


def plot_readings(
    df: pd.DataFrame,
    column: str,
    names: dict[str, str],
    per_network: Callable[[pd.DataFrame], pd.Series],
    ylabel: str,
    title: str,
    *,
    reference: float,
    average: str | None = None,
    paper: tuple[float, str] | None = None,
) -> Figure:
    """One bar per network (the paper's order) and reading on the Titan Xp, the readings in
    ``names``' order (reading -> legend label): ``per_network`` of the rows whose ``column`` is
    that reading, a Series indexed by network. ``paper``: (value, label) of a dashed line.
    pooled.py's figure too; each caller passes its readings as its globals hold them."""
    fig, axes = style.figure(1, 1, panel=(7.0, 3.4))
    ax = axes[0, 0]
    nets = [n for n in C.NETWORKS if n in set(df["network"])]
    d = df[df["gpu"] == "titan-xp"]
    t = pd.DataFrame({label: per_network(d[d[column] == r]) for r, label in names.items()})
    style.bars(ax, t.loc[nets], average=average, reference=reference)
    if paper is not None:
        ax.axhline(paper[0], color="0.3", ls="--", lw=1, label=paper[1])
    ax.set_ylabel(ylabel)
    fig.suptitle(title, fontsize=10)
    style.legend(ax)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The claims the masks touch, with them counted and left out."""
    df = tables["masks"]
    on, off = quantities(df, "on"), quantities(df, "off")
    rows = [
        (f"{what} ({_fmt(paper, unit)})", _fmt(on[key], unit), _fmt(off[key], unit))
        for key, what, paper, unit in CLAIMS
    ]
    return {"masks": table(["quantity (paper)", MASK_NAMES["on"], MASK_NAMES["off"]], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

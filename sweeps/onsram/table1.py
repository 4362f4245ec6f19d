"""OnSRAM Table I: speedup of infinite SPM and 1-Step over No SPM Mgmt, per network, beside the
paper's, at 1, 2 and 4 bytes per element (the paper states none).

    python sweeps/onsram/table1.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd
from _pages import num, pct, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("onsram", "table1", "speedups")
POLICIES = {"inf": "infinite-spm", "one_step": "one-step"}
#: ``--order``: 1-Step and the caches take their node order from ``_onsram.ORDER`` (rule O12).
TAKES_ORDER = True
#: ``--resnext``: the ResNeXt of Table I comes from ``_onsram.NETWORKS``.
RUNS_TABLE_I_NETWORKS = True


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
    """Paper vs dnnmem, ∞ SPM and 1-Step, one bar group per network (the paper's order) and
    the geomean; one panel per element size."""
    sizes = sorted(df["bytes_per_element"].unique())
    fig, axes = style.figure(len(sizes), 1, panel=(11.0, 3.0))
    cols = {"paper_inf": "paper ∞ SPM", "inf": "∞ SPM",
            "paper_one_step": "paper 1-Step", "one_step": "1-Step"}  # fmt: skip
    for ax, b in zip(axes[:, 0], sizes):
        g = df[(df["bytes_per_element"] == b) & (df["network"] != "GeoMean")].set_index("network")
        style.bars(ax, g[list(cols)].rename(columns=cols), average="geomean", reference=1.0)
        ax.set_ylabel("speedup over No SPM Mgmt (×)")
        ax.set_title(f"OnSRAM Table I, {b} byte(s) per element", fontsize=10)
    style.legend(fig)
    return style.tidy(fig)


#: Why each network's speedups differ from the paper's (the page's last column).
NOTES = {
    "AlexNet": "Both small: at batch 1 fetching 61 M weights bounds the fully connected layers, "
    "which dominate; what remains is the size of what the unstated element size and per-layer "
    "costs move.",
    "VGG16": "∞ SPM lower: at batch 1 fetching its 138 M weights is a large share of No SPM "
    "Mgmt's time here, which no SPM policy removes; the paper's per-layer costs are not "
    "published, so where its larger gain comes from cannot be located.",
    "GoogLeNet": "TensorFlow's GoogLeNet (TF-slim's inception_v1: batch norms, folded, and no "
    "LRN; the page's section on which GoogLeNet). 1-Step stronger: in breadth-first order (rule "
    "O12) an Inception module's branch convolutions run before their ReLUs and 1-Step keeps "
    "almost nothing there; what it keeps is mostly the stem (three convolutions, their ReLUs, "
    "two pools: a chain, the same in every order; 0.14 ms of the 0.24 ms it saves of No SPM "
    "Mgmt's 2.14 ms), which the paper's 1.01 says its 1-Step does not keep (a ReLU run in the "
    "convolution's kernel would do that; the paper does not say).",
    "Inception-v3": "Batch norms folded; in breadth-first order a module's branch convolutions "
    "run before their ReLUs (rule O12), as the paper's 1-Step suggests.",
    "Inception-v4": "As Inception-v3.",
    "ResNet-50": "All 53 batch norms folded; the ReLUs and residual adds are steps of their own.",
    "SSD300": "∞ SPM lower, as its VGG16 backbone; 1-Step keeps almost nothing because the "
    "backbone's early activations (300 × 300 × 64 at 2 B = 11.5 MB), which carry most of its "
    "traffic, do not fit in 2 MiB at all; the paper's 1.18 suggests it keeps parts of them "
    "(tiles), which whole-tensor pinning (O2) does not model.",
    "ResNeXt": "The paper does not say which ResNeXt; ours is ResNeXt-50 32×4d as Keras builds "
    "it (the page's section on which ResNeXt): each grouped convolution a depthwise convolution "
    "writing c = 4 … 32 partial products per output and a sum reading them, 3.2 MB per block "
    "that No SPM Mgmt moves twice; its array steps' compute and weights still bound ∞ SPM at "
    "3.02 even with every SIMD step free (the paragraph on the top of the range); 1-Step lower "
    "because those 3.2 MB do not fit in 2 MiB.",
    "MobileNetV1": "∞ SPM lower: its depthwise and pointwise convolutions run on the array at "
    "peak here, and once their activations stay on chip the pointwise layers' compute and "
    "weights bound it, at 3.18 even with every SIMD step free (the paragraph on the top of the "
    "range).",
    "SqueezeNet": "The fire modules' ReLUs and concatenations are separate steps (fusion); in "
    "breadth-first order each fire module's two expand convolutions run before their ReLUs "
    "(rule O12).",
    "PTB": "The LSTM's weights, read at each of 35 time steps, bound it.",
    "Multi-Head Attn": "The paper gives no size. Ours (50 tokens, d 512, 8 heads) spends part of "
    "No SPM Mgmt's time in the score, softmax and weighted-sum steps, which move only "
    "activations and become nearly free on chip, and its four projections' inputs and outputs "
    "add more; a shorter sequence, or a fused attention kernel, would leave less to gain.",
    "GeoMean": "∞ SPM lower by the top of the range (ResNeXt, MobileNetV1).",
}


def _vs(ours: float, paper: float) -> str:
    """How ``ours`` compares with ``paper``: "within 4 %", "12 % higher", "8 % lower"."""
    d = ours / paper - 1
    if abs(d) < 0.05:
        return f"within {pct(100 * abs(d), 0)}" if abs(d) >= 0.005 else "equal"
    return f"{pct(100 * abs(d), 0)} {'higher' if d > 0 else 'lower'}"


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Table I at 2 bytes per element, the fit of the element size, and the scratchpad
    bandwidth's effect."""
    df = tables["table1"]
    two = df[df["bytes_per_element"] == 2]
    rows = []
    for _, r in two.iterrows():
        n = r["network"]
        bold = (lambda x: f"**{x}**") if n == "GeoMean" else (lambda x: x)
        rows.append([
            bold(n), bold(num(r["paper_inf"])), bold(num(r["inf"])),
            bold(num(r["paper_one_step"])), bold(num(r["one_step"])),
            f"∞ SPM {_vs(r['inf'], r['paper_inf'])}, 1-Step {_vs(r['one_step'], r['paper_one_step'])}. "
            + NOTES.get(n, ""),
        ])  # fmt: skip
    t1 = table(["network", "∞ SPM paper", "∞ SPM dnnmem", "1-Step paper", "1-Step dnnmem",
                "the difference"], rows)  # fmt: skip
    f = fit(df)
    best = f.loc[f["log_error_inf"].idxmin(), "bytes_per_element"]
    fit_rows = []
    for _, r in f.iterrows():
        bold = (lambda x: f"**{x}**") if r["bytes_per_element"] == best else (lambda x: x)
        fit_rows.append([bold(f"{r['bytes_per_element']:g}"), bold(num(r["geomean_inf"])),
                         num(r["geomean_one_step"]), bold(num(r["log_error_inf"])),
                         num(r["log_error_one_step"]), num(r["spearman_inf"], 3)])  # fmt: skip
    t2 = table(["bytes per element", "geomean ∞ SPM", "geomean 1-Step",
                "mean \\|log(dnnmem / paper)\\| ∞ SPM", "same, 1-Step",
                "Spearman ρ of ∞ SPM with the paper"], fit_rows).replace("\\\\|", "\\|")  # fmt: skip
    spm = tables["table1_spm"]
    spm_rows = []
    for _, r in spm.iterrows():
        bold = (lambda x: f"**{x}**") if r["network"] == "GeoMean" else (lambda x: x)
        spm_rows.append([bold(r["network"]), *(bold(num(r[c])) for c in
                         ("inf", "inf_spm", "one_step", "one_step_spm"))])  # fmt: skip
    t3 = table(["network", "∞ SPM, off", "∞ SPM, 384 GB/s", "1-Step, off", "1-Step, 384 GB/s"],
               spm_rows)  # fmt: skip
    nets = spm[spm["network"] != "GeoMean"].set_index("network")
    drop = (nets["inf"] - nets["inf_spm"]).sort_values(ascending=False)
    geo = spm[spm["network"] == "GeoMean"].iloc[0]
    text = (
        "The floor lowers ∞ SPM most on "
        + " and ".join(f"{n} ({num(nets.at[n, 'inf'])} → {num(nets.at[n, 'inf_spm'])})"
                       for n in drop.index[:2])
        + f" and moves the geomean from {num(geo['inf'])} to {num(geo['inf_spm'])} (the paper: "
        f"{num(geo['paper_inf'])}); 1-Step's geomean moves from {num(geo['one_step'])} to "
        f"{num(geo['one_step_spm'])}."
    )  # fmt: skip
    return {"table1": t1, "table1_fit": t2, "table1_spm": t3 + "\n" + text + "\n"}


#: The page's tables: Table I at three element sizes, and at 2 bytes with the SPM bandwidth.
TABLES = {"table1": lambda small: compute(small), "table1_spm": lambda small: spm_effect(small)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

"""The interleaved-gradient-order paper's headline claims beside dnnmem's values (the scorecard,
sweeps/scorecard.py).

Every dnnmem value is read from the page's tables (``tests/data/seeds/interleaved/``); the
paper's values carry their section. Relative times are changes, new / baseline − 1 in %
(negative = faster), as on the page; speedups in ×. Figs. 5, 6 and 12 are taken at the reading
of the paper's simulator the page argues (:data:`READING`, sweeps/interleaved/hypotheses.py),
the sensitivities (Figs. 14–16) at theirs (:data:`SENSITIVITY_READING`).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _claims
from _claims import Claim  # noqa: E402

SEED = "interleaved"
#: The reading of the paper's simulator the scorecard takes for Figs. 5, 6 and 12.
READING = "keep"
#: The reading the sensitivities (Figs. 14-16) and the GPU rows (Fig. 17) are taken at: "" (the
#: page's default reading, their own scripts' tables) or sensitivities_paper.py's reading (its table).
SENSITIVITY_READING = "keep"
RUNGS = ["Interleaving", "+ Rearrangement (Alg. 1)", "+ Rearrangement (ideal)", "+ Partitioning"]
#: The paper's ladder (§6.2, Fig. 12; §4.3 for the ideal rung), as changes (%).
LADDER = {
    "small": dict(zip(RUNGS, (-0.8, -23.8, -25.1, -29.3))),
    "large": dict(zip(RUNGS, (-7.4, -10.9, -12.4, -14.5))),
}
WHERE = {RUNGS[0]: "§6.2, Fig. 12", RUNGS[1]: "§6.2, Fig. 12", RUNGS[2]: "§4.3",
         RUNGS[3]: "Abstract, §6.2, Fig. 12"}  # fmt: skip
#: Issue 28's hypothesis the rows at :data:`READING` test (GEMM-level accounting, FP32, §4.2's
#: window, im2col-expanded operands, §4.3's intermediate results kept on chip:
#: docs/seeds/interleaved.md).
HYP = ("H2",)
#: The eleven models the page's scripts run on both NPUs.
ALL_MODELS = ("faster_rcnn", "googlenet", "ncf", "resnet50", "dlrm", "mobilenet_v2", "bert_large",
              "bert_tiny", "t5_large", "t5_small", "yolov3")  # fmt: skip
#: The models each NPU runs in the paper: Table 4 lists "YOLO (v5/v2-tiny)", "BERT
#: (large/tiny)", "T5 (large/small)" (47M/11M parameters for YOLO), and §6.1 says "For models
#: with different sizes, such as yolo, bert, and T5, we utilize different sizes for large NPU
#: and small NPU": the server NPU runs the large sizes, the edge NPU the small ones, nine models
#: each. The small NPU's YOLO is darknet's YOLOv2-tiny (the hypotheses table's full mode runs it
#: there); YOLOv3 stands in for the large NPU's YOLOv5 (not in darknet's cfgs).
PAPER_MODELS = {
    "small": tuple(
        "yolov2_tiny" if m == "yolov3" else m
        for m in ALL_MODELS
        if m not in ("bert_large", "t5_large")
    ),
    "large": tuple(m for m in ALL_MODELS if m not in ("bert_tiny", "t5_small")),
}
#: Which models the scorecard averages per NPU: "paper" (:data:`PAPER_MODELS`, the text's) or
#: "all" (the eleven on both NPUs, the page's tables).
MODELS = "paper"


def models(npu: str, which: str | None = None) -> tuple[str, ...]:
    """The models averaged on ``npu`` ("small" or "large") under ``which`` (default :data:`MODELS`)."""
    return PAPER_MODELS[npu] if (which or MODELS) == "paper" else ALL_MODELS


def _on_models(rows: pd.DataFrame, which: str | None = None) -> pd.DataFrame:
    """``rows`` (with ``npu`` and ``network`` columns) restricted to each NPU's models."""
    keep = [n in models(u, which) for u, n in zip(rows["npu"], rows["network"])]
    return rows[keep]


def ladder(
    tables: dict[str, pd.DataFrame], reading: str, which: str | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ladder's mean changes per (NPU, rung), and the per-(NPU, network) rows, at
    ``reading`` (``dnnmem``: the page's Fig. 12 table; else the hypotheses table), over each
    NPU's models (:func:`models`, ``which``)."""
    if reading == "dnnmem" or "hypotheses" not in tables:
        df = tables["fig12_ladder"]
        rows = df[df["network"] != "average"]
    else:
        h = tables["hypotheses"]
        rows = h[h["reading"] == reading]
    rows = _on_models(rows, which)
    means = rows.groupby(["npu", "rung"])["change_pct"].mean()
    return means.to_frame(), rows


def _geomean(s: pd.Series) -> float:
    return float(math.exp(sum(math.log(v) for v in s) / len(s)))


def claims(
    tables: dict[str, pd.DataFrame], reading: str = READING, which: str | None = None
) -> list[Claim]:
    """The claims, dnnmem's values from ``tables`` (the seed's saved tables by name), averaged
    over each NPU's models (:func:`models`; ``which``: "paper" or "all", default :data:`MODELS`)."""
    means, rows = ladder(tables, reading, which)
    n_small, n_large = len(models("small", which)), len(models("large", which))
    counts = {"small": n_small, "large": n_large}
    paper_reading = reading != "dnnmem" and "hypotheses" in tables
    hyp = HYP if paper_reading else ()
    note = f"reading `{reading}`" if paper_reading else "the page's default reading"

    def c(claim: str, where: str, paper: float, value: float, kind: str, unit: str,
          note: str = "", h: tuple[str, ...] = ()) -> Claim:  # fmt: skip
        return Claim(SEED, claim, where, paper, float(value), kind, unit, note, h)  # type: ignore[arg-type]

    out = []
    for npu in ("small", "large"):
        for rung in RUNGS:
            out.append(c(f"{npu} NPU, {rung}: time change", WHERE[rung], LADDER[npu][rung],
                         means.loc[(npu, rung), "change_pct"], "reduction", "%",
                         f"Fig. 12, mean of {counts[npu]} models, {note}", hyp))  # fmt: skip
    # Fig. 6: the dY oracle.
    if paper_reading:
        o = rows[rows["rung"] == "dY oracle"]
        oracle = {n: _geomean(1 / (1 + g["change_pct"] / 100)) for n, g in o.groupby("npu")}
        base = rows[rows["rung"] == "Baseline"].set_index(["npu", "network"])
    else:
        f6 = tables["fig6_dy_oracle"]
        oracle = f6[f6["network"] == "geomean"].set_index("npu")["speedup"].to_dict()
        f5 = tables["fig5_dy_share"]
        base = _on_models(f5[f5["network"] != "average"], which).set_index(["npu", "network"])
    for npu, paper in (("small", 1.70), ("large", 1.43)):
        out.append(c(f"{npu} NPU, dY oracle: speedup", "§3.3, Fig. 6", paper, oracle[npu],
                     "ratio", "×", f"geomean of {counts[npu]} models, {note}", hyp))  # fmt: skip
    # Fig. 5: dY's share of the backward GEMMs' reads and traffic (large NPU).
    large = base.loc["large"]
    out += [
        c("dY's share of the backward reads (large NPU)", "§3.2, Fig. 5", 51.4,
          100 * large["dy_share_of_reads"].mean(), "reduction", "%",
          f"mean of {n_large} models, {note}",
          hyp),
        c("dY's share of the backward traffic (large NPU)", "§3.2, Fig. 5", 39.0,
          100 * large["dy_share_of_traffic"].mean(), "reduction", "%",
          f"mean of {n_large} models, {note}", hyp),
        c("dY's share of DLRM's backward reads (large NPU)", "§3.2, Fig. 5", 68.3,
          100 * large.loc["dlrm", "dy_share_of_reads"], "reduction", "%", note, hyp),
    ]  # fmt: skip
    # Figs. 14-16: the sensitivities of the full technique on the large NPU, at the `paper`
    # reading (sweeps/interleaved/sensitivities_paper.py) where its table is there.
    sens = tables.get("sensitivities_paper") if SENSITIVITY_READING else None
    if sens is not None:
        # The large NPU's models (Figs. 14-16 run the large NPU only).
        per = sens[sens["network"].isin(models("large", which))]
        f14, f15, f16 = (per[per["figure"] == f].groupby("x")["change_pct"].mean()
                         for f in ("Fig. 14", "Fig. 15", "Fig. 16"))  # fmt: skip
    else:
        f14 = tables["fig14_cores"].query("network == 'average'").set_index("cores")["change_pct"]
        f15 = tables["fig15_bandwidth"].query("network == 'average'").set_index(
            "bandwidth_scale")["change_pct"]  # fmt: skip
        f16 = tables["fig16_batch"].query("network == 'average'").set_index("batch")["change_pct"]
    at_paper = sens is not None
    snote = f"mean of {n_large if at_paper else 11} models, " + (f"reading `{SENSITIVITY_READING}`" if at_paper
                                     else "the page's default reading")  # fmt: skip
    shyp = HYP if at_paper else ()
    out += [
        c("dual-core large NPU: time change (ideal partition)", "§5, Fig. 14", -22.4, f14[2],
          "reduction", "%", snote, shyp),
        c("quad-core large NPU: time change", "Abstract, §6.3, Fig. 14", -23.7, f14[4],
          "reduction", "%", snote, shyp),
        c("octa-core large NPU: time change", "§6.3, Fig. 14", -27.7, f14[8], "reduction", "%",
          snote, shyp),
        c("gain from 1 to 8 cores (change at 8 − at 1, points)", "§6.3, Fig. 14", -27.7 + 14.5,
          f14[8] - f14[1], "reduction", "points", snote, shyp),
        c("large NPU at 0.5× bandwidth: time change", "§6.4, Fig. 15", -19.3, f15[0.5],
          "reduction", "%", snote, shyp),
        c("large NPU at 0.25× bandwidth: time change", "§6.4, Fig. 15", -22.7, f15[0.25],
          "reduction", "%", snote, shyp),
        c("large NPU at batch 16: time change", "§6.5, Fig. 16", -14.7, f16[16], "reduction",
          "%", snote, shyp),
        c("large NPU at batch 32: time change", "§6.5, Fig. 16", -14.0, f16[32], "reduction",
          "%", snote, shyp),
    ]  # fmt: skip
    # §5: the KNN partition choice.
    knn = tables["knn_partition"]
    proto = knn[knn["network"] == "80/20 layers"]["agree_knn"].mean()
    rung = knn[knn["network"].isin(["resnet50", "googlenet", "mobilenet_v2", "bert_tiny",
                                    "t5_small"])].groupby("npu")[["best_pct", "knn_pct"]].mean()  # fmt: skip
    kept = (rung["knn_pct"] / rung["best_pct"]).mean()
    out += [
        c("KNN partition choice: accuracy", "§5", 91.0, 100 * proto, "reduction", "%",
          "80/20 split of the five models' layers, mean of the two NPUs"),
        c("KNN partition: share of the ideal partition's gain kept", "§5", 21.5 / 22.4, kept,
          "ratio", "×", "one core, two parts, five models, mean of the two NPUs"),
    ]  # fmt: skip
    # §6.6: the GPU (what-if of its baseline kernel [5], the backward GEMM steps).
    if at_paper:
        g = sens[(sens["figure"] == "Fig. 17") & (sens["network"] == "average")]
        gpu = g.set_index("rung")["backward_change_pct"]
    else:
        g = tables["gpu_whatif"]
        gpu = g[(g["capacity"] == "kernel") & (g["network"] == "average")].set_index("rung")[
            "gemm_change_pct"]  # fmt: skip
    gnote = "what-if: §6.6's baseline kernel [5], nothing kept between tiles, five models"
    gnote += f", reading `{SENSITIVITY_READING}`" if at_paper else ""
    for rung, paper in (("Interleaving", -8.6), ("+ Rearrangement (Alg. 1)", -20.3),
                        ("+ Partitioning", -30.3)):  # fmt: skip
        out.append(c(f"GPU (RTX 3090), {rung}: backward time change", "§6.6, Fig. 17", paper,
                     gpu[rung], "reduction", "%", gnote, shyp))  # fmt: skip
    return out


def models_markdown(tables: dict[str, pd.DataFrame]) -> str:
    """Every claim with the eleven models on both NPUs beside each NPU's own nine (the page's
    "The paper's models per NPU"): paper, the two values, and each one's verdict."""
    from _pages import table  # sweeps/: on the path of every script and of the scorecard

    def verdict(c: Claim) -> str:
        return "within" if c.within else ("out" if c.direction_right else "**wrong direction**")

    def value(c: Claim) -> str:
        digits, sign = (2, "") if c.unit == "×" else (1, "+" if c.paper < 0 else "")
        return f"{c.dnnmem:{sign}.{digits}f}".replace("-", "−") + f" {c.unit} ({verdict(c)})"

    every, paper = claims(tables, which="all"), claims(tables, which="paper")
    rows = [[a.claim, f"{a.paper:.{2 if a.unit == '×' else 1}f}".replace("-", "−") + f" {a.unit}",
             value(a), value(b)] for a, b in zip(every, paper)]  # fmt: skip
    head = table(
        ["claim", "paper", "eleven models on both NPUs", "each NPU's nine (the scorecard's)"], rows
    )
    count = (f"Within: {sum(c.within for c in every)} → {sum(c.within for c in paper)} of "
             f"{len(paper)}; wrong directions: {sum(not c.direction_right for c in every)} → "
             f"{sum(not c.direction_right for c in paper)}.")  # fmt: skip
    return head + "\n" + count + "\n"


#: The claims taken from the hypotheses table (Figs. 12, 6 and 5: each reading's own rows); the
#: rest (sensitivities, KNN, GPU) come from their scripts' tables.
N_LADDER_ROWS = 13
#: The readings the misses table follows, in the hypotheses table's order (each adds to the one
#: before); the scorecard's is :data:`READING`.
LADDER_READINGS = ("dnnmem", "gemm", "fp32", "window", "im2col", "paper", "keep")


def _reduced(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """``tables`` with the sensitivities (Figs. 14-16) of ``sensitivities_paper`` replaced by
    ``offchip_reduction``'s (the `reduce` reading: `keep` with §5's batch split summed off
    chip), so that :func:`claims` at ``reading="reduce"`` takes every row at that reading."""
    red = tables["offchip_reduction"].set_index(["figure", "x", "network"])["change_pct"]
    sens = tables["sensitivities_paper"].copy()
    swap = sens["figure"].isin(["Fig. 14", "Fig. 15", "Fig. 16"])
    keys = zip(sens.loc[swap, "figure"], sens.loc[swap, "x"], sens.loc[swap, "network"])
    sens.loc[swap, "change_pct"] = [red[k] for k in keys]
    return {**tables, "sensitivities_paper": sens}


def misses_markdown(tables: dict[str, pd.DataFrame]) -> str:
    """Every claim outside its band at the scorecard's reading (the page's "The claims that still
    miss"): the paper, the band's near edge, the value at each reading of the hypotheses table
    (each NPU's own models; the sensitivities and the GPU rows at the default reading are their
    own scripts' means, eleven and five models) and at `reduce`."""
    global SENSITIVITY_READING
    from _pages import table  # sweeps/: on the path of every script and of the scorecard

    def fmt(c: Claim) -> str:
        digits, sign = (2, "") if c.unit == "×" else (1, "+" if c.paper < 0 else "")
        return f"{c.dnnmem:{sign}.{digits}f}".replace("-", "−")

    now = claims(tables)
    before, SENSITIVITY_READING = SENSITIVITY_READING, ""
    try:
        default = claims(tables, reading="dnnmem")
    finally:
        SENSITIVITY_READING = before
    steps = {r: claims(tables, reading=r) for r in LADDER_READINGS[1:]}
    reduce = claims(_reduced(tables), reading="reduce") if "offchip_reduction" in tables else None
    rows = []
    for i, c in enumerate(now):
        if c.within:
            continue
        digits = 2 if c.unit == "×" else 1
        edge = c.paper * (1 - c.tolerance)  # the band's edge toward zero
        need = ("≥ " if c.paper > 0 else "≤ ") + f"{edge:.{digits + 1}f}".replace("-", "−")
        need += f" {c.unit}"
        if i >= N_LADDER_ROWS:  # the sensitivities and the GPU: the default reading and `keep`
            path = f"{fmt(default[i])} → … → **{fmt(c)}**"
        else:
            trail = [default[i]] + [steps[r][i] for r in LADDER_READINGS[1:]]
            path = " → ".join(fmt(t) for t in trail[:-1]) + f" → **{fmt(trail[-1])}**"
        rows.append([c.claim, f"{c.paper:.{digits}f}".replace("-", "−") + f" {c.unit}", need,
                     path, fmt(reduce[i]) if reduce is not None else "—"])  # fmt: skip
    head = table(["claim (each NPU's own models)", "paper", "within needs",
                  "`dnnmem` → `gemm` → `fp32` → `window` → `im2col` → `paper` → **`keep`** "
                  "(the scorecard's)", "`reduce`"], rows)  # fmt: skip
    return head + f"\n{len(rows)} of {len(now)} claims outside their band.\n"

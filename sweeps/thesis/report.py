"""Write the computed quantities of the thesis figures into ``docs/thesis-figures.md``.

Every number in that page's generated blocks comes from here: the blocks sit between
``<!-- generated: NAME begin -->`` and ``<!-- generated: NAME end -->`` markers and are
replaced on each run, so the prose around them stays. A missing page is created with the
blocks only.

    python sweeps/thesis/report.py [--small] [--out docs/thesis-figures.md]

``--small`` (CI) reads the small-mode caches, writes no images and writes its page to
``results/thesis/thesis-figures.md`` (a quick mode never writes into ``docs/``); the full mode
copies each ``figures/<name>.png`` under 200 KB to ``docs/images/thesis/`` and links the others'
command.
"""

from __future__ import annotations

import argparse
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

import _common as C
import fidelity
import fig5_1_roofline
import fig5_2_traffic
import fig5_3_time
import fig5_4_bandwidth
import fig5_5_breakdown
import fig5_6_batch
import numpy as np
import pandas as pd
import sensitivity

import dnnmem

DOC = C.REPO / "docs" / "thesis-figures.md"
IMAGES = C.REPO / "docs" / "images" / "thesis"
IMAGE_LIMIT = 200_000  # bytes: larger PNGs are not committed, their command is linked
MIB = C.MIB
GIB = 2**30

DROP_TO = (128, 296, 442, 500)  # MiB: the capacities the traffic-drop table quotes
KNEE_STEP = 50  # MiB
KNEE_FALL = 0.01  # "falls by more than 1 % per 50 MiB"


# -- formatting ------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return "—" if x is None or not np.isfinite(x) else f"{100 * x:.1f} %"


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or not np.isfinite(x) else f"{x:.{digits}g}"


def _fixed(x: float, digits: int = 1) -> str:
    return "—" if x is None or not np.isfinite(x) else f"{x:,.{digits}f}"


table = C.markdown_table


def _at(df: pd.DataFrame, network: str, capacity_mib: float, col: str, **filters: float) -> float:
    d = df[(df.network == network) & (df.capacity == int(capacity_mib * MIB))]
    for k, v in filters.items():
        d = d[d[k] == v]
    return float(d[col].iloc[0]) if len(d) else float("nan")


def _traffic(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(traffic=df["traffic_in"] + df["traffic_out"])


# -- quantities ------------------------------------------------------------------------------
def knee(
    capacity: np.ndarray,
    traffic: np.ndarray,
    step: float = KNEE_STEP * MIB,
    fall: float = KNEE_FALL,
) -> float:
    """The smallest grid capacity c such that from every grid capacity c' ≥ c, traffic falls
    by at most ``fall`` (a fraction of traffic(c')) over the next ``step`` bytes (linear
    interpolation between grid points). NaN when it still falls faster at the grid's end."""
    order = np.argsort(capacity)
    x, y = np.asarray(capacity, float)[order], np.asarray(traffic, float)[order]
    ok = [
        (y[i] - np.interp(x[i] + step, x, y)) <= fall * y[i]
        for i in range(len(x))
        if x[i] + step <= x[-1]
    ]
    if not ok or not ok[-1]:
        return float("nan")
    i = len(ok) - 1
    while i > 0 and ok[i - 1]:
        i -= 1
    return float(x[i])


def most_of_drop(capacity: np.ndarray, traffic: np.ndarray, share: float = 0.9) -> float:
    """The smallest grid capacity from which traffic stays at or below
    first − ``share`` × (first − last), first and last being the traffic at the smallest and
    the largest capacity of the grid."""
    order = np.argsort(capacity)
    x, y = np.asarray(capacity, float)[order], np.asarray(traffic, float)[order]
    level = y[0] - share * (y[0] - y[-1])
    above = np.nonzero(y > level * (1 + 1e-12))[0]
    return float(x[0] if above.size == 0 else x[min(above[-1] + 1, len(x) - 1)])


def recurrent_weight_bytes(network: str, batch: int, seq_len: int = 50) -> int:
    """Bytes of the weight tensors used by at least 2·T steps (the unrolled LSTMs' weights,
    read once per time step forward and backward): the cap(W) of Fig. 5.2's caption."""
    t = C.load(network, batch).tensors
    return int(t.loc[(t.role == "weight") & (t.num_uses >= 2 * seq_len), "bytes"].sum())


# -- generated blocks ------------------------------------------------------------------------
def block_setup(small: bool) -> str:
    nets = ", ".join(f"{n} (N={C.WORKLOADS[n]})" for n in C.workloads())
    caps = (
        "7 capacities (24, 128, 296, 400, 442, 500, 1000 MiB)"
        if small
        else "489 capacities (24 to 1000 MiB in 2 MiB steps)"
    )
    lines = [
        f"- Mode: {'**small (CI)**' if small else 'full'}; {caps}; policy `lookahead`.",
        f"- dnnmem {dnnmem.__version__}; points evaluated with dnnmem.sweep.",
        f"- Networks: {nets}.",
    ]
    return "\n".join(lines)


def block_figures(small: bool) -> str:
    figs = [
        (fig5_1_roofline, "Fig. 5.1 — modified roofline"),
        (fig5_2_traffic, "Fig. 5.2 — traffic in / out vs capacity"),
        (fig5_3_time, "Fig. 5.3 — time vs capacity at 13.45 and 23.04 TFLOP/s, speedup"),
        (fig5_4_bandwidth, "Fig. 5.4 — average bandwidth at 616 and 1555 GB/s"),
        (fig5_5_breakdown, "Fig. 5.5 — time by layer kind"),
        (fig5_6_batch, "Fig. 5.6 — throughput vs batch at 24 and 400 MiB"),
    ]
    out = []
    for mod, caption in figs:
        src = C.FIGURES_DIR / f"{mod.NAME}.png"
        script = Path(mod.__file__).stem
        cmd = f"`python sweeps/thesis/{script}.py` (writes `figures/{mod.NAME}.png`)"
        if not small and src.exists() and src.stat().st_size < IMAGE_LIMIT:
            IMAGES.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, IMAGES / src.name)
            out.append(f"**{caption}** — {cmd}\n\n![{caption}](images/thesis/{src.name})\n")
        elif not small and (IMAGES / src.name).exists():
            out.append(f"**{caption}** — {cmd}\n\n![{caption}](images/thesis/{src.name})\n")
        else:
            out.append(f"**{caption}** — {cmd}\n")
    return "\n".join(out)


def block_tables(d: dict[str, pd.DataFrame]) -> str:
    tr, tm, bw, bd, bt = (
        _traffic(d["traffic"]),
        d["time"],
        d["bandwidth"],
        d["breakdown"],
        d["batch"],
    )
    names = C.networks_in(tr)
    out = []

    rows = []
    for n in names:
        base = _at(tr, n, 24, "traffic")
        rows.append(
            [n, f"{base / GIB:.2f}"] + [_pct(1 - _at(tr, n, c, "traffic") / base) for c in DROP_TO]
        )
    out.append(
        "**Traffic (in + out) drop from 24 MiB** (Fig. 5.2; RTX 2080 Ti)\n\n"
        + table(["network", "traffic at 24 MiB (GiB)"] + [f"→ {c} MiB" for c in DROP_TO], rows)
    )

    rows = []
    for n in names:
        diff = [
            (_at(tr, n, c, "traffic_in") - _at(tr, n, c, "traffic_out")) / GIB
            for c in (24, 128, 500, 1000)
        ]
        g = tr[tr.network == n]
        k = knee(g["capacity"].to_numpy(), g["traffic"].to_numpy())
        c90 = most_of_drop(g["capacity"].to_numpy(), g["traffic"].to_numpy())
        rows.append(
            [n]
            + [f"{x:.2f}" for x in diff]
            + ["still falling at 1000" if np.isnan(k) else f"{k / MIB:.0f}", f"{c90 / MIB:.0f}"]
        )
    out.append(
        "**Traffic in − out (GiB) and the knee** — the capacity from which traffic "
        f"never falls by more than {KNEE_FALL:.0%} per {KNEE_STEP} MiB, and the smallest "
        "capacity from which 90 % of the traffic drop between the grid's smallest and "
        "largest capacity is achieved, and stays so (Fig. 5.2)\n\n"
        + table(
            [
                "network",
                "in − out @24",
                "@128",
                "@500",
                "@1000",
                "knee (MiB)",
                "90 % of the drop (MiB)",
            ],
            rows,
        )
    )

    lo, _hi = fig5_3_time.THROUGHPUTS
    sp = fig5_3_time.speedup(tm)
    rows = []
    for n in names:
        t24, t500 = _at(tm, n, 24, "time", throughput=lo), _at(tm, n, 500, "time", throughput=lo)
        s = [_at(sp, n, c, "speedup") for c in (24, 128, 400, 1000)]
        smax = sp.loc[sp.network == n, "speedup"].max()
        rows.append(
            [n, _fixed(1e3 * t24, 2), _fixed(1e3 * t500, 2), _pct(1 - t500 / t24)]
            + [f"{x:.3f}" for x in s]
            + [f"{smax:.3f}"]
        )
    out.append(
        f"**Execution time and speedup** (Fig. 5.3; 616 GB/s; speedup = time at 13.45 / "
        f"time at 23.04 TFLOP/s, bound {fig5_3_time.BOUND:.3f})\n\n"
        + table(
            [
                "network",
                "time @24 (ms)",
                "@500 (ms)",
                "drop 24→500",
                "speedup @24",
                "@128",
                "@400",
                "@1000",
                "max over grid",
            ],
            rows,
        )
    )

    b1, b2 = fig5_4_bandwidth.BANDWIDTHS
    rows = []
    for n in names:
        cells = []
        for c in (24, 1000):
            for b in (b1, b2):
                v = _at(bw, n, c, "avg_bandwidth", bandwidth=b)
                cells.append(f"{v / 1e9:.0f} ({v / b:.0%})")
        rows.append([n] + cells)
    out.append(
        "**Average bandwidth, GB/s (share of peak)** (Fig. 5.4; 13.45 TFLOP/s)\n\n"
        + table(["network", "24 MiB @616", "24 MiB @1555", "1000 MiB @616", "1000 MiB @1555"], rows)
    )

    share = fig5_5_breakdown.class_share(bd)
    rows = []
    for n in names:
        rows.append(
            [n]
            + [_pct(_at(share, n, c, "II")) for c in (24, 128, 400)]
            + [_pct(_at(share, n, c, "I")) for c in (24, 400)]
        )
    out.append(
        "**Share of the iteration time in type-II (point-wise) layers** (Fig. 5.5; "
        "RTX 2080 Ti)\n\n"
        + table(["network", "type II @24", "@128", "@400", "type I @24", "type I @400"], rows)
    )

    batches = sorted(bt["batch"].unique())
    rows = []
    for n in names:
        for c in (24, 400):
            rows.append(
                [n, f"{c} MiB"]
                + [_fixed(_at(bt, n, c, "samples_per_s", batch=b), 1) for b in batches]
            )
    out.append(
        "**Throughput, samples/s, per batch** (Fig. 5.6; RTX 2080 Ti)\n\n"
        + table(["network", "capacity"] + [f"N={b}" for b in batches], rows)
    )
    return "\n\n".join(out)


def block_comparison(d: dict[str, pd.DataFrame]) -> str:
    """Each statement of the thesis's surviving text that the figures bear on, our number,
    and a verdict computed from it (the rule is in the row)."""
    rf, tr, tm, bd, bt = (
        d["roofline"],
        _traffic(d["traffic"]),
        d["time"],
        d["breakdown"],
        d["batch"],
    )
    ridge = fig5_1_roofline.THROUGHPUT / fig5_1_roofline.BANDWIDTH
    names = C.networks_in(tr)
    rows: list[list[str]] = []

    def add(statement: str, network: str, ours: str, verdict: str) -> None:
        rows.append([statement, network, ours, verdict])

    for n in names:
        p = rf[rf.network == n]
        span = p["rf"].max() / p["rf"].min()
        add(
            "§5.2 Obs. 1: rf varies up to 10²–10⁴× within a workload (agree: span ≥ 10²)",
            n,
            f"span {span:.2g}× (10^{np.log10(span):.1f})",
            "agree" if span >= 1e2 else "differ",
        )
    for n in names:
        p = rf[rf.network == n]
        two, one = p[p["class"] == "II"], p[p["class"] == "I"]
        top2 = two["rf"].max()
        below = one[one["rf"] <= top2]
        low1 = one.loc[one.kind != "embedding", "rf"].min()
        if below.empty:
            verdict = "agree"
        elif set(below.kind) == {"embedding"}:
            verdict = "agree, embeddings aside (a gather, class I in SPEC §2)"
        else:
            verdict = f"differ ({len(below)} type-I points ≤ the top type-II rf)"
        kinds = ", ".join(f"{k} {v:.3g}" for k, v in below.groupby("kind")["rf"].min().items())
        add(
            "§5.2 Obs. 1: type-I and type-II layers form two clusters split by a line "
            "(agree: every type-II rf below every type-I rf)",
            n,
            f"max rf II {top2:.3g}; min rf I {one['rf'].min():.3g}, without embeddings "
            f"{low1:.3g}" + (f"; type I at or below {top2:.3g}: {kinds}" if kinds else ""),
            verdict,
        )
    for n in names:
        p = rf[(rf.network == n) & (rf["class"] == "I")]
        mb = float(p["memory_bound"].mean())
        mb_flops = float(p.loc[p.memory_bound, "flops"].sum() / p["flops"].sum())
        compute_bound = n in ("resnet50", "transformer")
        if compute_bound:
            stmt = (
                "§5.2 Obs. 2: ResNet / Transformer tend to compute-bound (agree: < 50 % of "
                "type-I points memory-bound)"
            )
            verdict = "agree" if mb < 0.5 else "differ"
        else:
            stmt = (
                "§5.2 Obs. 2: MobileNet / GNMT tend to memory-bound, a considerable portion "
                "of type-I layers memory-bound (agree: ≥ 25 %)"
            )
            verdict = "agree" if mb >= 0.25 else "differ"
        add(
            stmt,
            n,
            f"{mb:.0%} of type-I points below the ridge {ridge:.1f} FLOP/B "
            f"({mb_flops:.0%} of their FLOPs)",
            verdict,
        )
    if "gnmt" in names:
        w = recurrent_weight_bytes("gnmt", C.WORKLOADS["gnmt"])
        expect = 49 * w
        for c in (24,):  # the caption's regime: the weights do not fit
            diff = _at(tr, "gnmt", c, "traffic_in") - _at(tr, "gnmt", c, "traffic_out")
            ratio = diff / expect
            add(
                "Fig. 5.2 caption: GNMT's in − out ≈ (T − 1)·cap(W), weights loaded T times "
                "(agree: within ±25 %)",
                f"gnmt @{c} MiB",
                f"in − out {diff / GIB:.1f} GiB vs (T−1)·cap(W) = 49 × {w / MIB:.0f} MiB = "
                f"{expect / GIB:.1f} GiB (ratio {ratio:.2f}; vs (2T−1)·cap(W), loaded T times "
                f"forward and T backward: {diff / (99 * w):.2f})",
                "agree" if abs(ratio - 1) <= 0.25 else f"differ (×{ratio:.2f})",
            )
    sp = fig5_3_time.speedup(tm)
    for n in names:
        smax = sp.loc[sp.network == n, "speedup"].max()
        add(
            f"Fig. 5.3 caption: speedup ≤ 23.04/13.45 = {fig5_3_time.BOUND:.3f}",
            n,
            f"max {smax:.4f}",
            "agree" if smax <= fig5_3_time.BOUND * (1 + 1e-9) else "differ",
        )
    if "gnmt" in names:
        t = C.load("gnmt", C.WORKLOADS["gnmt"]).tensors
        w = t[(t.role == "weight") & (t.num_uses >= 100)]
        layer = w["name"].str.extract(r"W:([^/]+)/")[0]
        per_layer = w.groupby(layer)["bytes"].sum()
        g = tr[tr.network == "gnmt"].sort_values("capacity")
        k = knee(g["capacity"].to_numpy(), g["traffic"].to_numpy())
        first = g[g["traffic"] <= 0.9 * g["traffic"].iloc[0]]["capacity"].min()
        add(
            "Ch. 6: for RNN-based models the cache must be large enough to hold the recurrent "
            "weights to help (agree: traffic first falls 10 % at ≥ one layer's weights)",
            "gnmt",
            f"one LSTM layer's weights {per_layer.min() / MIB:.0f}–"
            f"{per_layer.max() / MIB:.0f} MiB; traffic −10 % first at "
            f"{first / MIB:.0f} MiB; knee " + ("none" if np.isnan(k) else f"{k / MIB:.0f} MiB"),
            "agree" if first >= per_layer.min() else "differ",
        )
    share = fig5_5_breakdown.class_share(bd)
    for n in names:
        if n not in ("resnet50", "transformer"):
            continue
        p = rf[rf.network == n]
        flop2 = float(p.loc[p["class"] == "II", "flops"].sum() / p["flops"].sum())
        s24, s400 = _at(share, n, 24, "II"), _at(share, n, 400, "II")
        add(
            "Ch. 6: for computation-intensive workloads the bottleneck is hiding the point-wise "
            "layers (agree: type-II time share ≥ 5× its FLOP share at 24 MiB and falls by 400)",
            n,
            f"type-II time {s24:.1%} @24 → {s400:.1%} @400 MiB; FLOP share {flop2:.2%}",
            "agree" if s24 >= 5 * flop2 and s400 < s24 else "differ",
        )
    for n in names:
        g = bt[bt.network == n]
        best = {
            c: int(g.loc[g[g.capacity == c * MIB]["samples_per_s"].idxmax(), "batch"])
            for c in (24, 400)
        }
        add(
            "Ch. 6: batch size trades weight reuse against feature-map capacity "
            "(qualitative: where is throughput best)",
            n,
            f"best batch {best[24]} @24 MiB, {best[400]} @400 MiB",
            "no number to compare",
        )
    return table(
        ["thesis statement (and the rule of the verdict)", "network", "ours", "verdict"], rows
    )


def block_sensitivity(d: dict[str, pd.DataFrame]) -> str:
    s = sensitivity.summary(d["sensitivity"])
    rows = []
    for _, r in s.iterrows():
        rows.append(
            [
                r.network,
                r.variant,
                _fixed(1e3 * r.time_24, 2),
                _pct(r.time_24_vs_base) if r.variant != "baseline" else "",
                _fixed(1e3 * r.time_400, 2),
                _pct(r.time_400_vs_base) if r.variant != "baseline" else "",
                _pct(r.traffic_drop),
                _pct(r.time_drop),
                f"{r.speedup_24:.3f}",
                f"{r.speedup_400:.3f}",
                _pct(r.type2_24),
            ]
        )
    detail = table(
        [
            "network",
            "variant",
            "time @24 (ms)",
            "vs baseline",
            "time @400 (ms)",
            "vs baseline",
            "traffic drop 24→500",
            "time drop 24→500",
            "speedup @24",
            "speedup @400",
            "type-II share @24",
        ],
        rows,
    )
    rank = sensitivity_ranking(s)
    rows = [
        [r.variant, _pct(r.time_24), r.net_24, _pct(r.time_400), r.net_400, f"{r.speedup:.3f}"]
        for r in rank.itertuples()
    ]
    ranking = table(
        ["variant", "largest time change @24", "in", "@400", "in", "largest speedup change"], rows
    )
    return (
        "**Largest effect of each assumption over the networks** (absolute values: time / "
        "baseline time − 1 at 24 and at 400 MiB; speedup − baseline speedup, 24 and "
        "400 MiB)\n\n" + ranking + "\n\n**Every variant**\n\n" + detail
    )


def sensitivity_ranking(s: pd.DataFrame) -> pd.DataFrame:
    """Per variant (baseline excluded): the largest |relative time change| at 24 and at 400 MiB
    over the networks (and which network), and the largest |speedup change|; sorted by the
    larger of the two time changes, largest first."""
    base = s[s.variant == "baseline"].set_index("network")
    rows = []
    for v, g in s[s.variant != "baseline"].groupby("variant", sort=False):
        a24, a400 = g["time_24_vs_base"].abs(), g["time_400_vs_base"].abs()
        dsp = pd.concat(
            [
                (g["speedup_24"] - g["network"].map(base["speedup_24"])).abs(),
                (g["speedup_400"] - g["network"].map(base["speedup_400"])).abs(),
            ]
        )
        rows.append(
            {
                "variant": v,
                "time_24": a24.max(),
                "net_24": g.loc[a24.idxmax(), "network"],
                "time_400": a400.max(),
                "net_400": g.loc[a400.idxmax(), "network"],
                "speedup": dsp.max(),
            }
        )
    out = pd.DataFrame(rows)
    return (
        out.assign(key=out[["time_24", "time_400"]].max(axis=1))
        .sort_values("key", ascending=False)
        .drop(columns="key")
        .reset_index(drop=True)
    )


# -- the page --------------------------------------------------------------------------------
def data(small: bool) -> dict[str, pd.DataFrame]:
    """Every DataFrame the page quotes (from the caches when present)."""
    return {
        "roofline": fig5_1_roofline.compute(small),
        "traffic": fig5_2_traffic.compute(small),
        "time": fig5_3_time.compute(small),
        "bandwidth": fig5_4_bandwidth.compute(small),
        "breakdown": fig5_5_breakdown.compute(small),
        "batch": fig5_6_batch.compute(small),
        "sensitivity": sensitivity.compute(small),
        "fidelity": fidelity.compute(),
        "fidelity_elsewhere": fidelity.elsewhere(),
    }


BLOCKS: dict[str, Callable[[dict[str, pd.DataFrame], bool], str]] = {
    "setup": lambda d, small: block_setup(small),
    "figures": lambda d, small: block_figures(small),
    "tables": lambda d, small: block_tables(d),
    "comparison": lambda d, small: block_comparison(d),
    "sensitivity": lambda d, small: block_sensitivity(d),
    "fidelity": lambda d, small: fidelity.block_observations(d["fidelity"]),
    "fidelity-sensitivity": lambda d, small: fidelity.block_sensitivity(d["fidelity"]),
    "fidelity-elsewhere": lambda d, small: fidelity.block_elsewhere(d["fidelity_elsewhere"]),
    "fidelity-checks": lambda d, small: fidelity.block_checks(),
}


def render(text: str, blocks: dict[str, str]) -> str:
    """``text`` with each generated block replaced; blocks with no markers are appended."""
    for name, body in blocks.items():
        begin, end = f"<!-- generated: {name} begin -->", f"<!-- generated: {name} end -->"
        new = f"{begin}\n{body}\n{end}"
        pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: new, text)
        else:
            text = text.rstrip("\n") + f"\n\n{new}\n"
    return text


def main(argv: Sequence[str] | None = None) -> Path:
    """Compute (or read back) everything and rewrite the generated blocks of the page."""
    p = argparse.ArgumentParser(description="Write docs/thesis-figures.md's generated tables.")
    p.add_argument(
        "--small", action="store_true", help="CI mode (small caches, no images, not into docs/)"
    )
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"the page (default {DOC}; with --small results/thesis/thesis-figures.md)",
    )
    a = p.parse_args(argv)
    if a.out is None:
        a.out = C.RESULTS_DIR / DOC.name if a.small else DOC
    docs = (C.REPO / "docs").resolve()
    if a.small and (a.out.resolve() == docs or docs in a.out.resolve().parents):
        p.error(f"--small writes a page of small-mode numbers: not into docs/ ({a.out})")
    d = data(a.small)
    blocks = {name: fn(d, a.small) for name, fn in BLOCKS.items()}
    text = a.out.read_text() if a.out.exists() else "# Thesis figures 5.1–5.6, regenerated\n"
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(render(text, blocks))
    print(f"report: {a.out}")
    return a.out


if __name__ == "__main__":
    main()

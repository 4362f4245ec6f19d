"""Issue 28's hypotheses on the interleaved-gradient reproduction: the dY oracle (Fig. 6), the
ablation ladder (Fig. 12) and dY's share of the backward GEMMs' reads (Fig. 5) under each
reading of the paper's simulator (``_igo.READINGS``), one hypothesis added at a time: GEMM-level
accounting, FP32 elements, §4.2's reuse window (LRU), im2col-expanded operands, and the dY
oracle as §3.3 words it (dY read once).

    python sweeps/interleaved/hypotheses.py [--small] [--no-plot] [--markdown] [--cached]

The last reading, ``paper``, is the one the page's scorecard takes for Figs. 5, 6 and 12.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import _igo as C
import pandas as pd
from _pages import num, pct, share, table, times

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("interleaved", "beyond", "hypotheses")
RUNGS = ["Interleaving", "+ Rearrangement (Alg. 1)", "+ Rearrangement (ideal)", "+ Partitioning"]
#: What each reading adds, in words (the page's table).
ADDS = {
    "dnnmem": "the page before issue 28: bf16, Bélády, the whole iteration",
    "gemm": "+ GEMM-level accounting",
    "fp32": "+ FP32 elements",
    "window": "+ §4.2's reuse window (LRU)",
    "im2col": "+ im2col-expanded X and dX",
    "paper": "+ the oracle as §3.3 words it: dY read once (`dy-once`; the oracle column only)",
    "keep": "+ §4.3's intermediate results kept in the SPM to the extent possible (`intermediates=keep`)",
    "reduce": "+ §5's batch split summed off chip (`reduction=dram`; the + Partitioning rung only)",
}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (reading, NPU, network, rung): the accounted time, its change against the
    baseline (%), dY's share of the tiled layers' reads and (rung "dY oracle") the oracle."""
    rows = []
    ladder = {r: C.LADDER[r] for r in ["Baseline", *RUNGS]}
    before: str | None = None
    for name in C.READINGS:
        ladder["dY oracle"] = {"order": C.reading(name)["oracle"]}
        # A reading that only sums partitions off chip (`reduction`) changes only the rungs
        # with a partition: the others' walks have no parts, so they are the reading before's.
        same = before is not None and all(
            v == C.reading(before)[key] for key, v in C.reading(name).items() if key != "reduction"
        )
        with C.using(name):
            for npu in C.NPUS:
                for net in C.networks(small) + ([] if small else C.NPU_ONLY[npu]):
                    for rung, options in ladder.items():
                        if same and "partition" not in options:
                            prev = next(x for x in rows if (x["reading"], x["rung"], x["npu"],
                                        x["network"]) == (before, rung, npu, net))  # fmt: skip
                            rows.append({**prev, "reading": name})
                            continue
                        r = C.run(net, npu, **options)
                        rows.append({"reading": name, "rung": rung, "npu": npu, "network": net,
                                     "time": r["time"],
                                     "dy_share_of_reads": r["dy_share_of_reads"],
                                     "dy_share_of_traffic": r["dy_share_of_traffic"]})  # fmt: skip
        before = name
    df = pd.DataFrame(rows)
    base = df[df["rung"] == "Baseline"].set_index(["reading", "npu", "network"])["time"]
    key = list(zip(df["reading"], df["npu"], df["network"]))
    df["change_pct"] = [100 * (t / base[k] - 1) for t, k in zip(df["time"], key)]
    return df


def averages(df: pd.DataFrame) -> pd.DataFrame:
    """Per (reading, NPU): the mean change of each rung (%), the oracle's geomean speedup and
    the baseline's mean dY share of reads."""
    out = []
    df = df[df["network"].isin(C.NETWORKS)]  # the eleven on both NPUs (not :data:`C.NPU_ONLY`)
    for (name, npu), g in df.groupby(["reading", "npu"], sort=False):
        row: dict[str, object] = {"reading": name, "npu": npu}
        for rung in RUNGS:
            row[rung] = float(g[g["rung"] == rung]["change_pct"].mean())
        sp = 1 / (1 + g[g["rung"] == "dY oracle"]["change_pct"].to_numpy() / 100)
        row["oracle"] = float(sp.prod() ** (1 / len(sp)))
        row["dy_share_of_reads"] = float(g[g["rung"] == "Baseline"]["dy_share_of_reads"].mean())
        out.append(row)
    return pd.DataFrame(out)


def plot(df: pd.DataFrame) -> Figure:
    """The oracle's speedup and the ideal rung's change per reading, one panel per NPU."""
    a = averages(df)
    fig, axes = style.figure(1, 2, panel=(6.0, 3.6))
    paper = {"small": (1.70, -25.1), "large": (1.43, -12.4)}
    for ax, npu in zip(axes[0], C.NPUS):
        d = a[a["npu"] == npu].set_index("reading")
        t = pd.DataFrame({"dY-oracle speedup − 1 (%)": 100 * (d["oracle"] - 1),
                          "ideal rung: time change (%)": d["+ Rearrangement (ideal)"]})  # fmt: skip
        style.bars(ax, t, reference=0.0)
        o, i = paper[npu]
        ax.axhline(100 * (o - 1), color="0.3", ls="--", lw=1, label="paper: oracle")
        ax.axhline(i, color="0.3", ls=":", lw=1, label="paper: ideal rung")
        ax.set_title(f"{npu} NPU", fontsize=10)
    axes[0, 0].set_ylabel("%")
    fig.suptitle("Interleaved gradient order: each hypothesis on the paper's simulator, added in "
                 "turn (mean of 11 models)", fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's hypotheses table: per reading, Fig. 6, Fig. 12 and Fig. 5 beside the paper."""
    a = averages(tables["hypotheses"]).set_index(["reading", "npu"])
    P = C.PAPER_LADDER

    def ladder(name: str, npu: str) -> str:
        return " / ".join(num(a.at[(name, npu), r], 1, sign=True) for r in RUNGS)

    rows = [["paper", "1.70× / 1.43×", " / ".join(num(P["small"][r], 1) for r in RUNGS),
             " / ".join(num(P["large"][r], 1) for r in RUNGS), "— / 51.4 %"]]  # fmt: skip
    for name in C.READINGS:
        if (name, "small") not in a.index:
            continue
        rows.append([
            f"`{name}`: {ADDS.get(name, name)}",
            f"{times(a.at[(name, 'small'), 'oracle'])} / {times(a.at[(name, 'large'), 'oracle'])}",
            ladder(name, "small"), ladder(name, "large"),
            f"{share(a.at[(name, 'small'), 'dy_share_of_reads'])} / "
            f"{share(a.at[(name, 'large'), 'dy_share_of_reads'])}",
        ])  # fmt: skip
    head = table(["reading (each adds to the one above)", "Fig. 6: dY oracle, small / large",
                  "Fig. 12 small NPU (%): the four rungs", "Fig. 12 large NPU (%)",
                  "Fig. 5: dY share of reads, small / large"], rows)  # fmt: skip
    first, last = "dnnmem", _claims().READING  # the scorecard's reading
    moved = (
        f"From `{first}` to `{last}` the small NPU's oracle goes "
        f"{times(a.at[(first, 'small'), 'oracle'])} → {times(a.at[(last, 'small'), 'oracle'])} "
        f"(the paper: 1.70×) and its ideal rung {pct(a.at[(first, 'small'), RUNGS[2]], 1)} → "
        f"{pct(a.at[(last, 'small'), RUNGS[2]], 1)} (−25.1 %); the large NPU's oracle "
        f"{times(a.at[(first, 'large'), 'oracle'], 3)} → {times(a.at[(last, 'large'), 'oracle'])} "
        f"(1.43×) and its ideal rung {pct(a.at[(first, 'large'), RUNGS[2]], 1)} → "
        f"{pct(a.at[(last, 'large'), RUNGS[2]], 1)} (−12.4 %).\n"
    )
    per_npu = _claims().models_markdown(tables)
    misses = _claims().misses_markdown(tables)
    return {
        "hypotheses": head + "\n" + moved,
        "models_per_npu": per_npu,
        "claims_that_miss": misses,
    }


def _claims() -> ModuleType:
    """The scorecard's claims of this seed (sweeps/interleaved/claims.py: each NPU over its own
    models), imported by path under the scorecard's name (``claims_interleaved``)."""
    name = "claims_interleaved"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("claims.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


if __name__ == "__main__":
    C.main(sys.modules[__name__])

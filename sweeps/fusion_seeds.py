"""How the seed reproductions move with operator fusion (docs/model/fusion.md).

Each reproduction runs with fusion ``none`` (its default: every layer a step of its own) and at
the level its paper assumes: ``accelerator`` for OnSRAM (an optimised graph on an accelerator
with vector units) and mini-batch serialization (WaveCore's vector units at the global buffer),
``pointwise`` for interleaved gradient order (a simulator that counts GEMMs and fuses as
"PyTorch and XLA" do). The headline numbers of each figure are printed side by side with the
paper's, and written to ``tests/data/seeds/fusion/<family>.csv`` (the numbers the seed pages'
"Fusion" sections show; ``tests/python/test_fusion_seeds.py`` checks the pages against them and
them against the engine) or, with ``--small``, to ``figures/fusion_seeds_<family>_small.csv``.
The defaults of the reproductions are not changed here.

    python sweeps/fusion_seeds.py [--small] [--family onsram mbs interleaved]

OnSRAM Fig. 2 is run without its random-order Eager columns (50 orders per network): the
static managers and the caches only.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
LEVEL = {"onsram": "accelerator", "mbs": "accelerator", "interleaved": "pointwise"}


def _module(family: str, name: str):  # type: ignore[no-untyped-def]
    folder = str(HERE / family)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(name)


def _rows(
    family: str,
    figure: str,
    extract: Callable[[pd.DataFrame], pd.DataFrame],
    run: Callable[[], pd.DataFrame],
) -> pd.DataFrame:
    """`run` at fusion none and at the family's level; `extract` makes (quantity, key, value,
    paper) rows of each."""
    shared = _module(family, {"onsram": "_onsram", "mbs": "_mbs", "interleaved": "_igo"}[family])
    out = []
    for level in ("none", LEVEL[family]):
        shared.FUSION = level
        t0 = time.perf_counter()
        part = extract(run())
        part["level"] = "none" if level == "none" else "fused"
        out.append(part)
        print(f"  {figure} at {level}: {time.perf_counter() - t0:.0f} s", flush=True)
    shared.FUSION = "none"
    df = pd.concat(out)
    wide = df.pivot_table(
        index=["quantity", "key"], columns="level", values="value", aggfunc="first", sort=False
    ).reset_index()
    paper = df.drop_duplicates(["quantity", "key"]).set_index(["quantity", "key"])["paper"]
    wide["paper"] = [paper.get((q, k)) for q, k in zip(wide["quantity"], wide["key"])]
    wide.insert(0, "figure", figure)
    wide["fusion"] = LEVEL[family]
    return wide[["figure", "quantity", "key", "none", "fused", "fusion", "paper"]]


def _long(df: pd.DataFrame, key: list[str], values: dict[str, str | None]) -> pd.DataFrame:
    """(quantity, key, value, paper) rows: one per row of `df` and column of `values` (its paper
    column, or None)."""
    rows = []
    for _, r in df.iterrows():
        label = " / ".join(str(r[k]) for k in key)
        for col, paper in values.items():
            rows.append(
                {
                    "quantity": col,
                    "key": label,
                    "value": float(r[col]),
                    "paper": float(r[paper]) if paper and pd.notna(r[paper]) else None,
                }
            )
    return pd.DataFrame(rows)


def onsram(small: bool) -> pd.DataFrame:
    table1 = _module("onsram", "table1")
    fig2 = _module("onsram", "fig2")
    C = _module("onsram", "_onsram")

    def t1() -> pd.DataFrame:
        return table1.compute(small=small)

    def t1_rows(df: pd.DataFrame) -> pd.DataFrame:
        df = df[df["bytes_per_element"] == 2]
        return _long(df, ["network"], {"inf": "paper_inf", "one_step": "paper_one_step"})

    def f2() -> pd.DataFrame:
        df = C.speedups(C.networks(small), fig2.POLICIES, bytes_per_element=2)
        geo = {"network": "GeoMean"} | {p: C.geomean(df[p]) for p in fig2.POLICIES}
        return pd.concat([df, pd.DataFrame([geo])], ignore_index=True)

    def f2_rows(df: pd.DataFrame) -> pd.DataFrame:
        return _long(df, ["network"], dict.fromkeys(fig2.POLICIES))

    return pd.concat(
        [_rows("onsram", "Table I (2 B)", t1_rows, t1), _rows("onsram", "Fig. 2", f2_rows, f2)]
    )


def mbs(small: bool) -> pd.DataFrame:
    fig10 = _module("mbs", "fig10_configs")
    fig11 = _module("mbs", "fig11_buffer")
    fig14 = _module("mbs", "fig14_utilization")

    def f10_rows(df: pd.DataFrame) -> pd.DataFrame:
        df = df[df["encodings"] == "paper"]
        return _long(df, ["network", "config"], {"traffic_ratio": None, "time_ratio": None})

    def f11_rows(df: pd.DataFrame) -> pd.DataFrame:
        return _long(df, ["buffer_mib", "config"], {"traffic_vs_il5": None})

    def f14_rows(df: pd.DataFrame) -> pd.DataFrame:
        # Both arrays of the page's Fig. 14 (WaveCore's and SCALE-Sim's, docs/seeds/mbs.md).
        return _long(df, ["network", "array", "config"], {"gemm_utilization": None})

    return pd.concat(
        [
            _rows("mbs", "Fig. 10", f10_rows, lambda: fig10.compute(small=small)),
            _rows("mbs", "Fig. 11", f11_rows, lambda: fig11.compute(small=small)),
            _rows("mbs", "Fig. 14", f14_rows, lambda: fig14.compute(small=small)),
        ]
    )


def interleaved(small: bool) -> pd.DataFrame:
    fig5 = _module("interleaved", "fig5_dy_share")
    fig6 = _module("interleaved", "fig6_dy_oracle")
    fig12 = _module("interleaved", "fig12_ladder")

    def f5_rows(df: pd.DataFrame) -> pd.DataFrame:
        return _long(
            df,
            ["npu", "network"],
            {
                "dy_share_of_reads": "paper_dy_share_of_reads",
                "dy_share_of_traffic": "paper_dy_share_of_traffic",
                "dy_share_of_iteration": None,
            },
        )

    def f6_rows(df: pd.DataFrame) -> pd.DataFrame:
        return _long(df, ["npu", "network"], {"speedup": "paper"})

    def f12_rows(df: pd.DataFrame) -> pd.DataFrame:
        df = df[df["network"] == "average"]
        return _long(df, ["npu", "rung"], {"change_pct": "paper_pct"})

    return pd.concat(
        [
            _rows("interleaved", "Fig. 5", f5_rows, lambda: fig5.compute(small=small)),
            _rows("interleaved", "Fig. 6", f6_rows, lambda: fig6.compute(small=small)),
            _rows("interleaved", "Fig. 12", f12_rows, lambda: fig12.compute(small=small)),
        ]
    )


FAMILIES = {"onsram": onsram, "mbs": mbs, "interleaved": interleaved}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", action="store_true", help="each figure's CI mode")
    p.add_argument("--family", nargs="+", choices=list(FAMILIES), default=list(FAMILIES))
    a = p.parse_args()
    # A quick mode never writes into tests/data/ (sweeps/_pages.py).
    out_dir = HERE.parent / ("figures" if a.small else "tests/data/seeds/fusion")
    out_dir.mkdir(parents=True, exist_ok=True)
    for family in a.family:
        print(f"{family}:", flush=True)
        df = FAMILIES[family](a.small)
        path = out_dir / (f"fusion_seeds_{family}_small.csv" if a.small else f"{family}.csv")
        df.to_csv(path, index=False)
        with pd.option_context("display.width", 220, "display.max_rows", 500):
            print(df.round(3).to_string(index=False))
        print(f"-> {path}", flush=True)


if __name__ == "__main__":
    main()

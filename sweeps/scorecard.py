"""The scorecard: every seed paper's headline claims, the paper's value beside dnnmem's.

Each seed folder's ``sweeps/<seed>/claims.py`` (``claims(tables) -> list[Claim]``,
sweeps/_claims.py) reads dnnmem's values from the seed's saved tables (``tests/data/seeds/<seed>/``,
the results its page shows); this script gathers them, one row per claim, and scores them: a
claim is *within* when its direction is right and dnnmem's value is within the tolerance of the
paper's (±15 % relative for ratios and speedups, ±25 % for percentages).

    python sweeps/scorecard.py              # print the table and the score
    python sweeps/scorecard.py --markdown   # also write it into docs/seeds/index.md
    python sweeps/scorecard.py --json       # a list of rows (claim, paper, dnnmem, tolerance, within, ...)

From Python: ``frame()`` is the same table as a DataFrame (``attrs["missing"]``: the seeds
without a ``claims.py`` yet). It reads saved tables only: seconds, no engine run.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # sweeps/: the shared _pages and _claims
import _claims  # noqa: E402
import _pages  # noqa: E402

#: The seed folders in the papers' order (001 … 004), and what the scorecard calls each paper.
SEEDS: dict[str, str] = {
    "interleaved": "Interleaved gradient order (MICRO 2023)",
    "cdma": "cDMA (HPCA 2018)",
    "mbs": "Mini-batch serialization (SysML 2019)",
    "onsram": "OnSRAM (ISPASS 2021)",
}
PAGE = _pages.PAGES_DIR / "index.md"
BLOCK = "scorecard"
#: The hypotheses column's legend: issue 28's options, each argued on its seed's page.
HYPOTHESES = (
    "*hypothesis*: the row is measured under an option of issue 28, argued on the seed's page "
    "(H2: the interleaved paper's simulator read from its text, GEMM-level accounting, FP32, "
    "§4.2's reuse window, im2col-expanded operands; H3: cDMA's sparsity per network, the "
    "activation maps without the input image; G1: cDMA's compute no faster than "
    "the GPU-memory rate its paper measured, §VI; M: cDMA's ratios as its paper counts them, "
    "ZVC's masks left out, §V-A; 4: OnSRAM's LRU and FIFO as hardware caches; O12: "
    "OnSRAM's 1-Step, LRU and FIFO in breadth-first node order; E6: "
    "OnSRAM-Eager Spec skipping a write-back only where it costs more than a re-execution); — "
    "the page's default "
    "configuration."
)
COLUMNS = [
    "seed", "claim", "where", "paper", "dnnmem", "unit", "kind", "tolerance", "relative_error",
    "within", "direction_right", "note", "hypotheses",
]  # fmt: skip


def claims_module(seed: str) -> ModuleType | None:
    """``sweeps/<seed>/claims.py`` imported under a name of its own (``claims_<seed>``), its
    folder on ``sys.path`` while it loads (it may import the folder's helper); None if the seed
    has none yet."""
    path = HERE / seed / "claims.py"
    if not path.exists():
        return None
    key = f"claims_{seed}"
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(key, None)
        raise
    finally:
        sys.path.remove(str(path.parent))
    return mod


def gather(seeds: list[str] | None = None) -> tuple[list[_claims.Claim], list[str]]:
    """Every claim of ``seeds`` (default: all four) from the saved tables, and the seeds that
    have no ``claims.py`` yet."""
    out: list[_claims.Claim] = []
    missing: list[str] = []
    for seed in seeds or list(SEEDS):
        mod = claims_module(seed)
        if mod is None:
            missing.append(seed)
            continue
        found = mod.claims(_pages.load_tables(seed))
        for c in found:
            if c.seed != seed:
                raise ValueError(f"sweeps/{seed}/claims.py: a claim of seed {c.seed!r}: {c.claim}")
            if not (math.isfinite(c.paper) and math.isfinite(c.dnnmem)):
                raise ValueError(f"sweeps/{seed}/claims.py: {c.claim!r} is not a finite number")
        out += found
    return out, missing


def frame(seeds: list[str] | None = None) -> pd.DataFrame:
    """The scorecard as a DataFrame: one row per claim (:data:`COLUMNS`); ``attrs["missing"]``
    lists the seeds without claims yet, ``attrs["score"]`` the fraction within."""
    found, missing = gather(seeds)
    df = pd.DataFrame([c.row() for c in found], columns=COLUMNS)
    df.attrs["missing"] = missing
    df.attrs["score"] = float(df["within"].mean()) if len(df) else math.nan
    return df


def _value(v: float, unit: str, signed: bool = False) -> str:
    """``v`` in ``unit``; ``signed``: a change, written with its sign (+ slower, − faster)."""
    if unit == "×":
        return _pages.times(v)
    if unit == "%":
        return _pages.pct(v, 1, sign=signed)
    return _pages.num(v, 1 if unit else 3, sign=signed) + (f" {unit}" if unit else "")


def _tolerance(kind: str) -> str:
    return f"±{round(100 * _claims.TOLERANCE[kind])} %"


def score_line(df: pd.DataFrame) -> str:
    """The score in words: claims within, directions right, per seed."""
    n, k = len(df), int(df["within"].sum())
    wrong = int((~df["direction_right"]).sum())
    per = ", ".join(
        f"{SEEDS[s].split(' (')[0]} {int(g['within'].sum())} of {len(g)}"
        for s, g in df.groupby("seed", sort=False)
    )
    line = (
        f"**Score: {k} of {n} claims within tolerance ({_pages.share(k / n if n else math.nan)}); "
        f"{n - wrong} of {n} directions right.** Per paper: {per}."
    )
    if df.attrs.get("missing"):
        line += (
            " Not scored yet (no `claims.py`): "
            + ", ".join(SEEDS[s] for s in df.attrs["missing"])
            + "."
        )
    return line


def markdown(df: pd.DataFrame) -> str:
    """The page's block: the score, then one table per paper."""
    out = [score_line(df), "", HYPOTHESES, ""]
    for seed, g in df.groupby("seed", sort=False):
        out.append(f"**{SEEDS[seed]}** ([page]({seed}.md))\n")
        rows = [
            (
                r.claim,
                r.where,
                _value(r.paper, r.unit, r.paper < 0),
                _value(r.dnnmem, r.unit, r.paper < 0),
                _tolerance(r.kind),
                "yes" if r.within else "no",
                "right" if r.direction_right else "**wrong**",
                r.hypotheses or "—",
            )
            for r in g.itertuples()
        ]
        out.append(
            _pages.table(
                [
                    "claim",
                    "where",
                    "paper",
                    "dnnmem",
                    "tolerance",
                    "within",
                    "direction",
                    "hypothesis",
                ],
                rows,
            )
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--markdown", action="store_true", help=f"write it into {PAGE.name}")
    g.add_argument("--json", action="store_true", help="print the rows as JSON")
    a = p.parse_args(argv)
    df = frame()
    if a.json:
        rows: list[dict[str, Any]] = json.loads(df.to_json(orient="records", force_ascii=False))
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        if df.attrs["missing"]:
            print(f"not scored yet: {', '.join(df.attrs['missing'])}", file=sys.stderr)
        return
    print(markdown(df))
    if a.markdown:
        text = PAGE.read_text(encoding="utf-8")
        _pages._write_text(PAGE, _pages.replace_blocks(text, {BLOCK: markdown(df)}, str(PAGE)))
        print(f"wrote the scorecard into {PAGE.relative_to(_pages.REPO)}")


if __name__ == "__main__":
    main()

"""What the seed folders' scripts share: the command line, the figure's file, and the tables
they write into their page.

Every script ``sweeps/<seed>/<script>.py`` (seed: cdma, mbs, onsram, interleaved) has
``NAME`` (its figure's file name, ``<seed>-<figure>-<what>``:
:func:`dnnmem.plots.style.figure_name`), ``compute(small=False) -> DataFrame`` and
``plot(df) -> Figure``. A script whose numbers are on ``docs/seeds/<seed>.md`` also has
``markdown(tables) -> dict[str, str]``: Markdown blocks by name, made from the seed's tables
(``tables`` holds every table of the seed's page by name: the script's own, by default one named
after the script from ``compute`` (``TABLES`` maps more names to functions of ``small``), and the
other scripts' as the page shows them). Each block sits on the page between ``<!-- generated: NAME begin -->`` and
``<!-- generated: NAME end -->``; nothing between the markers is written by hand.

    python sweeps/<seed>/<script>.py [--small] [--no-plot] [--markdown] [--cached]

``--markdown`` computes the full mode, writes each table to ``tests/data/seeds/<seed>/<table>.csv``
(the results the page shows; the tests compare the page with them, and them with what the
engine computes) and its blocks into the page. With ``--small`` it only prints the blocks: a
quick mode never writes into ``docs/`` or ``tests/data/``. ``--cached`` reads the tables from
``tests/data/seeds/`` instead of computing them (the figure, or with ``--markdown`` the page, in
seconds).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from dnnmem.plots.style import figure_name  # noqa: F401  (the scripts' NAME follows it)

REPO = Path(__file__).resolve().parents[1]
FIGURES_DIR = REPO / "figures"
PAGES_DIR = REPO / "docs" / "seeds"
CACHE_DIR = REPO / "tests" / "data" / "seeds"

_BLOCK = re.compile(
    r"<!-- generated: (?P<name>[\w.:-]+) begin -->\n(?P<body>.*?)<!-- generated: (?P=name) end -->",
    re.S,
)


# -- Markdown --------------------------------------------------------------------------------
MINUS = "−"  # the pages write negative numbers with a minus sign, not a hyphen


def _finite(x: Any) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def num(x: Any, digits: int = 2, sign: bool = False) -> str:
    """``x`` with ``digits`` decimals (``—`` if missing); a minus sign for negatives, a plus
    for positives with ``sign``."""
    if not _finite(x):
        return "—"
    v = round(float(x), digits)
    text = f"{abs(v):,.{digits}f}"
    if v < 0:
        return MINUS + text
    return ("+" + text) if sign and v > 0 else text


def pct(x: Any, digits: int = 1, sign: bool = False) -> str:
    """A percentage already in % (``12.3 %``); see :func:`num`."""
    return "—" if not _finite(x) else f"{num(x, digits, sign)} %"


def share(x: Any, digits: int = 1, sign: bool = False) -> str:
    """A fraction as a percentage: ``share(0.123)`` → ``12.3 %``."""
    return "—" if not _finite(x) else pct(100 * float(x), digits, sign)


def times(x: Any, digits: int = 2) -> str:
    """A ratio or speedup: ``1.47×``."""
    return "—" if not _finite(x) else f"{num(x, digits)}×"


def gb(x: Any, digits: int = 2) -> str:
    """Bytes in GB: ``11.35 GB``."""
    return "—" if not _finite(x) else f"{num(float(x) / 1e9, digits)} GB"


def joined(values: Iterable[str], sep: str = " / ") -> str:
    return sep.join(values)


def table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A Markdown table (cells as given; ``|`` in a cell escaped)."""

    def cell(c: Any) -> str:
        return str(c).replace("|", "\\|")

    out = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def read_blocks(text: str) -> dict[str, str]:
    """The generated blocks of a page, by name."""
    return {m["name"]: m["body"] for m in _BLOCK.finditer(text)}


def replace_blocks(text: str, blocks: dict[str, str], page: str = "the page") -> str:
    """``text`` with each named block's body replaced; a block without its markers on the page
    is an error naming it (add the two marker lines where it belongs)."""
    missing = [n for n in blocks if f"<!-- generated: {n} begin -->" not in text]
    if missing:
        raise ValueError(
            f"{page}: no markers for the block(s) {missing}; add "
            f"'<!-- generated: NAME begin -->' and '<!-- generated: NAME end -->' lines"
        )

    def sub(m: re.Match[str]) -> str:
        name = m["name"]
        if name not in blocks:
            return m.group(0)
        body = blocks[name] if blocks[name].endswith("\n") else blocks[name] + "\n"
        return f"<!-- generated: {name} begin -->\n{body}<!-- generated: {name} end -->"

    return _BLOCK.sub(sub, text)


def _write_text(path: Path, text: str) -> None:
    """Write through a temporary file renamed over ``path`` (never a half-written file)."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# -- the cached tables -----------------------------------------------------------------------
def cache_path(seed: str, table_name: str) -> Path:
    return CACHE_DIR / seed / f"{table_name}.csv"


def save_table(df: pd.DataFrame, path: Path) -> None:
    """A table as CSV, floats at full precision (read back bit for bit by :func:`load_table`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_text(path, df.to_csv(index=False, lineterminator="\n"))


def normalised(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as :func:`load_table` reads it back: empty strings and None are missing values,
    the index is 0 … n − 1."""
    out = df.reset_index(drop=True).copy()
    for c in out.columns:
        if pd.api.types.is_object_dtype(out[c]) or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].map(lambda v: math.nan if v is None or v == "" else v)
    return out


def load_table(path: Path) -> pd.DataFrame:
    """A table written by :func:`save_table` (missing values are empty cells)."""
    # pandas 3 reads floats back bit for bit by default (and deprecates asking for it).
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    return pd.read_csv(path, keep_default_na=False, na_values=[""], **exact)


def tables_of(script: ModuleType) -> dict[str, Callable[[bool], pd.DataFrame]]:
    """The functions of ``small`` that make a script's tables, by table name: its ``TABLES``,
    or its ``compute`` named after the script."""
    own = getattr(script, "TABLES", None)
    if own:
        return dict(own)
    return {Path(script.__file__).stem: lambda small: script.compute(small=small)}


def load_tables(seed: str, script: ModuleType | None = None) -> dict[str, pd.DataFrame]:
    """A script's tables as the page shows them (``tests/data/seeds/<seed>/``); every table of
    the seed's page when ``script`` is None."""
    if script is None:
        return {f.stem: load_table(f) for f in sorted((CACHE_DIR / seed).glob("*.csv"))}
    return {n: load_table(cache_path(seed, n)) for n in tables_of(script)}


# -- the command line ------------------------------------------------------------------------
def use_agg() -> None:
    import matplotlib

    matplotlib.use("Agg")


@dataclass(frozen=True)
class PageChoice:
    """A choice a seed's script offers on its command line, the page's reading first.

    ``--NAME`` picks one of ``choices``; a callable the script passes under NAME gets it before
    anything is computed. The page and its saved tables keep ``choices[0]``: another choice with
    ``--markdown`` or ``--cached`` is an error (``refused``), and its figure gets
    ``_NAME_CHOICE`` as a suffix."""

    choices: tuple[str, ...]
    help: str
    refused: str


PAGE_CHOICES: dict[str, PageChoice] = {
    "fusion": PageChoice(
        ("none", "pointwise", "accelerator"),
        "fusion level of every policy (docs/model/fusion.md)",
        "--fusion: the page and its data keep fusion none (sweeps/fusion_seeds.py)",
    ),
    "batchnorm": PageChoice(
        ("fold", "keep"),
        "batch norms folded into their convolutions (the page) or kept as layers of their own "
        "(Network.fold_batchnorm)",
        "--batchnorm keep: the page and its data fold batch norms",
    ),
    "order": PageChoice(
        ("bfs", "thesis"),
        "node order of the policies other than OnSRAM-Static: breadth-first (the page) or the "
        "thesis's depth-first (rule O12)",
        "--order thesis: the page and its data run the other policies breadth-first",
    ),
    "resnext": PageChoice(
        ("keras", "torchvision"),
        "the ResNeXt-50 of the paper's ResNeXt: Keras' (grouped convolutions as depthwise ones "
        "and a sum; the page) or torchvision's",
        "--resnext torchvision: the page and its data run Keras' ResNeXt-50",
    ),
    "googlenet": PageChoice(
        ("tf", "caffe"),
        "the paper's GoogLeNet: TF-slim's inception_v1 (batch norms, no LRN; the page) or "
        "Caffe's bvlc_googlenet (LRN, 5x5 branches)",
        "--googlenet caffe: the page and its data run TF-slim's GoogLeNet",
    ),
}


def main(
    seed: str,
    script: ModuleType,
    argv: Sequence[str] | None = None,
    tilers: Sequence[str] | None = None,
    fusion: Callable[[str], None] | None = None,
    batchnorm: Callable[[str], None] | None = None,
    order: Callable[[str], None] | None = None,
    resnext: Callable[[str], None] | None = None,
    googlenet: Callable[[str], None] | None = None,
) -> None:
    """The command line of a seed's script (see the module's docstring). ``tilers``: the
    script takes ``--tiler`` (the interleaved ladder) with these choices, the first the
    default; the figure of another tiler gets its name as a suffix. ``fusion``,
    ``batchnorm``, ``order``, ``resnext``, ``googlenet``: the script takes that option of
    :data:`PAGE_CHOICES` (``--fusion``: docs/model/fusion.md; ``--batchnorm fold | keep``: its
    page's inference graph, ``Network.fold_batchnorm``; ``--order bfs | thesis``: the node
    order of the policies other than OnSRAM-Static, docs/model/onsram.md rule O12;
    ``--resnext keras | torchvision``: which ResNeXt-50 stands for OnSRAM's ResNeXt;
    ``--googlenet tf | caffe``: which GoogLeNet stands for OnSRAM's), and the
    callable gets the choice before anything is computed; the page keeps the first choice."""
    offered = {
        option: setter
        for option, setter in (
            ("fusion", fusion),
            ("batchnorm", batchnorm),
            ("order", order),
            ("resnext", resnext),
            ("googlenet", googlenet),
        )
        if setter is not None
    }
    name = Path(script.__file__).stem
    p = argparse.ArgumentParser(description=(script.__doc__ or name).strip().splitlines()[0])
    p.add_argument("--small", action="store_true", help="the CI mode: fewer points (seconds)")
    p.add_argument("--no-plot", action="store_true", help="print the table only")
    p.add_argument(
        "--markdown",
        action="store_true",
        help=f"write the page's tables (docs/seeds/{seed}.md) and their data "
        f"(tests/data/seeds/{seed}/); with --small, print them only",
    )
    p.add_argument(
        "--cached",
        action="store_true",
        help=f"read the full mode's tables from tests/data/seeds/{seed}/ instead of computing",
    )
    if tilers:
        p.add_argument("--tiler", choices=list(tilers), default=tilers[0],
                       help=f"the baseline tiler of every rung (default: {tilers[0]})")  # fmt: skip
    for option in offered:
        choice = PAGE_CHOICES[option]
        p.add_argument(f"--{option}", choices=choice.choices, default=choice.choices[0],
                       help=choice.help)  # fmt: skip
    a = p.parse_args(argv)
    if a.cached and a.small:
        p.error("--cached reads the full mode's tables: leave out --small")
    picked = {option: getattr(a, option) for option in offered}
    for option, value in picked.items():
        if value != PAGE_CHOICES[option].choices[0] and (a.markdown or a.cached):
            p.error(PAGE_CHOICES[option].refused)
    for option, value in picked.items():
        offered[option](value)
    tiler = getattr(a, "tiler", None)
    suffix = f"_{tiler}" if tilers and tiler != tilers[0] else ""
    figure_suffix = suffix + "".join(
        f"_{option}_{value}"
        for option, value in picked.items()
        if value != PAGE_CHOICES[option].choices[0]
    )
    shown = name + suffix  # the table printed and drawn
    makers = tables_of(script)
    t0 = time.perf_counter()
    if a.cached:
        frames = load_tables(seed, script)
    elif a.markdown and not a.small:
        for n, make in makers.items():
            save_table(make(False), cache_path(seed, n))
        frames = load_tables(seed, script)  # what the page shows: the tables as read back
    elif a.markdown:
        frames = {n: make(True) for n, make in makers.items()}
    else:
        frames = {shown: makers[shown](a.small)}
    main_df = frames[shown]
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(main_df.to_string(index=False))
    if a.markdown and not hasattr(script, "markdown"):
        print(f"{name}: no block of its own on docs/seeds/{seed}.md; its tables are in another "
              f"script's: rerun that one with --markdown --cached")  # fmt: skip
    elif a.markdown:
        every = load_tables(seed)  # the other scripts' tables, as the page shows them
        blocks = script.markdown({**every, **frames})
        if a.small:
            for block, body in blocks.items():
                print(f"\n<!-- generated: {block} (--small: not written) -->\n{body}")
        else:
            page = PAGES_DIR / f"{seed}.md"
            _write_text(page, replace_blocks(page.read_text(encoding="utf-8"), blocks, str(page)))
            print(f"wrote {len(blocks)} block(s) of {page.relative_to(REPO)}")
    if not a.no_plot:
        use_agg()
        FIGURES_DIR.mkdir(exist_ok=True)
        path = FIGURES_DIR / f"{script.NAME}{figure_suffix}.png"
        script.plot(main_df).savefig(path, dpi=110)
        print(f"wrote {path.relative_to(REPO)} ({time.perf_counter() - t0:.1f} s)")

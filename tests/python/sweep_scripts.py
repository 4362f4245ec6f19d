"""Running a seed's figure scripts (sweeps/<folder>/) in their --small mode, and comparing what
they compute with the full mode's tables that their page shows (tests/data/seeds/<folder>/)."""

from __future__ import annotations

import importlib.util
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

SWEEPS = Path(__file__).resolve().parents[2] / "sweeps"
#: The rows of a script's table that summarise others (means over networks): a small mode's
#: differ from the full mode's by construction.
SUMMARY_ROWS = {"average", "geomean", "GeoMean", "held-out", "80/20 layers"}


def import_script(folder: str, name: str) -> Any:
    """The module of ``sweeps/<folder>/<name>.py``, imported under a name of its own
    (``seed_<folder>_<name>``: two folders have a ``beyond_lookahead``). The scripts import
    their folder's helper module by its bare name, so the folder is on ``sys.path`` while the
    script is imported."""
    key = f"seed_{folder}_{name}"
    if key in sys.modules:
        return sys.modules[key]
    path = SWEEPS / folder
    spec = importlib.util.spec_from_file_location(key, path / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path))
    try:
        sys.modules[key] = mod
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(key, None)
        raise
    finally:
        sys.path.remove(str(path))
    return mod


#: Files of a seed folder that are not figure scripts.
NOT_FIGURE_SCRIPTS = ("claims",)


def scripts(folder: str) -> dict[str, ModuleType]:
    """Every figure script of ``sweeps/<folder>/`` (its files not starting with ``_``), by name;
    ``claims.py`` (the seed's scorecard rows, sweeps/scorecard.py) is not a figure script."""
    return {
        p.stem: import_script(folder, p.stem)
        for p in sorted((SWEEPS / folder).glob("*.py"))
        if not p.name.startswith("_") and p.stem not in NOT_FIGURE_SCRIPTS
    }


def pages() -> Any:
    """``sweeps/_pages.py``, the seed scripts' shared command line and page writer (the module
    the scripts' helpers import)."""
    if str(SWEEPS) not in sys.path:
        sys.path.append(str(SWEEPS))
    return importlib.import_module("_pages")


def run_small(folder: str, names: list[str]) -> dict[str, Any]:
    """Each script's ``compute(small=True)`` result by name, its ``plot`` drawn and closed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = {}
    for name in names:
        mod = import_script(folder, name)
        df = mod.compute(small=True)
        plt.close(mod.plot(df))
        out[name] = df
    return out


def assert_matches_cache(
    folder: str,
    table: str,
    df: Any,
    keys: Sequence[str],
    *,
    columns: Sequence[str] | None = None,
    rtol: float = 1e-9,
) -> int:
    """Every row of ``df`` (a small mode's, or a spot check's) whose ``keys`` are a row of the
    cached full-mode table ``tests/data/seeds/<folder>/<table>.csv`` has that row's values in
    every column both have (or in ``columns``): the page's numbers are what the engine computes
    today. Summary rows (means over networks) are left out. Returns the rows compared (at least
    one)."""
    import numpy as np

    p = pages()
    cache = p.load_table(p.cache_path(folder, table))
    small = p.normalised(df)
    if "network" in keys:
        small = small[~small["network"].isin(SUMMARY_ROWS)]
    both = small.merge(cache, on=list(keys), suffixes=("", "__cached"))
    assert len(both), f"{folder}/{table}: no row of the small mode is in the full mode's table"
    shared = [c for c in small.columns if c not in keys and c in cache.columns]
    for c in columns if columns is not None else shared:
        a, b = both[c], both[f"{c}__cached"]
        if a.dtype.kind in "iufb" and b.dtype.kind in "iufb":
            x, y = a.to_numpy(float), b.to_numpy(float)
            same = np.isclose(x, y, rtol=rtol, atol=0) | (np.isnan(x) & np.isnan(y))
        else:
            same = np.array(
                [
                    (u == v)
                    or (
                        isinstance(u, float)
                        and isinstance(v, float)
                        and math.isnan(u)
                        and math.isnan(v)
                    )
                    for u, v in zip(a, b)
                ]
            )
        bad = both.loc[~same, list(keys)]
        assert same.all(), (
            f"{folder}/{table}.csv: column {c!r} differs from what the engine computes at "
            f"{bad.head(3).to_dict('records')}; rerun python sweeps/{folder}/<script>.py "
            f"--markdown"
        )
    return len(both)

"""Running a seed's figure scripts (sweeps/<folder>/) in their --small mode, for the tests."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

SWEEPS = Path(__file__).resolve().parents[2] / "sweeps"


def import_script(folder: str, name: str) -> Any:
    """The module of ``sweeps/<folder>/<name>.py``; the scripts import their folder's helper
    module by its bare name, so the folder is on ``sys.path`` only while it is imported."""
    path = str(SWEEPS / folder)
    sys.path.insert(0, path)
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(path)


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

"""Modules imported when first used, so that ``import dnnmem`` stays light.

pandas alone takes about 0.2 s to import, most of a one-point command's run; the modules that
need it (and NumPy) name it at the top as usual, under ``TYPE_CHECKING`` for the type checker,
and bind the name to a :class:`LazyModule` at run time::

    if TYPE_CHECKING:
        import pandas as pd
    else:
        pd = LazyModule("pandas")
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

__all__ = ["LazyModule", "is_integer"]


class LazyModule(types.ModuleType):
    """Stands for the module ``name``: the first attribute read imports it, every read is
    forwarded to it (``pd.DataFrame``, ``isinstance(x, pd.DataFrame)``, ``np.asarray``)."""

    def __getattr__(self, attr: str) -> Any:
        # Called only for names not in this object's dict: once imported, the module's names
        # are copied in, so later reads are plain attribute look-ups (a sweep reads `np.` a few
        # thousand times; through import_module each cost ~3 µs). Names the module defines
        # later (its own lazy submodules) still come through here.
        module = importlib.import_module(self.__name__)
        self.__dict__.update(
            (k, v) for k, v in vars(module).items() if k not in ("__name__", "__doc__")
        )
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__name__!r}>"


def is_integer(x: object) -> bool:
    """``isinstance(x, (int, numpy.integer))`` without importing NumPy: a NumPy integer exists
    only once NumPy is imported. ``bool`` counts, as for isinstance."""
    if isinstance(x, int):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(x, numpy.integer)

"""Optional packages: check for them before the work that needs them, and say which extra
installs them.

dnnmem's optional parts are extras of its ``pyproject.toml`` (``plot``, ``parquet``, ``cluster``,
``keras``, ``onnx``, ``torch``, ``notebook``). A command that needs one checks with
:func:`require` first, so that a sweep does not run for minutes and then die for want of
pyarrow, and the error names what to install.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["MissingDependency", "require", "install_hint", "EXTRAS"]

#: Top-level module → the extra of dnnmem that installs it.
EXTRAS = {
    "matplotlib": "plot",
    "pyarrow": "parquet",
    "fastparquet": "parquet",
    "dask": "cluster",
    "distributed": "cluster",
    "dask_jobqueue": "cluster",
    "keras": "keras",
    "onnx": "onnx",
    "torch": "torch",
    "nbclient": "notebook",
    "nbformat": "notebook",
    "highspy": "optimal",
}


class MissingDependency(ImportError):
    """An optional package dnnmem needs for this call is not installed; the message says what
    to install."""


def install_hint(module: str) -> str:
    """How to install ``module``: the pip command and, when there is one, dnnmem's extra."""
    top = module.split(".")[0]
    package = {"distributed": "dask[distributed]", "dask_jobqueue": "dask-jobqueue"}.get(top, top)
    extra = EXTRAS.get(top)
    if extra is None:
        return f"pip install {package}"
    # dnnmem is installed from a clone, not from a package index: name both commands.
    return (
        f'pip install {package}, or dnnmem\'s "{extra}" extra: pip install ".[{extra}]" '
        f"in a dnnmem clone"
    )


def _available(module: str) -> bool:
    if sys.modules.get(module, False) is None:  # blocked (tests set sys.modules[name] = None)
        return False
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def require(module: str, purpose: str, *alternatives: str) -> None:
    """Raise :class:`MissingDependency` unless ``module`` (or one of ``alternatives``) can be
    imported; ``purpose`` says what needs it ("writing Parquet files")."""
    if any(_available(m) for m in (module, *alternatives)):
        return
    raise MissingDependency(
        f"{purpose} needs the package {module!r}, which is not installed: {install_hint(module)}",
        name=module,
    )

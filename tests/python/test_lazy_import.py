"""``import dnnmem`` leaves pandas and NumPy unimported until a function needs them (a one-point
command then starts in a fraction of the time), and the stand-in modules behave as the real ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dnnmem
from dnnmem._lazy import LazyModule, is_integer


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_import_dnnmem_does_not_import_pandas_or_numpy():
    code = (
        "import sys, dnnmem\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib', 'yaml', 'dask') "
        "if m in sys.modules))\n"
        "print(sorted(m for m in sys.modules if m.startswith('dnnmem')))"
    )
    assert _run(code).splitlines() == ["[]", "['dnnmem', 'dnnmem._core']"]


def test_a_one_point_command_imports_neither_pandas_nor_matplotlib():
    # The printed result has the joules (docs/model/energy.md), which read the schedule's access
    # and step tables: NumPy arrays from the core, so NumPy is imported (a tenth of pandas's
    # import time); pandas, matplotlib and the sweep are not.
    code = (
        "import sys, io, contextlib\n"
        "from dnnmem.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main(['estimate', '--network', 'resnet50', '--batch', '32', '--capacity', '128MiB'])\n"
        "print('time' in out.getvalue())\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib', 'dnnmem.sweep', "
        "'dnnmem.plots', 'dnnmem.zoo.gnmt') if m in sys.modules))"
    )
    assert _run(code).splitlines() == ["True", "['numpy']"]


def test_every_name_of_the_api_is_there_on_first_read():
    # In a fresh process each time: what a read imports depends on what came before.
    code = (
        "import types, dnnmem\n"
        "print(set(dnnmem.__all__) <= set(dir(dnnmem)))\n"
        "print(all(getattr(dnnmem, n) is not None for n in dnnmem.__all__))\n"
        "print(isinstance(dnnmem.plots, types.ModuleType), callable(dnnmem.zoo.resnet50))"
    )
    assert _run(code).splitlines() == ["True", "True", "True True"]
    # A submodule named as a function of the API (estimate, sweep, network, hardware, pareto),
    # imported before the function is read, does not take the function's place.
    code = (
        "import dnnmem.sweep, dnnmem.network, dnnmem.hardware, dnnmem.pareto, dnnmem.plots\n"
        "import dnnmem\n"
        "from dnnmem.sweep import sweep\n"
        "print(dnnmem.sweep is sweep, dnnmem.estimate.__module__, dnnmem.network.__module__,\n"
        "      dnnmem.hardware.__module__, dnnmem.pareto.__module__)\n"
        "print(dnnmem.network('resnet50', batch=2).batch, dnnmem.zoo.gnmt.__module__)"
    )
    assert _run(code).splitlines() == [
        "True dnnmem.estimate dnnmem.zoo dnnmem.presets dnnmem.pareto",
        "2 dnnmem.zoo.gnmt",
    ]
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        dnnmem.nope  # noqa: B018


def test_lazy_module_forwards_to_the_module():
    pd = LazyModule("pandas")
    df = pd.DataFrame({"a": [1, 2]})
    assert isinstance(df, pd.DataFrame) and pd.DataFrame is sys.modules["pandas"].DataFrame
    assert repr(LazyModule("json")) == "<lazy module 'json'>"
    assert LazyModule("json").dumps([1]) == "[1]"


def test_is_integer_without_numpy_imported():
    np = pytest.importorskip("numpy")
    assert is_integer(3) and is_integer(True) and is_integer(np.int64(3))
    assert not is_integer(3.0) and not is_integer("3") and not is_integer(np.float64(3))


def test_dir_lists_the_api_and_nothing_of_the_package_s_own_plumbing():
    """Issue 26: dir(dnnmem) listed Any, TYPE_CHECKING, annotations, importlib, sys, types (and
    private modules once imported). Now the API (__all__) and the submodules an attribute read
    reaches, each of which resolves."""
    code = (
        "import types, dnnmem, dnnmem.sweep_spec, dnnmem._files\n"
        "names = dir(dnnmem)\n"
        "print(names == sorted(set(dnnmem.__all__) | dnnmem._SUBMODULES))\n"
        "print(sorted(set(names) & {'Any', 'TYPE_CHECKING', 'annotations', 'importlib', 'sys',"
        " 'types', 'sweep_spec', '_files', '_core'}))\n"
        "print(all(getattr(dnnmem, n) is not None for n in names))"
    )
    assert _run(code).splitlines() == ["True", "[]", "True"]

"""``import dnnmem`` leaves pandas and NumPy unimported until a function needs them (a one-point
command then starts in a fraction of the time), and the stand-in modules behave as the real ones."""

from __future__ import annotations

import subprocess
import sys

from dnnmem._lazy import LazyModule


def test_import_dnnmem_does_not_import_pandas_or_numpy():
    code = (
        "import sys, dnnmem\n"
        "print(sorted(m for m in ('pandas', 'numpy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_module_forwards_to_the_module():
    pd = LazyModule("pandas")
    df = pd.DataFrame({"a": [1, 2]})
    assert isinstance(df, pd.DataFrame) and pd.DataFrame is sys.modules["pandas"].DataFrame
    assert repr(LazyModule("json")) == "<lazy module 'json'>"
    assert LazyModule("json").dumps([1]) == "[1]"

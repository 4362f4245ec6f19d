"""python/dnnmem/_core.pyi against the compiled module: names, read-only attributes, signatures.

Two checks: mypy.stubtest (every public name on both sides, properties read-only where the
module's are), and, because pybind11 functions carry no ``__text_signature__`` for stubtest to
compare, each stub signature against the one pybind11 writes on the first line of the
docstring: the same parameters, in the same order, with the same defaults.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import pathlib
import subprocess
import sys
from typing import Any

import pytest

import dnnmem
from dnnmem import _core

ROOT = pathlib.Path(__file__).resolve().parents[2]
STUB = pathlib.Path(dnnmem.__file__).resolve().parent / "_core.pyi"


def _params(fn: ast.FunctionDef) -> list[tuple[str, Any]]:
    """(name, default) of each parameter but ``self``; the default is ``...`` when none."""
    args = fn.args.posonlyargs + fn.args.args
    defaults: list[Any] = [...] * (len(args) - len(fn.args.defaults))
    defaults += [ast.literal_eval(d) for d in fn.args.defaults]
    out = [(a.arg, d) for a, d in zip(args, defaults) if a.arg != "self"]
    out += [
        (a.arg, ... if d is None else ast.literal_eval(d))
        for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults)
    ]
    return out


def _stub_functions() -> dict[str, list[ast.FunctionDef]]:
    """Qualified name (``f`` or ``Class.f``) → definitions (several for an overloaded
    function, in order), for the stub's plain functions."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    out: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list
                ):
                    out.setdefault(f"{node.name}.{item.name}", []).append(item)
    return out


def _runtime_signatures(qualname: str) -> list[ast.FunctionDef]:
    """The signatures pybind11 wrote in the docstring, parsed as ``def``s: its first line, or,
    for an overloaded function, each "N. name(...)" line in order."""
    obj: Any = _core
    for part in qualname.split("."):
        obj = getattr(obj, part)
    lines = (obj.__doc__ or "").splitlines()
    name = qualname.split(".")[-1]
    assert lines[0].startswith(name + "("), (qualname, lines[0])
    if lines[0] == f"{name}(*args, **kwargs)":  # "Overloaded function." then "1. name(...)"
        sigs = [line.split(". ", 1)[1] for line in lines if line[:1].isdigit() and ". " in line]
    else:
        sigs = [lines[0]]
    # pybind11 writes C++ type names for argument types it cannot name in Python; only the
    # names and defaults are compared, so drop the annotations' text after ':' up to , or ).
    return [ast.parse(f"def {_strip_cxx(sig)}: ...").body[0] for sig in sigs]  # type: ignore[misc]


def _strip_cxx(sig: str) -> str:
    """`dnnmem::PreparedPolicy` (not valid Python) becomes `Any`."""
    return sig.replace("::", "_")


STUB_FUNCTIONS = _stub_functions()


def test_the_stub_lists_functions() -> None:
    assert {"estimate", "sweep", "build_schedule", "Schedule.total_ops"} <= set(STUB_FUNCTIONS)


@pytest.mark.parametrize("qualname", sorted(STUB_FUNCTIONS))
def test_stub_signature_equals_the_module(qualname: str) -> None:
    stub = [_params(f) for f in STUB_FUNCTIONS[qualname]]
    runtime = [_params(f) for f in _runtime_signatures(qualname)]
    assert stub == runtime


def test_every_public_name_of_the_module_is_in_the_stub() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {
        n.target.id
        for n in tree.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    public = {n for n in vars(_core) if not n.startswith("_")} | {"__version__"}
    assert public == names


def test_mypy_stubtest() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    env = dict(os.environ)
    if STUB.parent.parent == ROOT / "python":  # run from the source tree (PYTHONPATH=python)
        env["MYPYPATH"] = str(ROOT / "python")  # installed: mypy finds it in site-packages
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "dnnmem._core",
            "--concise",
            "--allowlist",
            str(ROOT / "tests" / "stubtest_allowlist.txt"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr

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


def _stub_functions() -> dict[str, ast.FunctionDef]:
    """Qualified name (``f`` or ``Class.f``) → definition, for the stub's plain functions."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    out: dict[str, ast.FunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not any(
                    isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list
                ):
                    out[f"{node.name}.{item.name}"] = item
    return out


def _runtime_signature(qualname: str) -> ast.FunctionDef:
    """The signature pybind11 wrote as the docstring's first line, parsed as a ``def``."""
    obj: Any = _core
    for part in qualname.split("."):
        obj = getattr(obj, part)
    first = (obj.__doc__ or "").splitlines()[0]
    assert first.startswith(qualname.split(".")[-1] + "("), (qualname, first)
    return ast.parse(f"def {first}: ...").body[0]  # type: ignore[return-value]


STUB_FUNCTIONS = _stub_functions()


def test_the_stub_lists_functions() -> None:
    assert {"estimate", "sweep", "build_schedule", "Schedule.total_ops"} <= set(STUB_FUNCTIONS)


@pytest.mark.parametrize("qualname", sorted(STUB_FUNCTIONS))
def test_stub_signature_equals_the_module(qualname: str) -> None:
    stub = _params(STUB_FUNCTIONS[qualname])
    runtime = _params(_runtime_signature(qualname))
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

"""One version everywhere, the compiled core's flags, and the public API's documentation."""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import pathlib
import re

import pytest

import dnnmem

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cmake_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    m = re.search(r"project\(dnnmem VERSION ([0-9]+\.[0-9]+\.[0-9]+)", text)
    assert m, "CMakeLists.txt has no 'project(dnnmem VERSION x.y.z'"
    return m.group(1)


def test_version_is_one_everywhere():
    v = _cmake_version()
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", v)
    assert dnnmem.__version__ == v
    assert dnnmem._core.__version__ == v
    assert importlib.metadata.version("dnnmem") == v


def test_version_is_a_str():
    assert type(dnnmem.__version__) is str
    assert type(dnnmem._core.__version__) is str


def test_cli_version(capsys):
    from dnnmem.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"dnnmem {_cmake_version()}\n"


def test_openmp_enabled_is_a_bool():
    flag = dnnmem._core.openmp_enabled()
    assert type(flag) is bool
    assert dnnmem._core.openmp_enabled() is flag  # a build property: stable
    assert dnnmem._core.openmp_enabled.__doc__


def test_all_names_exist():
    assert len(dnnmem.__all__) == len(set(dnnmem.__all__))
    assert "load_network" in dnnmem.__all__ and "NetworkError" in dnnmem.__all__
    for name in dnnmem.__all__:
        assert hasattr(dnnmem, name), name


def test_star_import_gives_all():
    namespace: dict = {}
    exec("from dnnmem import *", namespace)  # noqa: S102
    assert set(dnnmem.__all__) <= set(namespace)


PUBLIC_CALLABLES = [n for n in dnnmem.__all__ if callable(getattr(dnnmem, n))]


def test_there_are_public_callables():
    assert {"load_network", "parse_bytes", "format_time", "Network"} <= set(PUBLIC_CALLABLES)


@pytest.mark.parametrize("name", PUBLIC_CALLABLES)
def test_public_callables_have_docstrings(name):
    obj = getattr(dnnmem, name)
    # its own, not one inherited from a base class
    doc = vars(obj).get("__doc__") if isinstance(obj, type) else obj.__doc__
    assert doc and len(doc.strip()) >= 10, name


def test_network_error_docstring_names_its_attributes():
    doc = vars(dnnmem.NetworkError)["__doc__"]
    assert doc != ValueError.__doc__
    for attr in ("source", "layer", "field", "detail"):
        assert attr in doc, attr


@pytest.mark.parametrize("cls", [dnnmem.Network, dnnmem.Flops], ids=lambda c: c.__name__)
def test_public_members_of_public_classes_have_docstrings(cls):
    checked, missing = [], []
    for attr, value in vars(cls).items():
        if attr.startswith("_"):
            continue
        if isinstance(value, property):
            value = value.fget
        elif not (inspect.isfunction(value) or isinstance(value, functools.cached_property)):
            continue  # plain class attributes
        checked.append(attr)
        if not inspect.getdoc(value):
            missing.append(attr)
    assert checked, cls
    assert missing == []


def test_network_error_documents_its_attributes():
    doc = inspect.getdoc(dnnmem.load_network)
    assert "NetworkError" in doc and "ValueError" in doc

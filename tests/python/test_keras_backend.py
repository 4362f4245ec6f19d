"""Keras without a configured backend: dnnmem picks an installed one, or says what to install."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from dnnmem.importers import keras as kimp


@pytest.fixture
def keras_home(monkeypatch, tmp_path):
    """No KERAS_BACKEND and an empty KERAS_HOME (no keras.json), as on a new machine."""
    monkeypatch.delenv("KERAS_BACKEND", raising=False)
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    return tmp_path


def _only_installed(monkeypatch, *modules: str) -> None:
    """Pretend that, of keras and the backends' modules, only ``modules`` are installed."""
    real = kimp.importlib.util.find_spec
    watched = {"keras", *kimp.KERAS_BACKENDS.values()}

    def find_spec(name, *args):
        if name in watched:
            return real("json") if name in modules else None  # any spec means "installed"
        return real(name, *args)

    monkeypatch.setattr(kimp.importlib.util, "find_spec", find_spec)


def test_configured_backend_reads_env_then_keras_json(keras_home, monkeypatch) -> None:
    assert kimp._configured_backend() is None
    (keras_home / "keras.json").write_text(json.dumps({"backend": "torch"}))
    assert kimp._configured_backend() == "torch"
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    assert kimp._configured_backend() == "jax"
    monkeypatch.delenv("KERAS_BACKEND")
    (keras_home / "keras.json").write_text("not json")
    assert kimp._configured_backend() is None


def test_without_keras_the_error_names_the_extra(keras_home, monkeypatch) -> None:
    _only_installed(monkeypatch, "torch")
    with pytest.raises(
        ImportError,
        match=r"needs Keras 3, which is not installed: "
        r'pip install "dnnmem\[keras\]"',
    ):
        kimp._backend_to_set()


def test_without_a_backend_the_error_names_what_to_install(keras_home, monkeypatch) -> None:
    _only_installed(monkeypatch, "keras")
    with pytest.raises(
        ImportError,
        match=r'none is installed: pip install "dnnmem\[keras\]" '
        r'.*pip install "jax\[cpu\]", torch or tensorflow-cpu',
    ):
        kimp._backend_to_set()


@pytest.mark.parametrize(
    ("installed", "keras_json", "expected"),
    [
        (("keras", "jaxlib", "torch", "tensorflow"), None, "jax"),  # the order of KERAS_BACKENDS
        (("keras", "torch", "tensorflow"), None, "torch"),
        (("keras", "tensorflow"), None, "tensorflow"),
        (("keras", "jaxlib", "tensorflow"), "tensorflow", None),  # keras.json's choice, installed
        (("keras", "jaxlib"), "tensorflow", "jax"),  # keras.json names a missing one: replaced
    ],
)
def test_the_backend_chosen(keras_home, monkeypatch, installed, keras_json, expected) -> None:
    if keras_json:
        (keras_home / "keras.json").write_text(json.dumps({"backend": keras_json}))
    _only_installed(monkeypatch, *installed)
    assert kimp._backend_to_set() == expected


def test_an_explicit_keras_backend_is_kept(keras_home, monkeypatch) -> None:
    monkeypatch.setenv("KERAS_BACKEND", "tensorflow")
    _only_installed(monkeypatch, "keras", "jaxlib")
    assert kimp._backend_to_set() is None  # Keras' own import then names the missing backend


def _run(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_keras_file_imports_in_a_fresh_process_without_configuration(tmp_path) -> None:
    """The end-to-end case of the issue: a saved model, no KERAS_BACKEND, no keras.json."""
    if kimp.importlib.util.find_spec("keras") is None:
        pytest.skip("keras is not installed")
    if not any(kimp._installed(b) for b in kimp.KERAS_BACKENDS):
        pytest.skip("no Keras backend installed (jax, torch or tensorflow)")
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env["KERAS_HOME"] = str(tmp_path / "keras-home")
    path = tmp_path / "tiny.keras"
    save = _run(
        f"""
        from dnnmem.importers.keras import import_keras
        keras = import_keras()
        m = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4, name="fc")], name="tiny")
        m.save({str(path)!r})
        print(keras.backend.backend())
        """,
        env,
    )
    assert save.returncode == 0, save.stderr
    first = next(b for b in kimp.KERAS_BACKENDS if kimp._installed(b))
    assert save.stdout.split() == [first]
    load = _run(
        f"""
        from dnnmem.importers import import_model
        net = import_model({str(path)!r}, batch=2)
        print(net.params)
        """,
        env,
    )
    assert load.returncode == 0, load.stderr
    assert load.stdout.split() == [str(8 * 4 + 4)]  # the dense layer's weights and bias

"""A build without OpenMP says so when a sweep would have used threads (pip hides CMake's warning)."""

from __future__ import annotations

import warnings

import pytest

import dnnmem

GRID = dict(network="resnet18", batch=2, capacity=["0MiB", "8MiB"], progress=False)


def test_no_openmp_build_warns_once_per_threaded_sweep(monkeypatch) -> None:
    monkeypatch.setattr(dnnmem._core, "openmp_enabled", lambda: False)
    with pytest.warns(RuntimeWarning, match="built without OpenMP: this sweep runs on one core"):
        df = dnnmem.sweep(**GRID, threads=2)
    assert len(df) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(dnnmem.sweep(**GRID)) == 2  # the default: as many as there are, say nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(dnnmem.sweep(**GRID, threads=1)) == 2  # one thread asked: nothing to say


def test_openmp_build_says_nothing() -> None:
    if not dnnmem._core.openmp_enabled():
        pytest.skip("this build has no OpenMP")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(dnnmem.sweep(**GRID, threads=2)) == 2

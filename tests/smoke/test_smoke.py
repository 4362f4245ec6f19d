"""Smoke tests of an installed dnnmem: what a wheel must pass before anyone uses it.

They need nothing but the package and pytest (cibuildwheel runs them on each wheel it builds,
``scripts/check_package.sh`` in a fresh virtual environment), so they import no test helper and
no optional package.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
import pathlib
import subprocess
import sys

import pytest

import dnnmem

PKG = pathlib.Path(dnnmem.__file__).resolve().parent


def _cli(*args: str) -> str:
    """Run the installed console script ``dnnmem`` (beside this Python), return its stdout."""
    exe = pathlib.Path(sys.executable).with_name("dnnmem.exe" if os.name == "nt" else "dnnmem")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "dnnmem"]
    done = subprocess.run([*cmd, *args], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_one_version_everywhere() -> None:
    meta = importlib.metadata.version("dnnmem")
    assert dnnmem.__version__ == dnnmem._core.__version__ == meta
    assert _cli("--version") == f"dnnmem {meta}\n"


def _is_editable_install() -> bool:
    """True for ``pip install -e .`` (PEP 610: direct_url.json says ``"editable": true``)."""
    text = importlib.metadata.distribution("dnnmem").read_text("direct_url.json") or "{}"
    return bool(json.loads(text).get("dir_info", {}).get("editable", False))


def test_the_wheel_holds_the_compiled_core_and_its_data() -> None:
    if _is_editable_install():
        # An editable install (README's developer set-up) keeps the compiled module in
        # site-packages by design; what a wheel holds is checked where a wheel is installed.
        pytest.skip("editable install: _core lives in site-packages, not beside the sources")
    assert pathlib.Path(dnnmem._core.__file__).resolve().parent == PKG
    for name in ("py.typed", "_core.pyi", "data/hardware.json"):
        assert (PKG / name).is_file(), name
    hw = dnnmem.hardware("rtx2080ti")  # read from data/hardware.json
    assert (hw.bandwidth, hw.throughput) == (616e9, 13.45e12)  # the thesis's Table 5.2


def test_an_estimate_obeys_the_roofline() -> None:
    hw = dnnmem.Hardware(capacity="8MiB", bandwidth="100GB/s", throughput="10TFLOPS")
    r = dnnmem.estimate("resnet18", hw, batch=2)
    assert r.flops > 0 and r.traffic_in > 0 and r.traffic_out > 0
    # Computing never overlaps itself, so the compute time is FLOPs / peak, and the iteration
    # can be neither faster than that nor than moving its traffic at the peak bandwidth.
    assert math.isclose(r.compute_time, r.flops / 10e12, rel_tol=1e-9)
    assert r.time >= r.compute_time
    assert r.time * 100e9 >= (r.traffic_in + r.traffic_out) * (1 - 1e-12)
    assert math.isclose(r.utilization, r.compute_time / r.time, rel_tol=1e-9)
    # An infinite cache (capacity above everything the iteration holds) moves each input,
    # weight and weight gradient once: strictly less traffic than 8 MiB.
    big = dnnmem.estimate("resnet18", hw, batch=2, capacity="64GiB")
    assert big.traffic_in + big.traffic_out < r.traffic_in + r.traffic_out


def test_a_threaded_sweep_equals_the_single_estimates() -> None:
    grid = dict(
        batch=2,
        capacity=["0MiB", "4MiB", "16MiB"],
        bandwidth="100GB/s",
        throughput="10TFLOPS",
        policy=["lookahead", "lru"],
        progress=False,
    )
    df1 = dnnmem.sweep("resnet18", threads=1, **grid)
    df2 = dnnmem.sweep("resnet18", threads=2, **grid)  # OpenMP where the build has it
    assert len(df1) == 6
    assert df1["time"].tolist() == df2["time"].tolist()
    for row in df1.itertuples():
        r = dnnmem.estimate(
            "resnet18",
            batch=2,
            capacity=row.capacity,
            bandwidth=row.bandwidth,
            throughput=row.throughput,
            policy=row.policy,
        )
        assert (row.time, row.traffic_in, row.traffic_out) == (r.time, r.traffic_in, r.traffic_out)


def test_the_cli_estimates() -> None:
    out = _cli(
        "estimate",
        "--network",
        "resnet18",
        "--batch",
        "2",
        "--capacity",
        "8MiB",
        "--bandwidth",
        "100GB/s",
        "--throughput",
        "10TFLOPS",
    )
    r = dnnmem.estimate(
        "resnet18", batch=2, capacity="8MiB", bandwidth="100GB/s", throughput="10TFLOPS"
    )
    assert "resnet18" in out
    assert dnnmem.format_time(r.time) in out


def test_bad_input_is_an_exception_not_a_crash() -> None:
    with pytest.raises(ValueError, match="layers"):
        dnnmem.load_network({"name": "empty", "layers": "not a list"})

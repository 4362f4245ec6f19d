"""Issue 19 ("hardening"): each finding of a hostile-user review, reproduced through the Python
API. Numbers 1–6 are the issue's. (Loading speed, finding 2, is measured by
benchmarks/bench_load.py, not asserted here: tests assert no timings.)"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dnnmem
from dnnmem import Hardware, NetworkError, _core, load_network, parse_bandwidth, parse_bytes
from dnnmem.importers import from_darknet
from dnnmem.units import parse_throughput

sweep_module = importlib.import_module("dnnmem.sweep")
network_module = importlib.import_module("dnnmem.network")

MiB = 2**20


def relus(shape: list[int], n: int) -> dict:
    layers = [{"name": "x", "kind": "input", "shape": shape}]
    layers += [
        {"name": f"r{i}", "kind": "relu", "inputs": [f"r{i - 1}" if i else "x"]} for i in range(n)
    ]
    return {"name": "chain", "layers": layers}


def dense_chain(units: int, n: int) -> dict:
    layers = [{"name": "x", "kind": "input", "shape": [units]}]
    layers += [
        {"name": f"d{i}", "kind": "dense", "units": units, "inputs": [f"d{i - 1}" if i else "x"]}
        for i in range(n)
    ]
    return {"layers": layers}


TINY = {
    "layers": [
        {"name": "x", "kind": "input", "shape": [16]},
        {"name": "d", "kind": "dense", "units": 8, "inputs": ["x"]},
        {"name": "r", "kind": "relu", "inputs": ["d"]},
        {"name": "o", "kind": "dense", "units": 4, "inputs": ["r"]},
    ]
}
TOP = 2.0**62  # the largest bandwidth / throughput


# -- 1: sums beyond 64 bits -----------------------------------------------------------------------


def test_wrapping_traffic_is_refused_naming_the_quantity() -> None:
    """The issue's example: before, time -5.0 s and traffic_in = -2^63."""
    net = load_network(relus([262144, 1048576], 5), batch=2**20, bytes_per_element=16)
    hw = Hardware(capacity=0, bandwidth=TOP, throughput=TOP)
    with pytest.raises(
        ValueError,
        match=r"at batch 1048576: the bytes of all tensor accesses "
        r".* more than 2\^58 bytes",
    ):
        dnnmem.estimate(net, hw, policy="none")


def test_occupancy_beyond_64_bits_is_refused() -> None:
    """Before: with capacity 2^62, lookahead believed 2^63 bytes fit."""
    net = load_network(relus([262144, 1048576], 3), batch=2**20, bytes_per_element=16)
    with pytest.raises(ValueError, match="the bytes of all tensor accesses"):
        dnnmem.estimate(net, Hardware(capacity=2**62, bandwidth=TOP, throughput=TOP))


def test_flops_beyond_64_bits_are_refused() -> None:
    """Before: Result.flops negative, utilization -0.88."""
    net = load_network(dense_chain(131072, 6), batch=2**24)
    with pytest.raises(ValueError, match=r"the FLOPs of all steps .* more than 2\^62 FLOPs"):
        dnnmem.estimate(net, Hardware(capacity=0))
    with pytest.raises(ValueError, match="FLOPs"):  # the sweep and the summary alike
        dnnmem.sweep(net, capacity=0, progress=False)
    with pytest.raises(ValueError, match="FLOPs"):
        net.summary()


def test_just_below_the_limits_every_policy_is_exact_and_sweep_equals_estimate() -> None:
    # 2^55-byte tensors: the accesses move 7 · 2^55 bytes, just under the 2^58 limit.
    net = load_network(relus([262144, 1048576], 3), batch=2**17, bytes_per_element=1)
    access_bytes = int(net.accesses["bytes"].sum())
    assert access_bytes == 7 * 2**55
    caps = [0, 2**56, 2**62]
    df = dnnmem.sweep(
        net,
        capacity=caps,
        bandwidth=[1, TOP],
        throughput=[1, TOP],
        policy=list(dnnmem.parts("cache")),
        progress=False,
    )
    assert len(df) == len(caps) * 4 * len(dnnmem.parts("cache"))
    assert (df["traffic_in"] >= 0).all() and (df["traffic_out"] >= 0).all()
    assert ((df["traffic_in"] + df["traffic_out"]) <= 4 * access_bytes).all()
    assert np.isfinite(df["time"]).all() and (df["time"] > 0).all()
    assert ((df["utilization"] >= 0) & (df["utilization"] <= 1 + 1e-12)).all()
    for row in df.sample(12, random_state=0).itertuples(index=False):
        r = dnnmem.estimate(
            net,
            policy=row.policy,
            capacity=row.capacity,
            bandwidth=row.bandwidth,
            throughput=row.throughput,
        )
        assert (r.time, r.traffic_in, r.traffic_out) == (row.time, row.traffic_in, row.traffic_out)


def test_step_bytes_are_exact_above_2_53() -> None:
    """Network.steps summed accesses in float64: a step's bytes above 2^53 were rounded."""
    batch, elements = 2**20 - 1, (2**31 - 1) * 5  # odd: float64 cannot hold the product
    net = load_network(relus([2**31 - 1, 5], 1), batch=batch, bytes_per_element=1)
    size = batch * elements
    assert size > 2**53 and size % 2 == 1
    steps = net.steps
    assert steps.loc[0, "bytes_read"] == size and steps.loc[0, "bytes_written"] == size


# -- 3: threads -----------------------------------------------------------------------------------


def test_too_many_threads_are_capped_with_a_warning() -> None:
    """Before: threads=2**31 gave pybind's "incompatible function arguments" dump, and
    threads=20000 started 20,000 threads for two points."""
    limit = _core.max_sweep_threads()
    assert limit >= 1
    with pytest.warns(RuntimeWarning, match=rf"threads: 2147483648 requested, using {limit}"):
        df = dnnmem.sweep(TINY, capacity=[0, MiB], threads=2**31, progress=False)
    one = dnnmem.sweep(TINY, capacity=[0, MiB], threads=1, progress=False)
    pd.testing.assert_frame_equal(df, one)
    # The engine itself takes any count >= 0 (and starts at most one thread per point).
    s = load_network(TINY).schedule
    out = _core.sweep(
        s, np.array([0, MiB]), np.full(2, 1e9), np.full(2, 1e12), np.zeros(2, np.int32), 2**40
    )
    assert out["done"].all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # (a build without OpenMP says so for any threaded sweep: not what is tested here)
        warnings.filterwarnings("ignore", "dnnmem was built without OpenMP")
        dnnmem.sweep(TINY, capacity=[0, MiB], threads=limit, progress=False)  # no cap warning


@pytest.mark.skipif(not _core.openmp_enabled(), reason="a build without OpenMP runs one thread")
@pytest.mark.skipif(
    "asan" in os.environ.get("LD_PRELOAD", ""),
    reason="AddressSanitizer reserves address space beyond any RLIMIT_AS",
)
def test_thread_creation_failure_is_an_exception_not_an_exit() -> None:
    """Before: libgomp printed "Thread creation failed" and ended the interpreter (exit 1)."""
    code = textwrap.dedent("""
        import resource
        import numpy as np
        import dnnmem
        from dnnmem import _core
        s = dnnmem.load_network({"layers": [{"name": "x", "kind": "input", "shape": [16]},
            {"name": "d", "kind": "dense", "units": 4, "inputs": ["x"]}]}, batch=2).schedule
        n = 64
        args = (np.zeros(n, np.int64), np.full(n, 1e9), np.full(n, 1e12), np.zeros(n, np.int32))
        _core.sweep(s, *args, 1)
        vm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize"))
        # 4 MiB more address space: not enough for a second thread's stack
        resource.setrlimit(resource.RLIMIT_AS, (vm * 1024 + 4 * 2**20, resource.RLIM_INFINITY))
        try:
            _core.sweep(s, *args, 8)
            print("no error")
        except RuntimeError as e:
            print("RuntimeError:", e)
        print("still running")
    """)
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, OMP_NUM_THREADS="8"),
    )
    assert r.returncode == 0, r.stderr
    assert "RuntimeError: threads: could not start sweep thread" in r.stdout, r.stdout
    assert r.stdout.rstrip().endswith("still running")


# -- 4: deep nesting in a dict --------------------------------------------------------------------


def _nested(depth: int, inner: object) -> object:
    for _ in range(depth):
        inner = [inner]
    return inner


def test_deeply_nested_dict_is_a_network_error_as_in_a_file(tmp_path: Path) -> None:
    """Before: RecursionError for the dict (the file gave "nested too deeply")."""
    deep = {
        "layers": [{"name": "x", "kind": "input", "shape": [4], "meta": {"a": _nested(100_000, 1)}}]
    }
    with pytest.raises(NetworkError, match=r"nested too deeply \(more than 64 levels\)"):
        load_network(deep)
    d = {"x": 1}
    for _ in range(5000):
        d = {"x": d}
    with pytest.raises(NetworkError, match="nested too deeply"):
        load_network({"layers": [], "meta": d})
    # The same limit in a dict and in a file: document, layers and layer are 3 levels.
    for depth, ok in [(61, True), (62, False)]:
        doc = {
            "layers": [{"name": "x", "kind": "input", "shape": [4], "meta": _nested(depth - 1, [])}]
        }
        path = tmp_path / f"d{depth}.json"
        path.write_text(json.dumps(doc))
        for source in (doc, path):
            if ok:
                assert load_network(source).params == 0
            else:
                with pytest.raises(NetworkError, match="nested too deeply"):
                    load_network(source)


# -- 5: the darknet importer ----------------------------------------------------------------------

NET = "[net]\nheight=8\nwidth=8\nchannels=3\n"


def cfg(tmp_path: Path, text: str) -> str:
    path = tmp_path / "net.cfg"
    path.write_text(NET + text)
    return os.fspath(path)


@pytest.mark.parametrize(
    "section",
    [
        "[convolutional]\nfilters=2\nsize=3\nstride=0\n",
        "[convolutional]\nfilters=2\nsize=3\nstride_x=0\n",
        "[maxpool]\nsize=2\nstride=0\n",
        "[reorg]\nstride=0\n",
        "[upsample]\nstride=0\n",
        "[local_avgpool]\nsize=2\nstride=0\n",
    ],
    ids=["conv", "conv stride_x", "maxpool", "reorg", "upsample", "local_avgpool"],
)
def test_darknet_zero_stride_is_a_value_error(tmp_path: Path, section: str) -> None:
    """Before: ZeroDivisionError."""
    path = cfg(tmp_path, section)
    with pytest.raises(ValueError, match=r"net\.cfg:5: \[\w+\] 'stride(_x)?': must") as e:
        from_darknet(path)
    assert path in str(e.value)


def test_darknet_empty_route_is_a_value_error(tmp_path: Path) -> None:
    """Before: IndexError."""
    path = cfg(tmp_path, "[convolutional]\nfilters=2\nsize=1\n[route]\nlayers=\n")
    with pytest.raises(ValueError, match=r"net\.cfg:8: \[route\] 'layers': must list at least"):
        from_darknet(path)


@pytest.mark.parametrize(
    "section, key, line, field, detail",
    [
        ("[convolutional]\nfilters=0\nsize=3\n", "filters", 5, "filters", "positive"),
        ("[convolutional]\nfilters=2\nsize=0\n", "size", 5, "kernel_size", "positive"),
        ("[convolutional]\nfilters=4\nsize=1\ngroups=2\n", "groups", 5, "groups", "not divisible"),
        ("[maxpool]\nsize=20\nstride=1\npadding=0\n", "size", 5, "pool_size", "larger than"),
        ("[dropout]\nprobability=1.5\n", "probability", 5, "rate", "[0, 1)"),
        (
            "[convolutional]\nfilters=2\nsize=1\n[upsample]\nstride=2147483648\n",
            "stride",
            8,
            "size",
            "overflow",
        ),
    ],
)
def test_darknet_core_errors_name_the_cfg_line_and_darknet_key(
    tmp_path: Path, section: str, key: str, line: int, field: str, detail: str
) -> None:
    """Before: the core's errors named '<dict>' and dnnmem's field ('kernel_size', 'rate')."""
    path = cfg(tmp_path, section)
    with pytest.raises(NetworkError) as e:
        from_darknet(path)
    err = e.value
    assert str(err).startswith(f"{path}:{line}: [")
    assert f"'{key}': " in str(err) and detail in str(err)
    assert (err.source, err.field) == (path, key)
    assert f"field '{field}'" in str(err)  # dnnmem's name, for reference, after the cfg's


# -- 6: smaller findings --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "layer, field",
    [
        (
            {
                "name": "c",
                "kind": "conv2d",
                "inputs": ["x"],
                "filters": 4,
                "kernel_size": 2**31,
                "padding": "same",
            },
            "kernel_size",
        ),
        ({"name": "c", "kind": "upsample", "inputs": ["x"], "size": 2**31}, "size"),
    ],
)
def test_overflow_errors_name_the_field(layer: dict, field: str) -> None:
    """Before: 'filters' and 'inputs'."""
    doc = {"layers": [{"name": "x", "kind": "input", "shape": [8, 8, 3]}, layer]}
    with pytest.raises(NetworkError, match="overflow") as e:
        load_network(doc)
    assert (e.value.layer, e.value.field) == ("c", field)


def test_numpy_scalars_are_numbers_everywhere() -> None:
    """Before: Hardware(capacity=np.int64(5)) was refused (sweep took NumPy scalars)."""
    hw = Hardware(capacity=np.int64(5), bandwidth=np.int32(7), throughput=np.float32(8.0))
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (5, 7.0, 8.0)
    assert parse_bytes(np.uint8(3)) == 3
    with pytest.raises(ValueError, match="expected a number"):
        parse_bytes(np.bool_(True))


def test_bare_number_strings_are_base_units() -> None:
    """Before: parse_bandwidth("5") said "unknown unit ''" (parse_bytes("5") was 5)."""
    assert parse_bandwidth("5") == 5.0 and parse_throughput(" 2.5e3 ") == 2500.0
    assert Hardware(bandwidth="616000000000").bandwidth == 616e9


def test_huge_capacity_message_is_short() -> None:
    """Before: capacity=1e300 printed a 301-digit number."""
    with pytest.raises(ValueError) as e:
        Hardware(capacity=1e300)
    assert str(e.value) == "capacity: 1e+300 bytes is too large (at most 2^62 bytes)"


def test_capacities_above_2_53_are_exact() -> None:
    """Before: capacities went through float64 and were rounded to a multiple of 2."""
    cap = 2**53 + 1
    assert parse_bytes(cap) == cap and parse_bytes("9007199254740993B") == cap
    # 2^63 + 2^40 · 1e-10 = 2^63 + 109.95…: exact decimal arithmetic, then rounded
    assert parse_bytes("8388608.0000000001TiB") == 2**63 + 110
    assert Hardware(capacity=cap).capacity == cap
    df = dnnmem.sweep(TINY, capacity=[cap, np.int64(cap + 2)], progress=False)
    assert list(df["capacity"]) == [cap, cap + 2]


def test_unknown_top_level_keys_are_errors() -> None:
    """Before: {"layer": ...} beside "layers" passed silently."""
    with pytest.raises(NetworkError, match="is not a field of a network document") as e:
        load_network(dict(TINY, layer=[]))
    assert e.value.field == "layer"
    assert load_network(dict(TINY, meta={"origin": "test"})).params == TINY_PARAMS


TINY_PARAMS = 16 * 8 + 8 + 8 * 4 + 4


def test_endless_file_is_refused_at_the_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: load_network("/dev/zero") read until memory ran out."""
    assert network_module.MAX_FILE_BYTES == 2**28
    monkeypatch.setattr(network_module, "MAX_FILE_BYTES", 4 * MiB)
    with pytest.raises(NetworkError, match=r"/dev/zero: the file is larger than 4194304 bytes"):
        load_network("/dev/zero")
    with pytest.raises(NetworkError, match="larger than 1024 bytes"):
        _core.load_network_file("/dev/zero", 1024)


def test_duplicate_policies_and_batches_are_one_point() -> None:
    """Before: policy=["lru", "lru"] gave duplicate rows (duplicate capacities did not)."""
    df = dnnmem.sweep(
        TINY, capacity=[0, 0, MiB], policy=["lru", "lru", "none"], batch=[2, 2], progress=False
    )
    assert len(df) == 4
    assert list(df["policy"]) == ["lru", "lru", "none", "none"]


def test_ctrl_c_while_preparing_returns_with_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: Ctrl-C while the grid / schedules were prepared raised, even with
    on_interrupt="return"."""

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_module, "_cartesian", interrupted)
    with pytest.warns(dnnmem.SweepInterrupted, match="while preparing the points"):
        df = dnnmem.sweep(TINY, capacity=[0, MiB], progress=False)
    assert len(df) == 0 and df.attrs["evaluated"] == 0
    assert list(df.columns) == sweep_module.INPUT_COLUMNS + sweep_module.RESULT_COLUMNS
    with pytest.raises(KeyboardInterrupt):
        dnnmem.sweep(TINY, capacity=[0, MiB], progress=False, on_interrupt="raise")

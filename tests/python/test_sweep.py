"""dnnmem.sweep: every row equals dnnmem.estimate() at its point, exactly; thread count, point
order and executor change nothing; resume, interrupt and argument errors."""

from __future__ import annotations

import concurrent.futures
import importlib
import inspect
import multiprocessing
import tempfile
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Union

import numpy as np
import pandas as pd
import pytest

import dnnmem

sweep_module = importlib.import_module("dnnmem.sweep")  # dnnmem.sweep is the function

MiB = 2**20
# A small real network (ResNet-50 at batch 2 has ~160 steps; enough to keep, prefetch, stall).
NET = dnnmem.network("resnet50", batch=2)
CAPS = [0, "8MiB", 24 * MiB, 60 * MiB]
BWS = ["616GB/s", 1555e9]


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    return dnnmem.sweep(
        NET,
        capacity=CAPS,
        bandwidth=BWS,
        throughput="13.45TFLOPS",
        policy=list(dnnmem.parts("cache")),
        threads=2,
        progress=False,
    )


def test_each_row_equals_estimate(grid: pd.DataFrame) -> None:
    assert len(grid) == len(CAPS) * len(BWS) * len(dnnmem.parts("cache"))
    inputs = sweep_module.INPUT_COLUMNS
    assert list(grid.columns) == (
        inputs[:3]
        + ["scheduler", "fusion", "cache", "link", "compute"]
        + inputs[3:]
        + sweep_module.RESULT_COLUMNS
    )
    for row in grid.itertuples(index=False):
        r = dnnmem.estimate(
            NET,
            policy=row.policy,
            capacity=row.capacity,
            bandwidth=row.bandwidth,
            throughput=row.throughput,
        )
        expected = r.to_dict()
        got = row._asdict()
        for k, v in expected.items():
            assert got[k] == v, (k, row)  # exact: bytes and seconds alike
        assert got["flops"] == r.flops
        assert {k: got[k] for k in r.counts} == r.counts
    assert grid["kept"].max() > 0 and grid["prefetched"].max() > 0  # not all streamed


def test_dtypes_and_units(grid: pd.DataFrame) -> None:
    for c in ("batch", "capacity", "traffic_in", "traffic_out", "flops", "kept", "offloads"):
        assert grid[c].dtype == np.int64, c
    for c in ("bandwidth", "throughput", "time", "utilization"):
        assert grid[c].dtype == np.float64, c
    assert isinstance(grid["network"].dtype, pd.CategoricalDtype)
    # Unit strings parsed to SI: 8 MiB = 8388608 bytes, 616 GB/s = 616e9 bytes/s.
    assert sorted(grid["capacity"].unique()) == [0, 8388608, 24 * MiB, 60 * MiB]
    assert sorted(grid["bandwidth"].unique()) == [616e9, 1555e9]
    assert set(grid["throughput"]) == {13.45e12}
    # Capacity varies fastest (grid order).
    assert list(grid["capacity"][:4]) == [0, 8388608, 24 * MiB, 60 * MiB]


def test_threads_and_point_order_change_nothing(grid: pd.DataFrame) -> None:
    one = dnnmem.sweep(
        NET,
        capacity=CAPS,
        bandwidth=BWS,
        throughput="13.45TFLOPS",
        policy=list(dnnmem.parts("cache")),
        threads=1,
        progress=False,
    )
    pd.testing.assert_frame_equal(one, grid, check_exact=True)
    shuffled = grid[sweep_module.INPUT_COLUMNS].sample(frac=1.0, random_state=3)
    shuffled["network"] = shuffled["network"].astype(str)
    shuffled["policy"] = shuffled["policy"].astype(str)
    df = dnnmem.sweep(NET, points=shuffled, threads=2, progress=False)
    back = df.assign(order=shuffled.index.to_numpy()).sort_values("order").drop(columns="order")
    back["policy"] = back["policy"].astype(str)
    expected = grid.copy()
    expected["policy"] = expected["policy"].astype(str)
    pd.testing.assert_frame_equal(
        back.reset_index(drop=True),
        expected.reset_index(drop=True),
        check_exact=True,
        check_categorical=False,
    )


def test_explicit_points_and_defaults() -> None:
    df = dnnmem.sweep(
        "resnet50",
        batch=2,
        points=[
            {"capacity": "24MiB", "policy": "lru"},
            {"capacity": 0, "bandwidth": "1TB/s"},
        ],
        progress=False,
    )
    assert list(df["policy"]) == ["lru", "lookahead"]
    assert list(df["capacity"]) == [24 * MiB, 0]
    assert list(df["bandwidth"]) == [616e9, 1e12]  # the default Hardware's 616 GB/s
    assert list(df["batch"]) == [2, 2]
    r = dnnmem.estimate("resnet50", batch=2, capacity=0, bandwidth="1TB/s")
    assert df["time"][1] == r.time and df["traffic_in"][1] == r.traffic_in


def test_several_networks_and_batches() -> None:
    df = dnnmem.sweep(["resnet50", "transformer"], batch=[1, 2], capacity="16MiB", progress=False)
    assert list(zip(df["network"], df["batch"])) == [
        ("resnet50", 1),
        ("resnet50", 2),
        ("transformer", 1),
        ("transformer", 2),
    ]
    r = dnnmem.estimate("transformer", batch=2, capacity="16MiB")
    row = df.iloc[3]
    assert row["time"] == r.time and row["traffic_out"] == r.traffic_out
    assert row["samples_per_s"] == r.samples_per_s


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"capacity": "24 furlongs"}, "capacity: unknown unit"),
        ({"capacity": -1}, "capacity"),
        ({"bandwidth": 0}, "bandwidth: must be >= 1"),
        ({"throughput": "fast"}, "throughput: cannot read"),
        (
            {"policy": "lifo"},
            "policy: unknown part 'lifo'; did you mean fifo\\? \\(schedulers: default",
        ),
        ({"batch": 0}, "batch: must be an integer"),
        ({"threads": 0}, "threads: must be an integer >= 1"),
        ({"ops_per_mac": 3}, "ops_per_mac"),
        ({"capacity": []}, "capacity: no values"),
        ({"on_interrupt": "ignore"}, "on_interrupt"),
        ({"points": [{"capacity": 1, "colour": "red"}]}, "points: unknown column"),
        (
            {"points": [{"capacity": 1}], "policy": ["lru", "none"]},
            "points: no 'policy' for 1 point",
        ),
        (  # was ignored: one point, not the two the call seems to ask for
            {"points": [{"capacity": 1}], "capacity": [2, 3]},
            "points: capacity= has 2 values, and every point has its own capacity; points are "
            "not crossed",
        ),
    ],
)
def test_errors_name_the_argument(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        dnnmem.sweep(NET, progress=False, **kwargs)


def test_network_errors() -> None:
    with pytest.raises(ValueError, match="network: no network given"):
        dnnmem.sweep(capacity=0, progress=False)
    with pytest.raises(ValueError, match="network: 'nosuchnet' is neither"):
        dnnmem.sweep("nosuchnet", progress=False)
    with pytest.raises(ValueError, match="^hardware: unknown hardware '24MiB'"):
        dnnmem.sweep(NET, hardware="24MiB", progress=False)
    with pytest.raises(TypeError, match="hardware: expected dnnmem.Hardware"):
        dnnmem.sweep(NET, hardware=24, progress=False)  # type: ignore[arg-type]
    only_input = {"name": "nothing", "layers": [{"name": "x", "kind": "input", "shape": [4]}]}
    with pytest.raises(ValueError, match="network: 'nothing' has no step"):
        dnnmem.sweep(only_input, progress=False)


def test_parquet_resume(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pyarrow")
    out = tmp_path / "results.parquet"
    evaluated: list[int] = []
    real_run = sweep_module._run

    def counting_run(schedule, capacity, *args, **kwargs):  # type: ignore[no-untyped-def]
        evaluated.append(len(capacity))
        return real_run(schedule, capacity, *args, **kwargs)

    monkeypatch.setattr(sweep_module, "_run", counting_run)
    first = dnnmem.sweep(
        NET, capacity=[0, "24MiB"], policy=["lookahead", "lru"], out=out, progress=False
    )
    assert evaluated == [4] and first.attrs["evaluated"] == 4
    second = dnnmem.sweep(
        NET, capacity=[0, "24MiB", "60MiB"], policy=["lookahead", "lru"], out=out, progress=False
    )
    assert evaluated == [4, 2]  # only the 60 MiB points are new
    assert second.attrs["evaluated"] == 2
    fresh = dnnmem.sweep(
        NET, capacity=[0, "24MiB", "60MiB"], policy=["lookahead", "lru"], progress=False
    )
    pd.testing.assert_frame_equal(second, fresh, check_exact=True)
    on_disk = pd.read_parquet(out)
    assert len(on_disk) == 6
    third = dnnmem.sweep(NET, capacity=[0], policy="lru", out=out, progress=False)
    assert evaluated == [4, 2, 6] and third.attrs["evaluated"] == 0  # 6: `fresh`
    assert third["time"][0] == fresh["time"][3]


@pytest.mark.parametrize("kind", ["thread", "process"])
def test_executor_equals_local(grid: pd.DataFrame, kind: str) -> None:
    if kind == "thread":
        ex = concurrent.futures.ThreadPoolExecutor(2)
    else:  # spawn: a forked child of a process that ran OpenMP threads may hang (libgomp)
        ex = concurrent.futures.ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context("spawn")
        )
    with ex:
        df = dnnmem.sweep(
            NET,
            capacity=CAPS,
            bandwidth=BWS,
            throughput="13.45TFLOPS",
            policy=list(dnnmem.parts("cache")),
            executor=ex,
            chunk_size=5,
            progress=False,
        )
    pd.testing.assert_frame_equal(df, grid, check_exact=True)


def test_dask_local_cluster_equals_local(grid: pd.DataFrame) -> None:
    distributed = pytest.importorskip("distributed")
    import dnnmem.cluster

    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        ex = dnnmem.cluster.dask(client, threads_per_worker=1, chunk_size=7)
        assert ex.threads == 1 and ex._max_workers == 2
        df = dnnmem.sweep(
            NET,
            capacity=CAPS,
            bandwidth=BWS,
            throughput="13.45TFLOPS",
            policy=list(dnnmem.parts("cache")),
            executor=ex,
            progress=False,
        )
    pd.testing.assert_frame_equal(df, grid, check_exact=True)


def test_dask_arguments() -> None:
    import dnnmem.cluster

    with pytest.raises(ValueError, match="threads_per_worker"):
        dnnmem.cluster.dask(object(), threads_per_worker=0)
    with pytest.raises(ValueError, match="chunk_size"):
        dnnmem.cluster.dask(object(), chunk_size=-5)


def test_interrupt_returns_finished_rows(monkeypatch, tmp_path) -> None:
    """A KeyboardInterrupt during the second (network, batch) group: the first group's rows
    come back with a warning, and `out` holds them for a resume."""
    pytest.importorskip("pyarrow")
    real_run = sweep_module._run
    calls = []

    def interrupting_run(
        schedule, capacity, bandwidth, throughput, policy, threads, ops, progress, out, policies
    ):  # type: ignore[no-untyped-def]
        calls.append(len(capacity))
        if len(calls) == 2:  # Ctrl-C as the second group starts
            raise KeyboardInterrupt
        return real_run(
            schedule, capacity, bandwidth, throughput, policy, threads, ops, progress, out, policies
        )

    monkeypatch.setattr(sweep_module, "_run", interrupting_run)
    path = tmp_path / "partial.parquet"
    with pytest.warns(dnnmem.SweepInterrupted, match="returning the 3 of 6 points"):
        df = dnnmem.sweep(
            "resnet50", batch=[1, 2], capacity=[0, "8MiB", "24MiB"], out=path, progress=False
        )
    assert list(df["batch"]) == [1, 1, 1]
    assert len(pd.read_parquet(path)) == 3
    with pytest.raises(KeyboardInterrupt):
        calls.clear()
        dnnmem.sweep("resnet50", batch=[1, 3], capacity=[0], on_interrupt="raise", progress=False)


def test_core_sweep_interrupt_keeps_finished_points() -> None:
    """The binding: an exception from the progress callback cancels the sweep; the `out`
    arrays hold the finished points (done) and NaN elsewhere."""
    s = NET.schedule
    n = 4000
    out = sweep_module._engine_columns(n)
    calls = []

    def progress(done: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dnnmem._core.sweep(
            s,
            np.full(n, 24 * MiB),
            np.full(n, 616e9),
            np.full(n, 13.45e12),
            np.zeros(n, np.int32),
            1,
            2,
            progress,
            out,
            0.001,
        )
    assert calls and len(calls) == 1
    done = out["done"]
    assert np.isnan(out["seconds"][~done]).all()
    assert not np.isnan(out["seconds"][done]).any()
    if done.any():  # every finished point has estimate()'s value
        e = dnnmem._core.estimate(s, 24 * MiB, 616e9, 13.45e12, "lookahead")
        assert (out["seconds"][done] == e.seconds).all()


def test_core_sweep_argument_errors() -> None:
    s = NET.schedule
    one = np.ones(1)
    with pytest.raises(ValueError, match="bandwidth: 2 values, but capacity has 1"):
        dnnmem._core.sweep(s, np.zeros(1, np.int64), np.ones(2), one, np.zeros(1, np.int32))
    with pytest.raises(ValueError, match="point 0: policy: index 42 out of range"):
        dnnmem._core.sweep(s, np.zeros(1, np.int64), one * 1e9, one * 1e9, np.full(1, 42, np.int32))
    with pytest.raises(ValueError, match=r"out\['seconds'\]: expected a writable"):
        dnnmem._core.sweep(
            s,
            np.zeros(1, np.int64),
            one * 1e9,
            one * 1e9,
            np.zeros(1, np.int32),
            out={"seconds": np.zeros(2)},
        )


def test_slurm_job_script() -> None:
    """dask-jobqueue builds the SLURM job a sweep would run on (nothing is submitted)."""
    import signal

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        jobqueue = pytest.importorskip("dask_jobqueue")
    finally:  # its import replaces the Ctrl-C handler of the whole test session
        for s, h in handlers.items():
            signal.signal(s, h)
    cluster = jobqueue.SLURMCluster(
        cores=8,
        processes=1,
        memory="16GB",
        walltime="01:00:00",
        queue="cpu",
        scheduler_options={"dashboard_address": None},
        job_extra_directives=["--exclusive"],
    )
    try:
        script = cluster.job_script()
    finally:
        cluster.close()
    assert "#SBATCH --cpus-per-task=8" in script
    assert "#SBATCH --mem=15G" in script  # 16 GB = 14.9 GiB, rounded up by dask-jobqueue
    assert "#SBATCH -p cpu" in script
    assert "#SBATCH --exclusive" in script
    assert "--nthreads 8" in script


def test_real_ctrl_c_stops_promptly(monkeypatch) -> None:
    """SIGINT while the engine runs (sent once a point has finished): the sweep stops early and
    returns the finished rows, each equal to estimate()."""
    import os
    import signal

    real_run = sweep_module._run

    def run_then_interrupt(*args, **kwargs):  # type: ignore[no-untyped-def]
        # Sent from the progress callback (every 0.1 s) once a point is done, not after a fixed
        # delay: under load no point had finished 50 ms after the engine started.
        progress = args[7]
        sent = []

        def interrupt_after_a_point(done: int) -> None:
            if done > 0 and not sent:
                sent.append(done)
                os.kill(os.getpid(), signal.SIGINT)
            progress(done)

        return real_run(*args[:7], interrupt_after_a_point, *args[8:], **kwargs)

    monkeypatch.setattr(sweep_module, "_run", run_then_interrupt)
    caps = list(range(0, 64 * MiB, 256))  # 262144 points: seconds, far longer than 0.2 s
    # Python's own Ctrl-C handler (importing dask_jobqueue installs one raising SystemExit).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.warns(dnnmem.SweepInterrupted):
            df = dnnmem.sweep(NET, capacity=caps, threads=1, progress=False)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert 0 < len(df) < len(caps)
    row = df.iloc[-1]
    r = dnnmem.estimate(NET, capacity=int(row["capacity"]))
    assert row["time"] == r.time and row["traffic_in"] == r.traffic_in


def test_progress_bar(capsys) -> None:
    pytest.importorskip("tqdm")
    df = dnnmem.sweep(NET, capacity=[0, "24MiB"], progress=True)
    assert len(df) == 2


def test_one_network_at_two_batches_given_as_network_objects() -> None:
    # [resnet50 at N=2, resnet50 at N=3] is one network at two batches: both rows are swept
    # (found by the thesis figures: it used to keep only the first batch).
    a, b = dnnmem.network("resnet50", batch=2), dnnmem.network("resnet50", batch=3)
    df = dnnmem.sweep([a, b], capacity="8MiB", progress=False, threads=1)
    assert df["batch"].tolist() == [2, 3]
    for n, row in zip((a, b), df.itertuples()):
        r = dnnmem.estimate(n, capacity="8MiB")
        assert (row.time, row.traffic_in, row.traffic_out) == (r.time, r.traffic_in, r.traffic_out)
    # An explicit batch still overrides the networks' own.
    assert dnnmem.sweep([a, b], batch=4, capacity="8MiB", progress=False)["batch"].tolist() == [4]


def test_every_column_has_its_unit_in_attrs() -> None:
    """A sweep's columns carry no unit in their names (`time`, `capacity`, `energy`); they
    were only in the docs. df.attrs["units"] names each one's."""
    df = dnnmem.sweep(
        NET,
        capacity=["1MiB", "8MiB"],
        policy=["lookahead", "ratio(activation=2, cap=48GB/s) + lru"],
        progress=False,
        threads=1,
        speedup=True,
    )
    units = df.attrs["units"]
    assert list(units) == list(df.columns)  # every column, none besides
    assert {c: units[c] for c in df.columns if c.startswith(("link", "cache"))} == {
        "cache": "",
        "link": "",
        "link_activation": "",  # a ratio
        "link_cap": "bytes/s",  # the option's own unit
        "link_in": "bytes",
        "link_out": "bytes",
    }
    assert [
        units[c]
        for c in (
            "batch",
            "capacity",
            "bandwidth",
            "throughput",
            "time",
            "traffic_in_weight",
            "avg_bandwidth",
            "utilization",
            "samples_per_s",
            "flops",
            "macs",
            "energy",
            "kept",
            "speedup",
        )
    ] == [
        "samples",
        "bytes",
        "bytes/s",
        "FLOP/s",
        "s",
        "bytes",
        "bytes/s",
        "fraction",
        "samples/s",
        "FLOP",
        "MAC",
        "DRAM-byte units",
        "count",
        "×",
    ]
    assert df[df["policy"] == "lookahead"].attrs["units"] == units  # kept by a filter
    # The joules and the die model's columns (docs/model/energy.md, cost.md) have theirs.
    assert (units["energy_j"], units["energy_per_sample_j"], units["area_mm2"]) == (
        "J",
        "J/sample",
        "mm²",
    )
    assert units["cost_usd"] == "USD"
    with_area = dnnmem.with_area(df, column="sram_mm2")
    assert with_area.attrs["units"] == {**units, "sram_mm2": "mm²"} and "sram_mm2" not in units


def test_the_grid_arguments_are_typed() -> None:
    """They were all `Any`: an editor or mypy could tell nothing about them."""
    params = inspect.signature(dnnmem.sweep).parameters
    assert {p: params[p].annotation for p in ("network", "capacity", "batch", "policy")} == {
        "network": "NetworkLike | Iterable[NetworkLike] | None",
        "capacity": "AxisValues",
        "batch": "int | Iterable[int] | Mapping[str, int] | None",
        "policy": "PolicyLike | Iterable[PolicyLike]",
    }
    assert typing.get_args(importlib.import_module("dnnmem.sweep").AxisValues) == (
        str,
        float,
        Iterable[Union[str, float]],
        Mapping[str, Union[str, float]],
        type(None),
    )


def test_a_range_as_in_yaml() -> None:
    """A dict {start, stop, step} was iterated as its keys ("capacity: cannot read 'start'")."""
    df = dnnmem.sweep(
        NET,
        capacity={"start": "1MiB", "stop": "3MiB", "step": "1MiB"},
        batch={"start": 1, "stop": 2, "step": 1},
        progress=False,
        threads=1,
    )
    assert df[["batch", "capacity"]].to_numpy().tolist() == [
        [b, c * 2**20] for b in (1, 2) for c in (1, 2, 3)
    ]
    with pytest.raises(ValueError, match=r"^capacity: a range needs exactly start, stop and step"):
        dnnmem.sweep(NET, capacity={"start": "1MiB"}, progress=False)


def test_out_is_checked_before_the_work(tmp_path) -> None:
    """out="x.csv" wrote a Parquet file named x.csv; out= in a folder that does not exist ran
    the whole sweep and then lost it to an OSError; a file that is not Parquet gave pyarrow's
    ArrowInvalid."""
    pytest.importorskip("pyarrow")
    csv = tmp_path / "x.csv"
    with pytest.raises(ValueError, match=r"^out: '.*x\.csv' must be a \.parquet file"):
        dnnmem.sweep(NET, capacity="1MiB", out=csv, progress=False)
    assert not csv.exists()
    missing = tmp_path / "no" / "x.parquet"
    with pytest.raises(ValueError, match=r"^out: the folder '.*/no' of '.*' does not exist$"):
        dnnmem.sweep(NET, capacity="1MiB", out=missing, progress=False)
    text = tmp_path / "text.parquet"
    text.write_text("network,batch\n", encoding="utf-8")
    with pytest.raises(
        ValueError, match=r"^out: cannot read '.*text\.parquet' as the Parquet file of a sweep \("
    ):
        dnnmem.sweep(NET, capacity="1MiB", out=text, progress=False)


def test_an_executor_that_is_not_one_is_named() -> None:
    """executor="dask" was "'str' object has no attribute 'submit'"; a Dask client passed
    as it is, "'Future' object has no attribute '_condition'" from concurrent.futures."""
    with pytest.raises(
        TypeError, match=r"^executor: expected a concurrent.futures.Executor, got str$"
    ):
        dnnmem.sweep(NET, capacity="1MiB", executor="dask", progress=False)
    distributed = pytest.importorskip("distributed")
    client = object.__new__(distributed.Client)  # its type is what is checked: no cluster
    with pytest.raises(TypeError, match=r"got Client: wrap it, executor=dnnmem.cluster.dask"):
        dnnmem.sweep(NET, capacity="1MiB", executor=client, progress=False)


def test_a_grid_beyond_max_points_is_refused_before_it_is_built(monkeypatch) -> None:
    """10^4 capacities x 10^4 bandwidths built 10^8 rows and exhausted the memory: the grid is
    counted first, and refused with its size, its axes and the ways on."""
    sweep_module = importlib.import_module("dnnmem.sweep")

    def no_grid(*args: object) -> None:
        raise AssertionError("the grid was built")

    monkeypatch.setattr(sweep_module, "_cartesian", no_grid)
    with pytest.raises(ValueError) as e:
        dnnmem.sweep(
            "resnet18",
            capacity=range(1, 10_001),
            bandwidth=[1e9 + i for i in range(10_000)],
            progress=False,
        )
    assert str(e.value) == (
        "max_points: the grid has 100,000,000 points (network 1 × policy 1 × capacity 10,000 × "
        "bandwidth 10,000 × throughput 1), more than max_points=1,000,000; at about 1.5 kB "
        "each while the sweep runs it would need about 150 GB of memory. Split it into sweeps "
        "of fewer points (e.g. one per capacity value; they can share one out= file), or pass "
        "max_points=100000000 if the memory is there (in a YAML sweep, max_points: 100000000)"
    )
    assert sweep_module.MAX_POINTS == 1_000_000
    # The axis to split over is the shortest whose sweeps each fit; batches count per network.
    with pytest.raises(
        ValueError,
        match=r"\(network 2 × batch 2 × policy 2 × capacity 3 × "
        r"bandwidth 2 × throughput 1\), more than max_points=24; .* one per "
        r"network value",
    ):
        dnnmem.sweep(
            ["resnet18", "vgg16"],
            batch=[1, 2],
            capacity=[1, 2, 3],
            bandwidth=[1e9, 2e9],
            policy=["lru", "lookahead"],
            max_points=24,
        )


def test_max_points_bounds_the_grid_only() -> None:
    kw = {"capacity": ["1MiB", "2MiB", "3MiB"], "progress": False, "threads": 1}
    with pytest.raises(ValueError, match=r"^max_points: the grid has 3 points"):
        dnnmem.sweep(NET, max_points=2, **kw)
    assert len(dnnmem.sweep(NET, max_points=3, **kw)) == 3
    assert len(dnnmem.sweep(NET, max_points=None, **kw)) == 3
    # Explicit points are in memory already: not counted.
    points = [{"capacity": c} for c in ("1MiB", "2MiB", "3MiB")]
    assert len(dnnmem.sweep(NET, points=points, max_points=2, progress=False)) == 3
    for bad in (0, True, 2.5, "10"):
        with pytest.raises(ValueError, match=r"^max_points: must be an integer >= 1 or None"):
            dnnmem.sweep(NET, max_points=bad, **kw)  # type: ignore[arg-type]


def test_an_out_write_that_fails_after_the_work_keeps_the_rows(tmp_path, monkeypatch) -> None:
    """A write of out= that failed after the work (a full disk) raised and lost the rows: they
    are now in a copy in the temporary folder, which the error names; the file is as it was."""
    pytest.importorskip("pyarrow")
    out = tmp_path / "results.parquet"
    first = dnnmem.sweep(NET, capacity=[0], out=out, progress=False, threads=1)
    before = out.read_bytes()
    spare = tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    real = pd.DataFrame.to_parquet

    def disk_full(self: pd.DataFrame, path: object, *args: object, **kwargs: object) -> None:
        if Path(str(path)).parent == tmp_path:  # the temporary file next to out
            with open(str(path), "wb") as f:
                f.write(b"PAR1")  # a partial file
            raise OSError(28, "No space left on device")
        real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    with pytest.raises(OSError) as e:
        dnnmem.sweep(NET, capacity=[0, "1MiB"], out=out, progress=False, threads=1)
    (copy,) = spare.glob("dnnmem-sweep-*.parquet")
    assert str(e.value) == (
        f"out: could not write {str(out)!r}: No space left on device; its 2 rows (the file's "
        f"and this sweep's) are in {str(copy)!r}: move that file to {str(out)!r}, or pass it "
        f"as out= to resume from it"
    )
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.parquet", "spare"]
    kept = pd.read_parquet(copy)
    assert kept["capacity"].tolist() == [0, 2**20]
    assert kept["time"].iloc[0] == first["time"].iloc[0]
    # Resuming from the copy evaluates nothing again.
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    again = dnnmem.sweep(NET, capacity=[0, "1MiB"], out=copy, progress=False, threads=1)
    assert again.attrs["evaluated"] == 0 and again["time"].tolist() == kept["time"].tolist()

    # No copy possible either: said, and the file is still as it was.
    def nowhere(self: pd.DataFrame, path: object, *args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", nowhere)
    with pytest.raises(OSError, match=r"; nor could a copy be written to the temporary folder "):
        dnnmem.sweep(NET, capacity=[0, "2MiB"], out=out, progress=False, threads=1)
    assert out.read_bytes() == before and list(spare.glob("*.parquet")) == [copy]


def test_a_range_beyond_max_points_is_refused_before_it_is_listed() -> None:
    """capacity=range(2**40) was listed (terabytes) before the grid could be counted."""
    with pytest.raises(ValueError) as e:
        dnnmem.sweep(NET, capacity=range(2**40), progress=False)
    assert str(e.value) == (
        "max_points: capacity=range(0, 1099511627776) alone has 1,099,511,627,776 values, so "
        "the grid has more than max_points=1,000,000 points; at about 1.5 kB each while the "
        "sweep runs it would need at least 1.649 PB of memory. Split it into sweeps of fewer "
        "points (they can share one out= file), or raise max_points= if the memory is there"
    )
    with pytest.raises(ValueError, match=r"^max_points: batch=range\(1, 12\) alone has 11 "):
        dnnmem.sweep(NET, batch=range(1, 12), max_points=10, progress=False)
    assert len(dnnmem.sweep(NET, batch=range(1, 3), max_points=2, progress=False)) == 2


def test_fresh_rows_frame_equals_the_general_path(tmp_path) -> None:
    # A sweep with nothing to resume and nothing to write builds its DataFrame from arrays and
    # codes (sweep._assemble_fresh); with out= it goes the general way (concatenations, labels,
    # categoricals from strings). Both must give the same frame: columns, order, dtypes,
    # categories (their order too) and values, with option columns and several networks.
    pytest.importorskip("pyarrow")
    kw: dict = dict(
        network=["resnet18", "bert_tiny"],
        capacity=["24MiB", 0],
        batch=[2],
        policy=["lru", "lookahead(streaming=through-cache)", "split-backward + lookahead"],
        progress=False,
    )
    fast = dnnmem.sweep(**kw)
    general = dnnmem.sweep(**kw, out=tmp_path / "r.parquet")
    assert list(fast.columns) == list(general.columns)
    pd.testing.assert_frame_equal(fast, general, check_exact=True, check_categorical=True)
    for c in ("network", "policy", "scheduler", "cache"):
        assert list(fast[c].cat.categories) == list(general[c].cat.categories)
    assert list(fast["cache"].cat.categories) == ["lru", "lookahead"]
    assert fast.attrs == general.attrs


def test_the_cartesian_grid_equals_its_points_given_explicitly() -> None:
    # The Cartesian grid is built from the axes by index arithmetic (sweep._cartesian), the
    # explicit points by inferring and converting their columns: the same rows give the same
    # frame (values, dtypes, categories and their order), with two batches of one network
    # given as Network objects, a network by name, two schedulers and unit strings.
    nets = [dnnmem.network("resnet18", batch=4), dnnmem.network("resnet18", batch=2), "alexnet"]
    grid = dnnmem.sweep(
        nets,
        capacity=["1MiB", 3 * 2**20],
        bandwidth=[616e9, "1TB/s"],
        policy=["lru", "split-backward + lookahead"],
        progress=False,
    )
    # The documented order: capacity fastest, then throughput, bandwidth, policy, network/batch.
    points = [
        {"network": n, "batch": b, "policy": p, "bandwidth": bw, "capacity": c}
        for n, b in (("resnet18", 4), ("resnet18", 2), ("alexnet", 1))
        for p in ("lru", "split-backward + lookahead")
        for bw in (616e9, "1TB/s")
        for c in ("1MiB", 3 * 2**20)
    ]
    explicit = dnnmem.sweep(nets, points=points, progress=False)
    pd.testing.assert_frame_equal(grid, explicit, check_exact=True, check_categorical=True)
    for c in ("network", "policy", "scheduler", "cache"):
        assert list(grid[c].cat.categories) == list(explicit[c].cat.categories)

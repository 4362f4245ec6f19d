"""Sweeps: many design points at once, one DataFrame row per point (``dnnmem.sweep``).

The grid (or an explicit list of points) is grouped by (network, batch, scheduler); each
group's schedule is built once, each policy of the group is prepared once for it (its link's and
compute model's tables), and its points go to the C++ sweep engine (``cpp/src/sweep.cpp``) in one call,
which evaluates them in parallel with OpenMP without the GIL. Every row equals
:func:`dnnmem.estimate` at that point exactly: the engine and ``estimate()`` share one code path,
and the derived columns are computed here with the same arithmetic as :class:`dnnmem.Result`.
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
import warnings
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Callable, Union

from . import _core, registry
from ._files import reason, replace_atomically
from ._lazy import LazyModule
from ._optional import require
from ._sweep_args import (
    INPUT_COLUMNS,
    MAX_POINTS,
    _check_grid_size,
    _check_range_length,
    _check_threads,
    _explicit,
    _Networks,
    _parse_field,
    _Policies,
    _values,
)
from .estimate import PLAN_TOTALS, ROLES, RUN_TOTALS, NetworkLike, _check_has_steps
from .hardware import Hardware, check_element_size
from .network import Network, _check_batch, schedule_columns
from .part import KINDS
from .policy import FUSION_LEVELS, POINT_DATA, Policy, PolicyLike, prepare_point
from .policy import policy as as_policy
from .presets import as_hardware
from .units import COLUMN_UNITS

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "sweep",
    "SweepInterrupted",
    "INPUT_COLUMNS",
    "RESULT_COLUMNS",
    "column_units",
    "MAX_POINTS",
]

#: The run totals of a :class:`dnnmem.Result` (:data:`dnnmem.estimate.RUN_TOTALS`: same names, SI
#: units) and the plan counts.
RESULT_COLUMNS = [
    *RUN_TOTALS,
    "kept",
    "prefetched",
    "born",
    "offloads",
    *[f"traffic_{d}_{r}" for d in ("in", "out") for r in ROLES],
    *PLAN_TOTALS,
    *registry.report_columns(),  # energy, energy_dram_share
]
#: The pinning managers' report (docs/model/report.md, "Pinning"): tensors pinned, their bytes,
#: re-executed seconds; 0 for every other cache manager.
PIN_COLUMNS = ["pinned", "pinned_bytes", "recompute_time"]
RESULT_COLUMNS += PIN_COLUMNS


def column_units(columns: Any) -> dict[str, str]:
    """The unit of each of a sweep's ``columns`` (:data:`dnnmem.units.COLUMN_UNITS`; a policy
    option's column ``<part>_<option>`` has the option's unit, "" if it has none)."""
    out = {}
    for c in columns:
        unit = COLUMN_UNITS.get(str(c))
        out[str(c)] = _option_unit(str(c)) if unit is None else unit
    return out


@lru_cache(maxsize=1024)
def _option_unit(column: str) -> str:
    # The parts and their options are the C++ core's, fixed for the process.
    kind, _, option = column.partition("_")
    units = {
        o["unit"]
        for p in _core.parts()
        if p["kind"] == kind
        for o in p["options"]
        if o["name"] == option
    }
    return units.pop() if len(units) == 1 else ""


# Engine column -> DataFrame column.
_ENGINE = {
    "seconds": "time",
    "traffic_in": "traffic_in",
    "traffic_out": "traffic_out",
    "wire_in": "link_in",
    "wire_out": "link_out",
    "compute_seconds": "compute_time",
    "stall_seconds": "stall_time",
    "capacity_stall_seconds": "capacity_stall_time",
    "drain_seconds": "drain_time",
    "kept": "kept",
    "prefetched": "prefetched",
    "born": "born",
    "offloads": "offloads",
    **{f"traffic_{d}_{r}": f"traffic_{d}_{r}" for d in ("in", "out") for r in ROLES},
    # the pinning managers' report
    "pinned": "pinned",
    "pinned_bytes": "pinned_bytes",
    "recompute_seconds": "recompute_time",
}
#: Columns that depend on the scheduled network alone (network.schedule_columns).
_SCHEDULE_COLUMNS = ("groups", "sub_batches", "gb_bytes", "macs")
_INT_ENGINE = (
    "pinned",
    "pinned_bytes",
    "traffic_in",
    "traffic_out",
    "wire_in",
    "wire_out",
    "kept",
    "prefetched",
    "born",
    "offloads",
    *[f"traffic_{d}_{r}" for d in ("in", "out") for r in ROLES],
)


class SweepInterrupted(UserWarning):
    """A sweep stopped early (Ctrl-C); the DataFrame returned holds only the points that
    finished (``df.attrs["interrupted"]`` is True). With ``out=``, they are in that file too,
    and running the same sweep with the same ``out=`` again resumes it: only the points not in
    the file are evaluated. The message says how many points finished and how to resume."""


# -- evaluation ---------------------------------------------------------------------------------


def _engine_columns(n: int) -> dict[str, np.ndarray]:
    out = {k: np.zeros(n, dtype=np.int64 if k in _INT_ENGINE else np.float64) for k in _ENGINE}
    out["done"] = np.zeros(n, dtype=bool)
    return out


def _run(
    schedule: _core.Schedule,
    capacity: np.ndarray,
    bandwidth: np.ndarray,
    throughput: np.ndarray,
    policy: np.ndarray,
    threads: int,
    ops_per_mac: int,
    progress: Callable[[int], None] | None,
    out: dict[str, np.ndarray],
    policies: list[_core.PreparedPolicy],
) -> None:
    """One call of the engine (the seam tests use to count evaluated points); ``policy``
    indexes ``policies``, each prepared for ``schedule``."""
    _core.sweep(
        schedule,
        capacity,
        bandwidth,
        throughput,
        policy,
        threads,
        ops_per_mac,
        progress,
        out,
        policies=policies,
    )


@lru_cache(maxsize=8)
def _worker_network(
    document: str, batch: int, bytes_per_element: int, scheduler: str = "default"
) -> Network:
    return Network(_core.parse_network(document, "<sweep>"), batch, bytes_per_element, scheduler)


def evaluate_chunk(
    document: str,
    batch: int,
    bytes_per_element: int,
    capacity: np.ndarray,
    bandwidth: np.ndarray,
    throughput: np.ndarray,
    policy: np.ndarray,
    threads: int,
    ops_per_mac: int,
    policies: tuple[str, ...] = ("lookahead",),
) -> dict[str, np.ndarray]:
    """Evaluate points of one network in a worker (an executor's task; picklable).

    Parameters
    ----------
    document : str
        The network's JSON document (:meth:`Network.to_json`); the schedule is rebuilt here
        (and cached per process).
    batch, bytes_per_element : int
        As in :func:`dnnmem.load_network`.
    capacity, bandwidth, throughput : numpy.ndarray
        Bytes, bytes/s (whole), FLOP/s (whole), one per point.
    policy : numpy.ndarray
        Indices into ``policies``.
    threads, ops_per_mac : int
        OpenMP threads for this chunk (0 = default); FLOPs per MAC.
    policies : tuple of str
        The policies' string forms, all with the same scheduler (the schedule's).

    Returns
    -------
    dict of numpy.ndarray
        The engine's columns (``seconds``, ``traffic_in``, …, ``done``).
    """
    compositions = [as_policy(p) for p in policies]
    schedulers = {str(c.scheduler) for c in compositions}
    if len(schedulers) != 1:
        raise ValueError(f"policies: one chunk takes one scheduler, got {sorted(schedulers)}")
    scheduler = schedulers.pop()
    net = _worker_network(document, batch, bytes_per_element, scheduler)
    schedule = net.schedule
    prepared = [c.prepare(schedule, ops_per_mac, net) for c in compositions]
    prepared, policy = _per_point(compositions, prepared, schedule, policy, capacity)
    out = _engine_columns(len(capacity))
    _run(
        schedule, capacity, bandwidth, throughput, policy, threads, ops_per_mac, None, out, prepared
    )
    return out


def _per_point(
    compositions: list[Any],
    prepared: list[_core.PreparedPolicy],
    schedule: _core.Schedule,
    policy: np.ndarray,
    capacity: np.ndarray,
) -> tuple[list[_core.PreparedPolicy], np.ndarray]:
    """The prepared policies and each point's index into them, with one prepared policy per
    capacity for the cache managers that need data per point (``lp-rounded``,
    :data:`dnnmem.policy.POINT_DATA`); unchanged when there is none."""
    if not any(c.cache.name in POINT_DATA for c in compositions):
        return prepared, policy
    prepared = list(prepared)
    policy = np.array(policy, dtype=np.int32)
    for j, c in enumerate(compositions):
        if c.cache.name not in POINT_DATA:
            continue
        at = np.flatnonzero(policy == j)
        for cap in np.unique(np.asarray(capacity)[at]):
            prepared.append(prepare_point(c, schedule, prepared[j], int(cap)))
            policy[at[np.asarray(capacity)[at] == cap]] = len(prepared) - 1
    return prepared, policy


def _derive(
    cols: Mapping[str, np.ndarray], hw: Hardware, options: Mapping[str, Any]
) -> dict[str, np.ndarray]:
    """Result's derived totals from the columns `cols` (arrays), with its arithmetic (int sums,
    then float division), and the report models' columns (:mod:`dnnmem.registry`) at ``hw``
    with their ``options``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = cols["time"]
        traffic = cols["link_in"] + cols["link_out"]
        d = {"avg_bandwidth": traffic / t}
        d["active_time"] = d["avg_bandwidth"] / cols["bandwidth"]
        d["utilization"] = cols["flops"] / (cols["throughput"] * t)
        d["samples_per_s"] = cols["batch"] / t
    d.update(registry.derive({**cols, **d}, hw, options))
    return d


class _Progress:
    """A tqdm bar shown only when the sweep lasts more than a second."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        if enabled and total > 0:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, delay=1.0, unit="pt", desc="dnnmem.sweep", leave=False)
        self.base = 0  # points finished in earlier groups / chunks

    def group(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(self.base + done - self.bar.n)

    def finish_group(self, n: int) -> None:
        self.base += n
        self.group(0)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


#: A value of a numeric axis (capacity, bandwidth, throughput) or a list of them: numbers in
#: base units or unit strings; NumPy arrays too; or a range ``{"start": "24MiB", "stop":
#: "1000MiB", "step": "2MiB"}`` (stop included when on the grid), as in a YAML sweep.
AxisValues = Union[str, float, Iterable[Union[str, float]], Mapping[str, Union[str, float]], None]


def sweep(
    network: NetworkLike | Iterable[NetworkLike] | None = None,
    capacity: AxisValues = None,
    bandwidth: AxisValues = None,
    throughput: AxisValues = None,
    batch: int | Iterable[int] | Mapping[str, int] | None = None,
    policy: PolicyLike | Iterable[PolicyLike] = "lookahead",
    *,
    fusion: str | Iterable[str] | None = None,
    points: pd.DataFrame | Iterable[Mapping[str, Any]] | None = None,
    hardware: Hardware | str | None = None,
    threads: int | None = None,
    progress: bool = True,
    executor: Executor | None = None,
    out: str | os.PathLike[str] | None = None,
    ops_per_mac: int = 2,
    on_interrupt: str = "return",
    chunk_size: int | None = None,
    energy: Any = None,
    speedup: bool = False,
    max_points: int | None = MAX_POINTS,
    bounds: bool | str = False,
) -> pd.DataFrame:
    """Estimate many design points: a Cartesian grid, or explicit ``points``.

    Parameters
    ----------
    network : name, Network, path, dict, or a list of them
        The networks (the ``network`` column holds each one's name).
    capacity, bandwidth, throughput : value, list of values, or range
        Bytes, bytes/s, FLOP/s, or unit strings (``"24MiB"``, ``"616GB/s"``, ``"13.45TFLOPS"``);
        a range is a dict ``{"start": "24MiB", "stop": "1000MiB", "step": "2MiB"}`` (exact
        integer steps, stop included when on the grid, as in a YAML sweep).
        Default: ``hardware``'s value (or :class:`Hardware`'s default).
    batch : int, list of int, or range, optional
        Mini-batch sizes (default: each network's own; 1 for a name or a file).
    policy : str, Policy, or a list of them
        Policies (default ``"lookahead"``): compositions of scheduler, cache manager, link and
        compute model, as :class:`dnnmem.Policy` objects or their string forms
        (``"split-backward + lru"``); see docs/policies.md. Two spellings of one policy are
        one policy. A policy that names no compute model takes ``hardware``'s. On a network
        that carries its own scheduler or fusion level (:meth:`Network.with_fusion`), a row's
        ``policy`` is the one that ran (:meth:`Policy.on_network`).
    fusion : str or list of str, optional
        Fusion levels (``none``, ``pointwise``, ``accelerator``; docs/model/fusion.md): an
        axis crossed with ``policy``, each policy taken at each level (default: each policy's
        own, ``none`` unless it names one). The ``fusion`` column holds each row's level.
    points : DataFrame or list of dicts, optional
        Explicit points instead of the grid, with columns among ``network``, ``batch``,
        ``policy``, ``capacity``, ``bandwidth``, ``throughput``; a missing column takes the
        (single) value of the keyword argument.
    hardware : Hardware or str, optional
        A design point or a preset's name (:func:`dnnmem.hardware`): default capacity, bandwidth and throughput (default: ``Hardware()``: 24 MiB,
        616 GB/s, 13.45 TFLOPS). Its ``precision`` (``dnnmem.hardware("a100",
        precision="bf16")``) also sets the element size of the networks given by name, file or
        document, as in :func:`dnnmem.estimate`.
    threads : int, optional
        Threads (default: all cores, or ``OMP_NUM_THREADS``). With an executor: threads
        per task (default 1, or the executor's ``threads`` attribute). At most
        ``_core.max_sweep_threads()`` (4 per processor; more is capped with a
        ``RuntimeWarning``) and never more than the points.
    progress : bool
        Show a tqdm progress bar if the sweep takes longer than a second.
    executor : concurrent.futures.Executor, optional
        Evaluate chunks of points on it (processes, threads, :func:`dnnmem.cluster.dask`).
    out : path, optional
        A Parquet file (``.parquet``): points already in it are not evaluated again (the key
        is the input columns), and the file is rewritten with every row, also after an
        interrupt. Needs pyarrow (the ``parquet`` extra) and an existing, writable folder,
        both checked before any point is evaluated. It is written once, at the end (to a
        temporary file next to it, then renamed): if that write fails (a full disk), the
        ``OSError`` names a copy of the rows written to the temporary folder instead.
    ops_per_mac : int
        FLOPs per multiply-accumulate: 2 (default) or 1.
    on_interrupt : {"return", "raise"}
        On Ctrl-C: return the finished rows with a :class:`SweepInterrupted` warning (default),
        or re-raise ``KeyboardInterrupt`` (after writing ``out``). Ctrl-C while the points are
        still being prepared returns no row (or re-raises).
    chunk_size : int, optional
        Points per executor task (default: about 8 tasks per worker, at least 64 points).
    energy : EnergyModel, optional
        The constants of the ``energy`` column (default :data:`dnnmem.energy.WAVECORE`), as in
        :func:`dnnmem.estimate`. Rows read back from ``out`` keep the energy they were written
        with.
    speedup : bool
        Add the columns ``baseline_time`` (s) and ``speedup`` (×): each point's time under the
        same policy with the cache manager ``none`` (nothing kept on chip), and that time over
        the point's (:attr:`dnnmem.Result.speedup`). The baseline points are evaluated in a
        second sweep, not written to ``out``.
    bounds : bool or {"lagrangian", "lp"}
        Add the columns ``traffic_lower_bound`` (bytes), ``time_lower_bound`` (s),
        ``traffic_gap`` and ``time_gap`` (result / bound − 1): lower bounds on the traffic and
        time any plan could reach at each point, and how far the point's policy is from them
        (:mod:`dnnmem.optimal`, docs/model/optimal.md). ``True`` or ``"lagrangian"``: the
        Lagrangian bounds (the C++ core; milliseconds a point, seconds for GNMT); ``"lp"``:
        the LP relaxations, tighter by at most a few tenths of a percent in traffic and more
        in time, solved by HiGHS (the ``optimal`` extra; up to minutes a point). One bound is
        computed per distinct schedule and capacity (and hardware, for time).
    max_points : int or None
        The most points the grid may have (default :data:`MAX_POINTS`, a million): a larger
        grid is refused before it is built, naming its size and axes. A point takes about
        1.5 kB of memory while the sweep runs (a million: about 1.5 GB), so a grid of 10^4
        capacities × 10^4 bandwidths would need 150 GB. Split such a sweep (several calls can
        share one ``out`` file), or raise the limit if the memory is there; ``None`` lifts it.
        ``points`` are not counted against it (they are in memory already).

    Returns
    -------
    pandas.DataFrame
        One row per point, in grid order (capacity fastest) or in the order of ``points``:
        the input columns (``policy`` holds each policy's string form), one column per part
        (``scheduler``, ``cache``, ``link``, ``compute``) and one per option that some policy
        of the sweep sets (``<part>_<option>``, NaN / None where another policy leaves it at
        its default), then every total of :meth:`Result.to_dict` with the same name and unit,
        ``flops``, the plan counts ``kept``, ``prefetched``, ``born``, ``offloads``, and the
        pinning managers' ``pinned`` (tensors), ``pinned_bytes``, ``recompute_time`` (s).
        ``df.attrs["evaluated"]`` is the number of points evaluated by this call,
        ``df.attrs["reused"]`` the number read back from ``out`` (a resumed sweep),
        ``df.attrs["points"]`` the number the sweep asked for (the rows of a complete run;
        ``None`` when interrupted before the grid was built), ``df.attrs["interrupted"]``
        whether Ctrl-C stopped it (``on_interrupt="return"``), ``df.attrs["units"]`` the unit
        of each column (``{"time": "s", "capacity": "bytes", ...}``,
        :data:`dnnmem.units.COLUMN_UNITS`).

    Raises
    ------
    ValueError, TypeError
        Naming the argument for a bad value; ``ValueError`` also for a grid of more than
        ``max_points`` points and for a network too large to count exactly at a batch
        (``docs/estimator.md``, "Limits").
    RuntimeError
        When a thread cannot be started (the sweep stops; the process carries on).
    """
    if on_interrupt not in ("return", "raise"):
        raise ValueError(f"on_interrupt: must be 'return' or 'raise', got {on_interrupt!r}")
    if fusion is not None:
        policy = _fusion_axis(policy, fusion)
    options = registry.check_options({"energy": energy})  # the report models' (docs: registry)
    if ops_per_mac not in (1, 2) or isinstance(ops_per_mac, bool):
        raise ValueError(f"ops_per_mac: must be 1 or 2, got {ops_per_mac!r}")
    nthreads = _check_threads(threads)
    if max_points is not None and (
        isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1
    ):
        raise ValueError(f"max_points: must be an integer >= 1 or None, got {max_points!r}")
    if executor is not None and not isinstance(executor, Executor):
        raise TypeError(_not_an_executor(executor))
    if bounds is not False and bounds not in (True, "lagrangian", "lp"):
        raise ValueError(f"bounds: expected True, False, 'lagrangian' or 'lp', got {bounds!r}")
    if bounds == "lp":  # before the work, not after it
        require("highspy", "sweep(bounds='lp')")
    if out is not None:  # before the work, not after it
        _check_out(out)
        require("pyarrow", "out= (a Parquet file)", "fastparquet")
    if nthreads > 1 and executor is None and not _core.openmp_enabled():
        # Said here, at run time: pip shows CMake's warning of a build without OpenMP only with -v.
        warnings.warn(
            "dnnmem was built without OpenMP: this sweep runs on one core (install "
            "OpenMP and rebuild dnnmem for parallel sweeps)",
            RuntimeWarning,
            stacklevel=2,
        )
    # A preset's name: dnnmem.hardware(name). With a capacity axis, the preset's capacity is not
    # used, and may be unpublished (b200): any value stands in for it.
    hardware = as_hardware(hardware, **({} if capacity is None else {"capacity": 0}))
    if hardware is not None and not isinstance(hardware, Hardware):
        raise TypeError(f"hardware: expected dnnmem.Hardware, got {type(hardware).__name__}")
    hw = hardware or Hardware()
    pols = _Policies(hw.compute)
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1
    ):
        raise ValueError(f"chunk_size: must be an integer >= 1, got {chunk_size!r}")
    # Ctrl-C while the grid and the schedules are prepared (seconds for large networks) counts
    # like one during the evaluation: nothing is evaluated yet, so "return" gives no row.
    try:
        prepared = _prepare(
            network,
            capacity,
            bandwidth,
            throughput,
            batch,
            policy,
            points,
            hw,
            ops_per_mac,
            out,
            pols,
            max_points,
        )
    except KeyboardInterrupt:
        if on_interrupt == "raise":
            raise
        again = (
            f"; run it again to start it (out={os.fspath(out)!r} is as it was)"
            if out is not None
            else ""
        )
        warnings.warn(
            SweepInterrupted(
                f"sweep interrupted while preparing the points: no point was evaluated{again}"
            ),
            stacklevel=2,
        )
        df = pd.DataFrame({c: [] for c in INPUT_COLUMNS + RESULT_COLUMNS})
        df.attrs.update(evaluated=0, reused=0, points=None, interrupted=True)
        df.attrs["units"] = column_units(df.columns)
        return df
    grid, key_of, row_flops, previous, todo, scheduler = prepared

    results = _engine_columns(len(grid))
    results["done"][:] = ~todo
    cap = grid["capacity"].to_numpy()
    bw = grid["bandwidth"].to_numpy()
    thr = grid["throughput"].to_numpy()
    labels = grid["policy"].to_numpy(object)
    pol = np.zeros(len(grid), dtype=np.int32)  # index into its group's policies
    groups = []
    net_col, batch_col = grid["network"].to_numpy(), grid["batch"].to_numpy()
    for k in key_of:
        idx = np.flatnonzero(todo & (net_col == k[0]) & (batch_col == k[1]) & (scheduler == k[2]))
        if not len(idx):
            continue
        names = list(dict.fromkeys(labels[idx]))
        pol[idx] = pd.Index(names).get_indexer(labels[idx])
        groups.append((k, idx, names))
    ready = {
        k: [pols.by_label[n].prepare(key_of[k].schedule, ops_per_mac, key_of[k]) for n in names]
        for k, _, names in groups
    }
    bar = _Progress(int(todo.sum()), progress)
    interrupted = False
    try:
        if executor is None:
            for k, idx, names in groups:
                part = _engine_columns(len(idx))
                ready_k, pol_k = _per_point(
                    [pols.by_label[n] for n in names],
                    ready[k],
                    key_of[k].schedule,
                    pol[idx],
                    cap[idx],
                )
                try:
                    _run(
                        key_of[k].schedule,
                        cap[idx],
                        bw[idx],
                        thr[idx],
                        pol_k,
                        nthreads,
                        ops_per_mac,
                        bar.group,
                        part,
                        ready_k,
                    )
                finally:
                    for c, v in part.items():
                        results[c][idx] = v
                bar.finish_group(len(idx))
        else:
            _run_executor(
                executor,
                groups,
                key_of,
                cap,
                bw,
                thr,
                pol,
                threads,
                ops_per_mac,
                chunk_size,
                results,
                bar,
            )
    except KeyboardInterrupt:
        interrupted = True
        if on_interrupt == "raise":
            _finish(grid, results, todo, previous, out, row_flops, pols, hw, options)
            raise
    finally:
        bar.close()
    df = _finish(grid, results, todo, previous, out, row_flops, pols, hw, options)
    if speedup and len(df) and not interrupted:
        df = _with_speedup(df, network, hw, threads, ops_per_mac, pols)
    elif speedup:  # interrupted: the columns are there, without values
        df = df.assign(baseline_time=np.nan, speedup=np.nan)
    if bounds and len(df) and not interrupted:
        from .optimal import with_bounds

        method = bounds if isinstance(bounds, str) else None
        df = with_bounds(df, key_of, pols.by_label, ops_per_mac, method)
    elif bounds:
        df = df.assign(
            traffic_lower_bound=np.nan, time_lower_bound=np.nan, traffic_gap=np.nan, time_gap=np.nan
        )
    df.attrs["units"] = column_units(df.columns)
    df.attrs.update(reused=int((~todo).sum()), points=len(grid), interrupted=interrupted)
    if interrupted:
        warnings.warn(SweepInterrupted(_interrupted_message(len(df), len(grid), out)), stacklevel=2)
    return df


def _interrupted_message(done: int, points: int, out: str | os.PathLike[str] | None) -> str:
    """What :class:`SweepInterrupted` says: how many points finished, where they are, and how to
    go on from there."""
    head = f"sweep interrupted: returning the {done} of {points} points that finished"
    if out is None:
        return (
            f"{head}; to keep finished points across runs, pass out='results.parquet': a run "
            f"with the same out= evaluates only the points not in it yet"
        )
    path = os.fspath(out)
    return (
        f"{head}; they are in out={path!r}: run the same sweep with out={path!r} again to "
        f"resume (only the other {points - done} points are evaluated)"
    )


def _with_speedup(
    df: pd.DataFrame,
    network: Any,
    hw: Hardware,
    threads: int | None,
    ops_per_mac: int,
    pols: _Policies,
) -> pd.DataFrame:
    """``df`` with ``baseline_time`` and ``speedup``: its points again with the cache manager
    ``none`` (the same scheduler, link and compute model, the same hardware) in one sweep."""
    base_of = {label: str(pols.by_label[label].replace(cache="none")) for label in pols.by_label}
    points = df[INPUT_COLUMNS].copy()
    for c in ("network", "policy"):
        points[c] = points[c].astype(str)
    points["policy"] = points["policy"].map(base_of)
    unique = points.drop_duplicates().reset_index(drop=True)
    base = sweep(
        network,
        points=unique,
        hardware=hw,
        threads=threads,
        progress=False,
        ops_per_mac=ops_per_mac,
        on_interrupt="raise",
    )
    key = base[INPUT_COLUMNS].astype({"network": str, "policy": str})
    times = dict(zip(map(tuple, key.to_numpy()), base["time"].to_numpy()))
    t = np.array([times[tuple(r)] for r in points.to_numpy()], dtype=np.float64)
    df = df.copy()
    df["baseline_time"] = t
    df["speedup"] = t / df["time"].to_numpy()
    return df


def _prepare(
    network: Any,
    capacity: Any,
    bandwidth: Any,
    throughput: Any,
    batch: Any,
    policy: Any,
    points: Any,
    hw: Hardware,
    ops_per_mac: int,
    out: str | os.PathLike[str] | None,
    pols: _Policies,
    max_points: int | None = None,
) -> tuple:
    """The points of a sweep: (grid, scheduled networks by (name, batch, scheduler), FLOPs per
    row, the rows of `out` already there, which rows to evaluate, each row's scheduler). Builds
    every schedule."""
    nets = _Networks(network, hw.bytes_per_element)
    if points is None:
        _check_range_length(
            {
                "capacity": capacity,
                "bandwidth": bandwidth,
                "throughput": throughput,
                "batch": batch,
            },
            max_points,
        )
    axes = {
        "capacity": _values("capacity", hw.capacity if capacity is None else capacity),
        "bandwidth": _values("bandwidth", hw.bandwidth if bandwidth is None else bandwidth),
        "throughput": _values("throughput", hw.throughput if throughput is None else throughput),
        "batch": _values("batch", batch),
        "policy": _values("policy", policy),
    }
    if points is None:
        if not nets.sources:
            raise ValueError("network: no network given")
        for name in ("capacity", "bandwidth", "throughput"):
            axes[name] = list(dict.fromkeys(_parse_field(name, axes[name])))
        # A value given twice is one point, as for the hardware axes above (two spellings of
        # one policy too).
        axes["policy"] = list(dict.fromkeys(pols.label(p) for p in axes["policy"]))
        axes["batch"] = list(
            dict.fromkeys(None if b is None else _check_batch(b) for b in axes["batch"])
        )
        _check_grid_size(nets, axes, max_points)  # before the grid's rows are built
        grid, code, group_nets, label_code = _cartesian(nets, axes)
        label_values = axes["policy"]
        # The network and policy columns' codes and values in order of first appearance (as
        # pd.factorize gives them), for the DataFrame's categoricals (_assemble_fresh).
        name_code, name_values = pd.factorize(np.array([g.name for g in group_nets], dtype=object))
        codes = {
            "network": (name_code[code], tuple(name_values)),
            "policy": (label_code, tuple(label_values)),
        }
    else:
        defaults: dict[str, Any] = {**axes, "network": list(nets.sources) or [None]}
        given = (("capacity", capacity), ("bandwidth", bandwidth), ("throughput", throughput))
        grid = _explicit(points, defaults, {k for k, v in given if v is not None})
        for name in ("capacity", "bandwidth", "throughput"):
            grid[name] = _parse_field(name, grid[name])
        grid["policy"] = [pols.label(p) for p in grid["policy"]]
        grid["batch"] = [
            None if b is None or (isinstance(b, float) and math.isnan(b)) else _check_batch(b)
            for b in grid["batch"]
        ]
        # Resolve each (network, batch) once: the batch column holds the batch used.
        # Groups numbered in order of first appearance (as a groupby's ngroup, sort=False, NaN a
        # group), from the two columns' codes.
        names = grid["network"].astype(object)
        batches = grid["batch"].astype(object)
        by_name = pd.factorize(names, use_na_sentinel=False)[0]
        by_batch, batch_values = pd.factorize(batches, use_na_sentinel=False)
        code = pd.factorize(by_name * max(len(batch_values), 1) + by_batch)[0]
        first_row = np.unique(code, return_index=True)[1]
        group_nets = [
            nets.get(names.iat[i], None if pd.isna(batches.iat[i]) else int(batches.iat[i]))
            for i in first_row
        ]
        grid["network"] = np.array([n.name for n in group_nets], dtype=object)[code]
        grid["batch"] = np.array([n.batch for n in group_nets], dtype=np.int64)[code]
        grid["capacity"] = grid["capacity"].astype(np.int64)
        grid["bandwidth"] = grid["bandwidth"].astype(np.float64)
        grid["throughput"] = grid["throughput"].astype(np.float64)
        label_code = None  # (below, once the policies are those that run)
        codes = None
    for n in group_nets:
        check_element_size(hw, n, stacklevel=4)
    # A network that carries its own scheduler (Network.with_scheduler / with_fusion) runs
    # each policy as Policy.on_network makes it: the row's policy becomes the one that ran.
    for g, net in enumerate(group_nets):
        if net.scheduler == "default":
            continue
        label_code = None  # the policy column's codes change
        rows = np.flatnonzero(code == g)
        labels = grid["policy"].to_numpy(object)[rows]
        run_as = {v: pols.label(pols.by_label[v].on_network(net.scheduler)) for v in set(labels)}
        grid.loc[grid.index[rows], "policy"] = [run_as[v] for v in labels]
    # Each (network, batch) group splits by scheduler: one schedule per (network, batch,
    # scheduler), the policies of that sub-group prepared once for it.
    sched_of = {label: str(c.scheduler) for label, c in pols.by_label.items()}
    if label_code is None:
        label_code, label_values = pd.factorize(grid["policy"], use_na_sentinel=False)
        if codes is not None:
            codes["policy"] = (label_code, tuple(label_values))
    scheduler = np.array([sched_of.get(v, np.nan) for v in label_values], dtype=object)[label_code]
    key_of: dict[tuple[str, int, str], Network] = {}
    row_flops = np.zeros(len(grid), dtype=np.int64)
    row_schedule = {
        "groups": np.zeros(len(grid), dtype=np.int64),
        "sub_batches": np.full(len(grid), "", dtype=object),
        "gb_bytes": np.zeros(len(grid), dtype=np.int64),
        "macs": np.zeros(len(grid), dtype=np.int64),
    }
    for g, net in enumerate(group_nets):
        rows = code == g
        for s in dict.fromkeys(scheduler[rows]):
            scheduled = net.with_scheduler(s)
            _check_has_steps(scheduled)
            key_of[(net.name, net.batch, s)] = scheduled
            these = rows & (scheduler == s)
            row_flops[these] = scheduled.schedule.total_ops(ops_per_mac)
            for c, v in schedule_columns(scheduled).items():
                row_schedule[c][these] = v

    # Resume: rows of `out` with the same key are reused.
    previous = None
    todo = np.ones(len(grid), dtype=bool)
    if out is not None:
        previous = _read_previous(out)
        if previous is not None and len(previous):
            found = (
                grid.merge(
                    previous[INPUT_COLUMNS].drop_duplicates().assign(_found=True),
                    on=INPUT_COLUMNS,
                    how="left",
                )["_found"]
                .fillna(False)
                .to_numpy(bool)
            )
            todo = ~found
    return grid, key_of, (row_flops, row_schedule, codes), previous, todo, scheduler


def _cartesian(
    nets: _Networks, axes: Mapping[str, list]
) -> tuple[pd.DataFrame, np.ndarray, list, np.ndarray]:
    """The Cartesian grid of :func:`_prepare` (capacity fastest, then throughput, bandwidth,
    policy, and each network at each batch), its rows' (network, batch) group numbers in order
    of first appearance, each group's network at its batch resolved, and the rows' indices
    into ``axes["policy"]`` (distinct labels). The columns hold what the explicit points' path
    leaves (the batch used, int64 capacities, float64 rates), built from the axes with NumPy
    index arithmetic as one DataFrame: no column of a Python object per point inferred and
    converted (a third of the Python path's cost on the thesis grid's ResNet-50 part)."""
    pairs = [
        (label, b)
        for label in nets.sources
        for b in (nets.batches.get(label, [None]) if axes["batch"] == [None] else axes["batch"])
    ]
    # (network, batch) pairs are distinct, so each is a group, numbered in order.
    group_nets = [nets.get(label, b) for label, b in pairs]
    sizes = [len(pairs), len(axes["policy"]), len(axes["bandwidth"]), len(axes["throughput"])]
    n = len(axes["capacity"])
    total = math.prod(sizes) * n
    index = []  # each row's index into each outer axis
    inner = n
    for size in reversed(sizes):
        index.append(np.tile(np.repeat(np.arange(size), inner), total // (size * inner)))
        inner *= size
    thr_i, bw_i, pol_i, code = index
    grid = pd.DataFrame(
        {
            "network": np.array([g.name for g in group_nets], dtype=object)[code],
            "batch": np.array([g.batch for g in group_nets], dtype=np.int64)[code],
            "policy": np.array(axes["policy"], dtype=object)[pol_i],
            "capacity": np.tile(np.asarray(axes["capacity"], dtype=np.int64), total // max(n, 1)),
            "bandwidth": np.asarray(axes["bandwidth"], dtype=np.float64)[bw_i],
            "throughput": np.asarray(axes["throughput"], dtype=np.float64)[thr_i],
        }
    )
    return grid, code, group_nets, pol_i


def _run_executor(
    executor: Executor,
    groups: list,
    key_of: dict,
    cap: np.ndarray,
    bw: np.ndarray,
    thr: np.ndarray,
    pol: np.ndarray,
    threads: int | None,
    ops_per_mac: int,
    chunk_size: int | None,
    results: dict,
    bar: _Progress,
) -> None:
    from concurrent.futures import FIRST_COMPLETED, wait

    per_task = _check_threads(
        threads if threads is not None else getattr(executor, "threads", None) or 1
    )
    size = chunk_size or getattr(executor, "chunk_size", None)
    if size is None:
        total = sum(len(idx) for _, idx, _ in groups)
        workers = getattr(executor, "_max_workers", None) or os.cpu_count() or 1
        size = max(64, math.ceil(total / (8 * workers)))
    futures: dict[Any, np.ndarray] = {}
    for k, idx, names in groups:
        net = key_of[k]
        doc = net.to_json()
        for start in range(0, len(idx), size):
            part = idx[start : start + size]
            f = executor.submit(
                evaluate_chunk,
                doc,
                net.batch,
                net.bytes_per_element,
                cap[part],
                bw[part],
                thr[part],
                pol[part],
                per_task,
                ops_per_mac,
                tuple(names),
            )
            futures[f] = part
    pending = set(futures)
    try:
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for f in finished:
                part = futures[f]
                for c, v in f.result().items():
                    results[c][part] = v
                bar.base += len(part)
                bar.group(0)
    except BaseException:
        for f in pending:
            f.cancel()
        raise


def _not_an_executor(value: object) -> str:
    # A Dask client has submit() too, but its futures are not concurrent.futures'.
    hint = (
        ": wrap it, executor=dnnmem.cluster.dask(client)"
        if type(value).__module__.split(".")[0] == "distributed"
        else ""
    )
    return f"executor: expected a concurrent.futures.Executor, got {type(value).__name__}{hint}"


def _check_out(out: str | os.PathLike[str]) -> None:
    """Refuse an ``out=`` the sweep could not write, before any point is evaluated."""
    path = os.fspath(out)
    if not path.lower().endswith(".parquet"):
        raise ValueError(
            f"out: {path!r} must be a .parquet file (it is written as Parquet); for a CSV, "
            f"write the returned DataFrame: dnnmem.sweep(...).to_csv(path)"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"out: the folder {folder!r} of {path!r} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"out: the folder {folder!r} of {path!r} is not writable")


def _read_previous(out: str | os.PathLike[str]) -> pd.DataFrame | None:
    if not os.path.exists(out):
        return None
    try:
        df = pd.read_parquet(out)
    except Exception as e:  # pyarrow's own errors (ArrowInvalid, OSError, ...)
        raise ValueError(
            f"out: cannot read {os.fspath(out)!r} as the Parquet file of a sweep "
            f"({type(e).__name__}: {e}); delete it or pass another out="
        ) from None
    missing = [c for c in INPUT_COLUMNS + RESULT_COLUMNS if c not in df.columns]
    if missing:
        if "time" in df.columns and "traffic_in" in df.columns:
            raise ValueError(
                f"out: {os.fspath(out)!r} was written by an older dnnmem (no column(s) "
                f"{missing}); delete it or pass another out="
            )
        raise ValueError(f"out: {os.fspath(out)!r} is not a dnnmem sweep (no column(s) {missing})")
    df = df[INPUT_COLUMNS + RESULT_COLUMNS].copy()
    df["network"] = df["network"].astype(str)
    df["policy"] = df["policy"].astype(str)
    return df


def _fusion_axis(
    policy: PolicyLike | Iterable[PolicyLike], fusion: str | Iterable[str]
) -> list[Policy]:
    """Each policy at each fusion level (the ``fusion=`` axis of :func:`sweep`)."""
    levels = [fusion] if isinstance(fusion, str) else list(fusion)
    if not levels:
        raise ValueError("fusion: expected a level or a list of levels, got an empty list")
    for level in levels:
        if not isinstance(level, str) or level not in FUSION_LEVELS:
            raise ValueError(
                f"fusion: must be one of {', '.join(FUSION_LEVELS)}, got {level!r} "
                "(docs/model/fusion.md)"
            )
    given = [policy] if isinstance(policy, (str, Policy)) else list(policy)
    return [as_policy(p).replace(fusion=level) for p in given for level in levels]


#: The columns a sweep gives as int64 (whatever the engine's, the grid's or a resumed file's).
_INT_RESULTS = (
    "traffic_in",
    "traffic_out",
    "link_in",
    "link_out",
    "flops",
    "kept",
    "prefetched",
    "born",
    "offloads",
    "pinned",
    "pinned_bytes",
    "capacity",
    "batch",
    *[f"traffic_{d}_{r}" for d in ("in", "out") for r in ROLES],
    "groups",
    "gb_bytes",
    "macs",
)


#: The part columns a sweep gives as categoricals (both paths of _finish).
_CATEGORICAL_PARTS = (*KINDS, "fusion")


def _part_table(pols: _Policies) -> pd.DataFrame:
    """One row per policy label, one column per part and per option that some policy sets."""
    rows = {label: c.columns() for label, c in pols.by_label.items()}
    names: list[str] = []
    for cols in rows.values():
        names += [n for n in cols if n not in names]
    order = {k: i for i, k in enumerate(("scheduler", "fusion", *KINDS[1:]))}
    names.sort(key=lambda n: (order[n.split("_", 1)[0]], n.count("_") > 0))
    return pd.DataFrame.from_dict(
        {label: [cols.get(n) for n in names] for label, cols in rows.items()},
        orient="index",
        columns=names,
    )


def _part_columns(policy: pd.Series, pols: _Policies) -> pd.DataFrame:
    """One column per part and per option that some policy sets, from the policy labels."""
    table = _part_table(pols)
    return table.reindex(policy.astype(str).to_numpy()).reset_index(drop=True)


@lru_cache(maxsize=256)
def _categories(values: tuple[str, ...]) -> pd.CategoricalDtype:
    # (Building a CategoricalDtype costs ~0.5 ms, more than the codes of 2,000 rows.)
    return pd.CategoricalDtype(list(values))


def _first_seen(codes: np.ndarray) -> np.ndarray:
    """The distinct values of ``codes`` in the order of their first appearance."""
    u, first = np.unique(codes, return_index=True)
    return u[np.argsort(first)]


def _assemble_fresh(
    grid: pd.DataFrame,
    fresh: np.ndarray,
    cols: dict[str, np.ndarray],
    pols: _Policies,
    codes: Mapping[str, tuple[np.ndarray, tuple]] | None = None,
) -> pd.DataFrame:
    """:func:`_finish`'s DataFrame when all its rows are fresh and none is written: the same
    columns, dtypes, categories and values as the general path there, built as one DataFrame
    from arrays (the general path's concatenations, label reindexing and categoricals from
    strings were half of a ResNet-50 sweep's Python time). The categoricals come from integer
    codes: ``network`` and ``policy`` with the grid's values in order of first appearance (as
    ``pd.unique(grid[c])``; ``codes``, when given, holds them as ``pd.factorize(grid[c])``
    would: factorizing a column of strings cost 0.75 ms), each part's column with its rows'
    values in order of first appearance (as ``pd.unique(df[c])``). ``tests/python/test_sweep.py``
    compares the two paths."""
    code: dict[str, np.ndarray] = {}
    data: dict[str, Any] = {}
    for c in ("network", "policy"):
        # uniques in order of first appearance
        k, uniques = codes[c] if codes is not None else pd.factorize(grid[c])
        code[c] = k[fresh]
        data[c] = pd.Categorical.from_codes(
            code[c], dtype=_categories(tuple(uniques)), validate=False
        )
    labels = list(data["policy"].categories)
    table = _part_table(pols)
    row_of = table.index.get_indexer(labels)  # each policy category's row of the table
    parts = table.iloc[row_of[code["policy"]]]
    seen = _first_seen(code["policy"])  # the policy categories in the rows' order
    at = INPUT_COLUMNS.index("policy") + 1
    frame: dict[str, Any] = {c: data.get(c, cols.get(c)) for c in INPUT_COLUMNS[:at]}
    for c in parts.columns:  # arrays, not Series: a Series makes the DataFrame align indexes
        if c in _CATEGORICAL_PARTS:
            per_label = table[c].to_numpy(object)[row_of]
            cats = list(dict.fromkeys(per_label[seen]))
            at_cat = {v: j for j, v in enumerate(cats)}
            value_code = np.array([at_cat.get(v, -1) for v in per_label], dtype=np.int64)
            frame[c] = pd.Categorical.from_codes(
                value_code[code["policy"]], dtype=_categories(tuple(cats)), validate=False
            )
        else:
            frame[c] = parts[c].array
    frame.update({c: cols[c] for c in INPUT_COLUMNS[at:]})
    for c in RESULT_COLUMNS:
        v = cols[c]
        frame[c] = v.astype(np.int64) if c in _INT_RESULTS and v.dtype != np.int64 else v
    return pd.DataFrame(frame)


def _finish(
    grid: pd.DataFrame,
    results: dict,
    todo: np.ndarray,
    previous: pd.DataFrame | None,
    out: Any,
    row_flops: tuple[np.ndarray, dict[str, np.ndarray], dict | None],
    pols: _Policies,
    hw: Hardware,
    options: Mapping[str, Any],
) -> pd.DataFrame:
    """The DataFrame of the finished points, in grid order; writes `out`."""
    fresh = todo & results["done"]
    base = grid[fresh]
    # The result columns as arrays, joined to the input columns once: inserting ~45 columns one
    # at a time made pandas rebuild its layout each time (a third of a small sweep's run).
    cols = {name: results[c][fresh] for c, name in _ENGINE.items()}
    cols["flops"] = row_flops[0][fresh]
    for c in _SCHEDULE_COLUMNS:
        cols[c] = row_flops[1][c][fresh]
    for c in ("capacity", "bandwidth", "throughput", "batch"):
        cols[c] = base[c].to_numpy()
    cols.update(_derive(cols, hw, options))
    reuse = previous is not None and len(previous) and (~todo).any()
    if out is None and not reuse and len(base):
        df = _assemble_fresh(grid, fresh, cols, pols, row_flops[2])
        df.attrs["evaluated"] = len(df)
        return df
    new = pd.concat(
        [base, pd.DataFrame({c: cols[c] for c in RESULT_COLUMNS}, index=base.index)], axis=1
    )[INPUT_COLUMNS + RESULT_COLUMNS]
    if previous is not None and len(previous) and (~todo).any():
        old = grid[~todo].merge(
            previous.drop_duplicates(INPUT_COLUMNS), on=INPUT_COLUMNS, how="left"
        )
        old.index = grid.index[~todo]
        df = pd.concat([old, new]).sort_index()
    else:
        df = new
    df = df.reset_index(drop=True)
    for c in _INT_RESULTS:
        if df[c].dtype != np.int64:  # (an assignment per column costs ~0.3 ms)
            df[c] = df[c].astype(np.int64)
    if out is not None:
        _write(out, previous, df)
    parts = _part_columns(df["policy"], pols)
    at = INPUT_COLUMNS.index("policy") + 1
    df = pd.concat([df.iloc[:, :at], parts, df.iloc[:, at:]], axis=1)
    # pd.unique keeps the order of first appearance, as dict.fromkeys would, without iterating
    # the (Arrow-backed) column in Python: 35,000 rows took 40 ms that way.
    for c in ("network", "policy"):
        df[c] = pd.Categorical(df[c], categories=list(pd.unique(grid[c])))
    for c in _CATEGORICAL_PARTS:
        df[c] = pd.Categorical(df[c], categories=list(pd.unique(df[c])))
    df.attrs["evaluated"] = len(new)
    return df


def _write(out: str | os.PathLike[str], previous: pd.DataFrame | None, df: pd.DataFrame) -> None:
    """Every row of the file and of this sweep, atomically (a crash leaves the old file)."""
    rows = (
        df
        if previous is None
        else pd.concat([previous, df]).drop_duplicates(INPUT_COLUMNS, keep="last")
    )
    rows = rows.reset_index(drop=True)
    rows["network"] = rows["network"].astype(str)
    rows["policy"] = rows["policy"].astype(str)
    _write_rows(
        rows,
        out,
        lambda d, path: d.to_parquet(path, index=False),
        "out",
        whose=" (the file's and this sweep's)",
        more=", or pass it as out= to resume from it",
    )


def _write_rows(
    rows: pd.DataFrame,
    out: str | os.PathLike[str],
    write: Callable[[pd.DataFrame, str], object],
    name: str,
    *,
    whose: str = "",
    more: str = "",
) -> None:
    """Write ``rows`` to ``out`` with ``write(rows, path)``, through a temporary file next to
    it, flushed and renamed (:func:`dnnmem._files.replace_atomically`: a write that fails leaves
    ``out`` as it was). When it fails after the work (the disk full, the folder removed or made
    read-only meanwhile), the rows go to a copy in the temporary folder
    (``tempfile.gettempdir()``, often another disk) and the ``OSError`` names it (``name``: the
    argument; ``whose``, ``more``: said of the rows and the copy)."""
    path = os.fspath(out)
    try:
        replace_atomically(path, lambda tmp: write(rows, tmp))
    except Exception as e:
        what = f"{name}: could not write {path!r}: {reason(e)}"
        copy = None
        try:
            fd, copy = tempfile.mkstemp(prefix="dnnmem-sweep-", suffix=os.path.splitext(path)[1])
            os.close(fd)
            write(rows, copy)
        except Exception as e2:
            if copy is not None:
                with contextlib.suppress(OSError):
                    os.remove(copy)
            raise OSError(
                f"{what}; nor could a copy be written to the temporary folder "
                f"{tempfile.gettempdir()!r} ({reason(e2)}): the {len(rows)} rows "
                f"are lost ({path!r} is as it was)"
            ) from e
        raise OSError(
            f"{what}; its {len(rows)} rows{whose} are in {copy!r}: move that file to {path!r}{more}"
        ) from e

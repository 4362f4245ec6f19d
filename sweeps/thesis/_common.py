"""What every thesis-figure script shares: the thesis's setup, the sweep, the cache, the output.

The setup is the thesis's Chapter 5 (Tsai, "A Performance Analytical Model for DNN Training
with Focus on Memory Subsystem", master's thesis, National Taiwan University, 2021): Table 5.1
(workloads and batch sizes), Table 5.2 (hardware), capacities from 24 MiB to 1000 MiB in 2 MiB
steps. Every script in this folder has ``compute(small=False) -> DataFrame`` (cached under ``results/thesis/``,
keyed by its parameters and the dnnmem version) and ``plot(df) -> Figure`` (saved as
``figures/<name>.png``); ``--small`` is the CI mode (seven capacities, small batches).

Every grid goes through :func:`run_sweep` (``dnnmem.sweep``: one schedule per network and
batch, the points in parallel).

Every script runs under a *reading* (``--reading``): ``default`` (dnnmem's defaults: 2 FLOPs
per MAC, the networks of the original papers) or ``thesis`` (:func:`dnnmem.thesis_reading`:
1 FLOP per MAC, ``gnmt_thesis``, ``transformer_thesis``). The workloads keep their Table 5.1
names in every table; the thesis reading's results are cached under their own keys and its
figures are written as ``figures/<name>_thesis.png``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPO = Path(__file__).resolve().parents[2]
#: Where ``compute`` caches its DataFrames and ``plot`` writes its PNGs (both git-ignored);
#: module attributes so a test can point them at a temporary directory. ``DNNMEM_RESULTS_DIR``
#: (the notebooks' test sets it) moves the cache to ``$DNNMEM_RESULTS_DIR/thesis``.
RESULTS_DIR = Path(os.environ.get("DNNMEM_RESULTS_DIR", REPO / "results")) / "thesis"
FIGURES_DIR = REPO / "figures"

MIB = 2**20
GB_S = 1e9
TFLOPS = 1e12

# Thesis Table 5.2 (peak FP32 FLOP/s, off-chip bandwidth). Figures mix these: each script
# follows its caption. "Unless specified, all experiments use the RTX 2080 Ti configuration."
RTX_2080_TI = {"throughput": 13.45 * TFLOPS, "bandwidth": 616 * GB_S}
RADEON_6900_XT = {"throughput": 23.04 * TFLOPS, "bandwidth": 512 * GB_S}
A100 = {"throughput": 19.45 * TFLOPS, "bandwidth": 1555 * GB_S}

# Thesis Table 5.1: the four workloads and their batch sizes N.
WORKLOADS: dict[str, int] = {"resnet50": 32, "mobilenet_v2": 32, "gnmt": 32, "transformer": 128}

#: "from 24 MB to 1000 MB with 2 MB per step" (thesis 5.3); MB there is MiB (SPEC §4).
FULL_CAPACITIES: list[int] = [c * MIB for c in range(24, 1001, 2)]
#: CI mode: the capacities the report's tables quote, nothing else.
SMALL_CAPACITIES: list[int] = [c * MIB for c in (24, 128, 296, 400, 442, 500, 1000)]

POLICY = "lookahead"

READINGS = ("default", "thesis")
#: The reading every script runs under (``--reading``; :func:`set_reading`).
READING = "default"


def set_reading(name: str) -> None:
    """Run the scripts under ``name`` (one of :data:`READINGS`) from now on."""
    global READING
    if name not in READINGS:
        raise ValueError(f"reading: {name!r} is not one of {list(READINGS)}")
    READING = name


def reading() -> dnnmem.ThesisReading:
    """The current reading as a :class:`dnnmem.ThesisReading`."""
    return dnnmem.thesis_reading() if READING == "thesis" else dnnmem.default_reading()


def ops_per_mac() -> int:
    """FLOPs per multiply-accumulate under the current reading."""
    return reading().ops_per_mac


def capacities(small: bool) -> list[int]:
    """The capacity grid in bytes: 489 points, or the seven the tables quote in CI mode."""
    return list(SMALL_CAPACITIES if small else FULL_CAPACITIES)


def workloads() -> list[str]:
    """Table 5.1's networks, in its order; raise naming any that is not built in."""
    missing = [n for n in WORKLOADS if n not in dnnmem.networks()]
    if missing:
        raise ValueError(
            f"network: {missing} not among dnnmem.networks(); the thesis figures "
            f"need all of {list(WORKLOADS)}"
        )
    return list(WORKLOADS)


def load(name: str, batch: int, bytes_per_element: int = 4) -> dnnmem.Network:
    """The network standing for workload ``name`` under the current reading (the zoo network
    of that name unless the reading maps it to a variant, e.g. ``gnmt`` → ``gnmt_thesis``),
    built once per (network, batch, element size) in this process (its schedule is then
    shared by every estimate)."""
    zoo_name, _, options = reading().workloads.get(name, (name, batch, {}))
    return _load(zoo_name, batch, bytes_per_element, tuple(sorted(options.items())))


@functools.lru_cache(maxsize=64)
def _load(name: str, batch: int, bytes_per_element: int, options: tuple) -> dnnmem.Network:
    return dnnmem.network(name, batch=batch, bytes_per_element=bytes_per_element, **dict(options))


def run_sweep(
    network: str,
    *,
    batch: Sequence[int],
    capacity: Sequence[float],
    bandwidth: Sequence[float],
    throughput: Sequence[float],
    policy: Sequence[str] = (POLICY,),
    ops_per_mac: int | None = None,
    bytes_per_element: int = 4,
) -> pd.DataFrame:
    """Every design point of the product of the arguments, one row each (SI units).

    Parameters
    ----------
    network : str
        A built-in network name.
    batch, capacity, bandwidth, throughput, policy : sequences
        The grid (bytes, bytes/s, FLOP/s).
    ops_per_mac, bytes_per_element : int
        FLOPs per multiply-accumulate (SPEC §2; default: the current reading's) and bytes per
        element of the networks.

    Returns
    -------
    DataFrame
        ``dnnmem.sweep``'s columns (``network``, ``batch``, ``policy``, ``capacity``,
        ``bandwidth``, ``throughput``, ``time``, ``traffic_in``, ``traffic_out``,
        ``avg_bandwidth``, ``flops``, …), plus ``ops_per_mac`` and ``bytes_per_element``.
    """
    if ops_per_mac is None:
        ops_per_mac = reading().ops_per_mac
    # One call per batch: the networks are the cached Network objects (their schedules shared
    # with the scripts' other uses), and one network name per call keeps the batches apart.
    df = pd.concat(
        [
            dnnmem.sweep(
                load(network, int(n), bytes_per_element),
                capacity=list(capacity),
                bandwidth=list(bandwidth),
                throughput=list(throughput),
                policy=list(policy),
                ops_per_mac=ops_per_mac,
                progress=False,
            )
            for n in batch
        ],
        ignore_index=True,
    )
    df = df.copy()
    df["network"] = network  # one spelling, whatever the engine wrote
    df["ops_per_mac"] = ops_per_mac
    df["bytes_per_element"] = bytes_per_element
    return df.reset_index(drop=True)


# -- cache -----------------------------------------------------------------------------------
def _key(name: str, params: dict[str, Any]) -> str:
    if READING != "default":  # the default reading keeps the keys it always had
        params = {**params, "reading": READING}
    text = json.dumps(
        {"name": name, "version": dnnmem.__version__, **params}, sort_keys=True, default=str
    )
    return hashlib.sha1(text.encode()).hexdigest()[:12]


_read_only = False


@contextlib.contextmanager
def read_only() -> Iterator[None]:
    """Within it, :func:`cached` raises FileNotFoundError instead of computing (the notebook:
    show the full run's data if there is one, else compute the small one)."""
    global _read_only
    before, _read_only = _read_only, True
    try:
        yield
    finally:
        _read_only = before


def cached(
    name: str, params: dict[str, Any], fn: Callable[[], pd.DataFrame], force: bool = False
) -> pd.DataFrame:
    """``fn()``, stored as ``RESULTS_DIR/<name>-<key>.parquet`` (CSV without pyarrow) where the
    key hashes ``params`` and the dnnmem version; read back when present unless ``force``."""
    key = _key(name, params)
    parquet = RESULTS_DIR / f"{name}-{key}.parquet"
    csv = RESULTS_DIR / f"{name}-{key}.csv"
    if not force:
        if parquet.exists():
            return pd.read_parquet(parquet)
        if csv.exists():
            return pd.read_csv(csv)
    if _read_only:
        raise FileNotFoundError(
            f"{name}: no cached result under {RESULTS_DIR} for these parameters (key {key})"
        )
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    df = fn()
    try:
        df.to_parquet(parquet, index=False)
    except ImportError:  # no pyarrow / fastparquet: CSV keeps the same columns
        df.to_csv(csv, index=False)
    (RESULTS_DIR / f"{name}-{key}.json").write_text(
        json.dumps(
            {"name": name, "version": dnnmem.__version__, **params},
            indent=1,
            sort_keys=True,
            default=str,
        )
    )
    return df


# -- output ----------------------------------------------------------------------------------
def save_figure(fig: Figure, name: str) -> Path:
    """Write ``fig`` to ``FIGURES_DIR/<name>.png`` and close it."""
    import matplotlib.pyplot as plt

    FIGURES_DIR.mkdir(parents=True, exist_ok=True)
    if READING != "default":
        name = f"{name}_{READING}"
        title = getattr(fig, "_suptitle", None)
        if title is not None:
            title.set_text(f"{title.get_text()} — {READING} reading")
    path = FIGURES_DIR / f"{name}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def panels(names: Sequence[str], ncols: int = 2) -> tuple[Figure, list[Any]]:
    """A figure with one axes per network (2 columns, like the thesis's a–d panels)."""
    import matplotlib.pyplot as plt

    if not names:
        raise ValueError("names: no network to plot (none of them is built in)")
    ncols = min(ncols, len(names))
    nrows = -(-len(names) // ncols)
    # Constrained layout: it makes room for the legends dnnmem.plots draws outside each panel.
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(7.5 * ncols, 4.4 * nrows), squeeze=False, layout="constrained"
    )
    flat = list(axes.flat)
    for ax in flat[len(names) :]:
        ax.set_visible(False)
    return fig, flat[: len(names)]


def per_network_figure(df: pd.DataFrame, draw: Callable[..., Any], title: str) -> Figure:
    """One panel per network of ``df``, each drawn by ``draw(df, network=name, ax=ax)`` and
    titled with the network and its batch; ``title`` above them all."""
    names = networks_in(df)
    fig, axes = panels(names)
    for name, ax in zip(names, axes):
        draw(df, network=name, ax=ax)
        ax.set_title(f"{name} (N={int(df.loc[df.network == name, 'batch'].iloc[0])})", fontsize=10)
    fig.suptitle(title)
    return fig


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A markdown table (first column left-aligned, the others right-aligned)."""
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join([":---"] + ["---:"] * (len(header) - 1)) + "|",
    ]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def use_agg() -> None:
    """Scripts only write files: no display needed (the notebook keeps its inline backend)."""
    import matplotlib

    matplotlib.use("Agg")


def main(
    name: str,
    compute: Callable[..., pd.DataFrame],
    plot: Callable[[pd.DataFrame], Figure],
    argv: Sequence[str] | None = None,
) -> Path:
    """The command line of every figure script: ``[--small] [--force] [--reading R]``."""
    p = argparse.ArgumentParser(description=f"Regenerate {name} (thesis Chapter 5).")
    p.add_argument(
        "--small", action="store_true", help="CI mode: seven capacities, small batches (seconds)"
    )
    p.add_argument("--force", action="store_true", help="recompute even if cached")
    p.add_argument(
        "--reading",
        choices=READINGS,
        default="default",
        help="dnnmem's defaults or dnnmem.thesis_reading() (default: default)",
    )
    a = p.parse_args(argv)
    set_reading(a.reading)
    use_agg()
    t0 = time.perf_counter()
    df = compute(small=a.small, force=a.force)
    path = save_figure(plot(df), name)
    print(f"{name}: {len(df)} rows, {time.perf_counter() - t0:.1f} s -> {path}")
    return path


def capacity_sweep(
    name: str,
    small: bool,
    bandwidth: Sequence[float],
    throughput: Sequence[float],
    force: bool = False,
) -> pd.DataFrame:
    """The capacity grid for every workload of Table 5.1 at its batch, lookahead, over
    ``bandwidth`` × ``throughput``; cached under ``name``."""
    names = workloads()
    caps = capacities(small)
    params = {
        "networks": {n: WORKLOADS[n] for n in names},
        "capacity": caps,
        "bandwidth": list(bandwidth),
        "throughput": list(throughput),
        "policy": POLICY,
    }

    def run() -> pd.DataFrame:
        return pd.concat(
            [
                run_sweep(
                    n,
                    batch=[WORKLOADS[n]],
                    capacity=caps,
                    bandwidth=bandwidth,
                    throughput=throughput,
                )
                for n in names
            ],
            ignore_index=True,
        )

    return cached(name, params, run, force)


def networks_in(df: pd.DataFrame) -> list[str]:
    """The networks of ``df`` in Table 5.1's order."""
    present = set(df["network"])
    return [n for n in WORKLOADS if n in present] + sorted(present - set(WORKLOADS))

# Stubs for the compiled module dnnmem._core (cpp/bindings/). Private: use the dnnmem package.
# Checked against the built module by tests/python/test_core_stub.py (mypy.stubtest and a
# comparison of every signature with the one pybind11 records): change both together.
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Callable, overload

import numpy as np
import numpy.typing as npt

__version__: str

def openmp_enabled() -> bool: ...

class NetworkError(ValueError):
    source: str
    layer: str
    field: str
    detail: str

class Network:
    @property
    def name(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def document(self) -> str: ...
    @property
    def num_layers(self) -> int: ...
    @property
    def outputs(self) -> list[int]: ...
    def parameters(self) -> int: ...
    def trainable_parameters(self) -> int: ...
    def layer_table(self) -> dict[str, npt.NDArray[Any]]: ...

def parse_network(text: str | bytes, source: str = "<string>") -> Network: ...

MAX_NETWORK_FILE_BYTES: int

def load_network_file(path: str, max_bytes: int = 268435456) -> Network: ...
def kinds_table() -> list[dict[str, Any]]: ...

class Schedule:
    @property
    def batch(self) -> int: ...
    @property
    def bytes_per_element(self) -> int: ...
    @property
    def scheduler(self) -> str: ...
    @property
    def training(self) -> bool: ...
    @property
    def num_steps(self) -> int: ...
    @property
    def num_tensors(self) -> int: ...
    def num_intervals(self) -> int: ...
    def peak_alive_bytes(self) -> int: ...
    def total_ops(self, ops_per_mac: int = 2) -> int: ...
    @property
    def fusion(self) -> str: ...
    def step_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def fusion_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def group_table(self) -> dict[str, Any]: ...
    def access_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def gemm_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def tensor_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def use_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def reuse_frequency(self, ops_per_mac: int = 2) -> npt.NDArray[np.float64]: ...

def build_schedule(
    network: Network,
    batch: int,
    bytes_per_element: int = 4,
    scheduler: str = "default",
    scheduler_options: dict[str, float | str] = {},  # noqa: B006
) -> Schedule: ...

class Estimate:
    @property
    def seconds(self) -> float: ...
    @property
    def steps_seconds(self) -> float: ...
    @property
    def drain_seconds(self) -> float: ...
    @property
    def stall_seconds(self) -> float: ...
    @property
    def capacity_stall_seconds(self) -> float: ...
    @property
    def compute_seconds(self) -> float: ...
    @property
    def traffic_in(self) -> int: ...
    @property
    def traffic_out(self) -> int: ...
    @property
    def wire_in(self) -> int: ...
    @property
    def wire_out(self) -> int: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def pins(self) -> dict[str, float]: ...
    def pin_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def step_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def tile_table(self) -> list[dict[str, Any]]: ...
    def transfer_table(self) -> dict[str, npt.NDArray[Any]]: ...

@overload
def estimate(
    schedule: Schedule,
    capacity: int,
    bandwidth: float,
    throughput: float,
    policy: str = "lookahead",
    ops_per_mac: int = 2,
) -> Estimate: ...
@overload
def estimate(
    schedule: Schedule, capacity: int, bandwidth: float, throughput: float, policy: PreparedPolicy
) -> Estimate: ...
def policies() -> dict[str, str]: ...
def parts() -> list[dict[str, Any]]: ...

class PreparedPolicy:
    @property
    def cache(self) -> str: ...
    @property
    def ops_per_mac(self) -> int: ...
    @property
    def compute_work(self) -> npt.NDArray[np.int64]: ...
    def link_wire_bytes(self, tensor: int, bytes: int) -> int: ...
    def transfer_seconds(
        self,
        tensor: Sequence[int],
        bytes: Sequence[int],
        load: Sequence[bool],
        bandwidth: float,
        throughput: float,
    ) -> npt.NDArray[np.float64]: ...
    def with_kept(self, kept: Sequence[int]) -> PreparedPolicy: ...

def prepare_policy(
    schedule: Schedule,
    cache: str = "lookahead",
    cache_options: dict[str, float | str] = {},  # noqa: B006
    link: str = "raw",
    link_options: dict[str, float | str] = {},  # noqa: B006
    compute: str = "peak",
    compute_options: dict[str, float | str] = {},  # noqa: B006
    ops_per_mac: int = 2,
    link_sparsity: list[float] = [],  # noqa: B006
    link_ratio: list[float] = [],  # noqa: B006
) -> PreparedPolicy: ...
def zvc_bytes(
    bytes: int, element_bytes: int, sparsity: float, window: int = 32, mask: bool = True
) -> int: ...
def sweep(
    schedule: Schedule,
    capacity: npt.ArrayLike,
    bandwidth: npt.ArrayLike,
    throughput: npt.ArrayLike,
    policy: npt.ArrayLike,
    threads: int = 0,
    ops_per_mac: int = 2,
    progress: Callable[[int], object] | None = None,
    out: dict[str, npt.NDArray[Any]] | None = None,
    interval: float = 0.1,
    chunk: int = 4,
    policies: list[PreparedPolicy] | None = None,
) -> dict[str, npt.NDArray[Any]]: ...
def max_sweep_threads() -> int: ...
def layer_gemm(
    network: Network, layer: int, pass_: str, batch: int, input: int = 0
) -> tuple[int, int, int, int]: ...
def systolic_cycles(
    m: int,
    n: int,
    k: int,
    count: int,
    rows: int,
    cols: int,
    dataflow: str,
    waves: str = "folds",
    tile: int = 0,
    arrays: int = 1,
) -> tuple[int, float]: ...
def tile_walk(
    m: int,
    k: int,
    n: int,
    order: str,
    tile: int,
    c_eff: int,
    elem_bytes: int = 2,
    psum_bytes: int = 2,
    nest_x: str = "ijk",
    nest_w: str = "jik",
    skip_x: list[str] = [],  # noqa: B006
    skip_w: list[str] = [],  # noqa: B006
    partition: str = "none",
    parts: int = 1,
    lockstep: bool = False,
    replace: str = "belady",
    intermediates: str = "evict",
    reduction: str = "chip",
) -> dict[str, Any]: ...
def tile_estimate(
    m: int,
    k: int,
    n: int,
    order: str,
    tile: int,
    c_eff: int,
    elem_bytes: int = 2,
    psum_bytes: int = 2,
    nest_x: str = "ijk",
    nest_w: str = "jik",
    skip_x: list[str] = [],  # noqa: B006
    skip_w: list[str] = [],  # noqa: B006
    partition: str = "none",
    parts: int = 1,
    lockstep: bool = False,
    replace: str = "belady",
    intermediates: str = "evict",
    reduction: str = "chip",
) -> dict[str, Any]: ...

class ChainProblem:
    """The traffic problem chain by chain, for the Lagrangian bound (dnnmem.optimal)."""

    capacity: float
    @property
    def num_steps(self) -> int: ...
    def __init__(
        self,
        num_steps: int,
        capacity: float,
        chain_start: npt.ArrayLike,
        step: npt.ArrayLike,
        size: npt.ArrayLike,
        keep_cost: npt.ArrayLike,
        keep_lo: npt.ArrayLike,
        keep_hi: npt.ArrayLike,
        has_y: npt.ArrayLike,
        y_cost: npt.ArrayLike,
        group: npt.ArrayLike,
        group_cost: npt.ArrayLike,
    ) -> None: ...
    def lagrangian(
        self, price: npt.ArrayLike
    ) -> tuple[float, npt.NDArray[np.uint8], npt.NDArray[np.float64]]: ...
    def maximize(
        self,
        start: npt.ArrayLike,
        max_iterations: int = 1000,
        time_limit: float = 0.0,
        tolerance: float = 0.0,
        initial_delta: float = 0.0,
        patience: int = 40,
        step_factor: float = 0.2,
        averaging: float = 0.03,
        restarts: int = 3,
        restart_delta: float = 0.01,
    ) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.uint8], int]: ...

# Stubs for the compiled module dnnmem._core (cpp/bindings/). Private: use the dnnmem package.
from __future__ import annotations

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
    name: str
    source: str
    document: str
    num_layers: int
    outputs: list[int]
    def parameters(self) -> int: ...
    def trainable_parameters(self) -> int: ...
    def layer_table(self) -> dict[str, npt.NDArray[Any]]: ...

def parse_network(text: str | bytes, source: str = "<string>") -> Network: ...
MAX_NETWORK_FILE_BYTES: int

def load_network_file(path: str, max_bytes: int = ...) -> Network: ...
def kinds_table() -> list[dict[str, Any]]: ...

class Schedule:
    batch: int
    bytes_per_element: int
    scheduler: str
    training: bool
    num_steps: int
    num_tensors: int
    def num_intervals(self) -> int: ...
    def peak_alive_bytes(self) -> int: ...
    def total_ops(self, ops_per_mac: int = 2) -> int: ...
    def step_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def access_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def gemm_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def tensor_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def use_table(self) -> dict[str, npt.NDArray[Any]]: ...
    def reuse_frequency(self, ops_per_mac: int = 2) -> npt.NDArray[np.float64]: ...

def build_schedule(network: Network, batch: int, bytes_per_element: int = 4,
                   scheduler: str = "default",
                   scheduler_options: dict[str, float | str] = ...) -> Schedule: ...

class Estimate:
    seconds: float
    steps_seconds: float
    drain_seconds: float
    stall_seconds: float
    capacity_stall_seconds: float
    compute_seconds: float
    traffic_in: int
    traffic_out: int
    wire_in: int
    wire_out: int
    counts: dict[str, int]
    def step_table(self) -> dict[str, npt.NDArray[Any]]: ...

@overload
def estimate(schedule: Schedule, capacity: int, bandwidth: float, throughput: float,
             policy: str = "lookahead", ops_per_mac: int = 2) -> Estimate: ...
@overload
def estimate(schedule: Schedule, capacity: int, bandwidth: float, throughput: float,
             policy: PreparedPolicy) -> Estimate: ...
def policies() -> dict[str, str]: ...

def parts() -> list[dict[str, Any]]: ...

class PreparedPolicy:
    cache: str
    ops_per_mac: int
    compute_work: npt.NDArray[np.int64]
    def link_wire_bytes(self, tensor: int, bytes: int) -> int: ...

def prepare_policy(schedule: Schedule, cache: str = "lookahead",
                   cache_options: dict[str, float | str] = ..., link: str = "raw",
                   link_options: dict[str, float | str] = ..., compute: str = "peak",
                   compute_options: dict[str, float | str] = ...,
                   ops_per_mac: int = 2) -> PreparedPolicy: ...

def sweep(schedule: Schedule, capacity: npt.ArrayLike, bandwidth: npt.ArrayLike,
          throughput: npt.ArrayLike, policy: npt.ArrayLike, threads: int = 0,
          ops_per_mac: int = 2, progress: Callable[[int], object] | None = None,
          out: dict[str, npt.NDArray[Any]] | None = None, interval: float = 0.1,
          chunk: int = 4,
          policies: list[PreparedPolicy] | None = None) -> dict[str, npt.NDArray[Any]]: ...
def max_sweep_threads() -> int: ...

def layer_gemm(network: Network, layer: int, pass_: str, batch: int,
               input: int = 0) -> tuple[int, int, int, int]: ...
def systolic_cycles(m: int, n: int, k: int, count: int, rows: int, cols: int,
                    dataflow: str) -> tuple[int, float]: ...

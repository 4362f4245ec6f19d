"""Run :func:`dnnmem.sweep` on a Dask cluster (a laptop's LocalCluster, or SLURM through
dask-jobqueue): ``dnnmem.sweep(..., executor=dnnmem.cluster.dask(client))``.

Dask workers start with ``OMP_NUM_THREADS=1``, so the OpenMP default would be one thread; the
executor returned here therefore tells every task its thread count explicitly (the ``threads``
argument of the engine), and sweep() sends each task a chunk of points with the network as its
JSON document, from which the worker rebuilds (and caches) the schedule.
"""

from __future__ import annotations

from concurrent.futures import Executor, Future
from typing import Any, Callable

__all__ = ["dask", "DaskExecutor"]


class DaskExecutor(Executor):
    """A :class:`concurrent.futures.Executor` over a ``distributed.Client``.

    Attributes
    ----------
    threads : int
        OpenMP threads each task uses (sweep() reads it).
    chunk_size : int or None
        Points per task (sweep() reads it; None: its default).
    """

    def __init__(self, client: Any, threads: int, chunk_size: int | None) -> None:
        self.client = client
        self.threads = threads
        self.chunk_size = chunk_size
        self._max_workers = max(1, _total_threads(client) // max(threads, 1))
        self._executor = client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:  # type: ignore[override, unused-ignore]
        """Run ``fn(*args, **kwargs)`` on a worker; a concurrent.futures.Future."""
        return self._executor.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop accepting tasks (the client and the cluster stay up)."""
        self._executor.shutdown(wait=wait)


def _total_threads(client: Any) -> int:
    try:
        workers = client.scheduler_info()["workers"].values()
        return max(1, sum(int(w.get("nthreads", 1)) for w in workers))
    except Exception:  # an info call that fails only changes the default chunk size
        return 1


def dask(
    client: Any, threads_per_worker: int | None = None, chunk_size: int | None = None
) -> DaskExecutor:
    """An executor for :func:`dnnmem.sweep` that runs on the workers of ``client``.

    Parameters
    ----------
    client : distributed.Client
        Connected to the cluster (``LocalCluster``, ``dask_jobqueue.SLURMCluster``, …).
    threads_per_worker : int, optional
        OpenMP threads per task. Default 1: Dask runs one task per worker thread, which already
        uses every core. Set it to the cores of a worker started with a single Dask thread
        (e.g. ``SLURMCluster(cores=32, processes=1, worker_extra_args=["--nthreads", "1"])`` and
        ``threads_per_worker=32``) to run one chunk per worker with OpenMP.
    chunk_size : int, optional
        Points per task; default: about 8 tasks per worker thread, at least 64 points.

    Returns
    -------
    DaskExecutor
        Pass it as ``executor=``.

    Raises
    ------
    ValueError
        For a ``threads_per_worker`` or ``chunk_size`` that is not an integer >= 1.
    """
    for name, v in (("threads_per_worker", threads_per_worker), ("chunk_size", chunk_size)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise ValueError(f"{name}: must be an integer >= 1, got {v!r}")
    return DaskExecutor(client, threads_per_worker or 1, chunk_size)

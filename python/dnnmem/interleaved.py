"""The interleaved-gradient-order tile model's policies and per-layer report
(docs/model/interleaved.md).

>>> import dnnmem, dnnmem.interleaved as igo
>>> npu = dnnmem.hardware("igo-edge-npu")
>>> r = dnnmem.estimate("resnet18", npu, igo.policy("alg1", npu), batch=4)
>>> igo.layer_table(r)          # one row per backward GEMM layer
>>> igo.totals(r)               # the paper's Fig. 5 metrics, and the layers' bytes

``policy(order, hardware)`` builds ``split-backward(order=..., tile=<the array's rows>) + none``;
the orders are ``seq`` (the paper's baseline), ``interleave``, ``dx-major``, ``dw-major``,
``alg1`` (its Algorithm 1 as printed), ``alg1-size`` (the rule of its prose), ``best`` (the
least traffic of the three fused orders), ``dy-oracle`` (``seq`` with the dW half's dY reads
free, the paper's §3.3 experiment) and ``dy-once`` (the same, the dX half's dY reads also capped
at one read of dY: the experiment's "dY is read only once" taken literally).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .hardware import Hardware
from .presets import as_hardware

if TYPE_CHECKING:  # keep import dnnmem light
    import pandas as pd

    from .estimate import Result

__all__ = ["ORDERS", "layer_table", "policy", "totals"]

ORDERS = ("seq", "interleave", "dx-major", "dw-major", "alg1", "alg1-size", "best", "dy-oracle",
          "dy-once")  # fmt: skip
"""The backward tile orders of ``split-backward(order=...)`` (docs/model/interleaved.md): the
sequential baseline, the fused orders, Algorithm 1 (as printed and by size), the per-layer best
and the dY oracle."""
OPERANDS = ("dY", "W", "X", "dX", "dW")


def _array_rows(hardware: Hardware | str | None) -> int | None:
    hardware = as_hardware(hardware, capacity=0)  # a preset's name: only its compute is read
    m = re.search(r"rows\s*=\s*(\d+)", hardware.compute) if hardware and hardware.compute else None
    return int(m.group(1)) if m else None


def policy(
    order: str = "alg1",
    hardware: Hardware | str | None = None,
    *,
    cache: str = "none",
    tile: int | None = None,
    first: str = "dx",
    method: str = "walk",
    psum_bytes: int = 0,
    buffer_fraction: float = 0.5,
    partition: str = "none",
    parts: int = 1,
    cores: int = 1,
    nest: str = "best",
    replace: str = "belady",
    im2col: str = "raw",
    intermediates: str = "evict",
    reduction: str = "chip",
) -> str:
    """The composition string of a tile-model policy.

    Parameters
    ----------
    order : str
        One of :data:`ORDERS`.
    hardware : Hardware or str, optional
        The NPU (or a preset's name): its systolic array's row count is the tile edge (``tile`` overrides; default 128).
    cache : str
        The cache manager (default ``none``: the paper's NPUs keep nothing between layers).
    first, method, psum_bytes, buffer_fraction, partition, parts, cores
        The ``split-backward`` scheduler's options (docs/policies.md): ``partition`` one of
        ``none``, ``m``, ``n``, ``k``, ``best``, ``rule``, ``joint`` (the least-traffic (order,
        partition) pair per layer, unpartitioned included); ``parts`` on one core, or ``cores``
        arrays sharing the scratchpad, one part each.
    nest, replace
        The baseline tiler: ``nest="best"`` ranks each family's loop nests, ``"fixed"`` takes the
        output-stationary ones (ikj / kji); ``replace="belady"`` (farthest next use), ``"lru"``, or
        ``"none"`` (nothing kept between tile operations, outputs accumulated apart: the GPU
        baseline kernel of the paper's §6.6, docs/model/interleaved.md, "Reading (no reuse)").
        ``nest="fixed", replace="lru"`` is the simpler tiler of docs/model/interleaved.md.
    im2col : str
        ``"raw"`` (default): X and dX move as the tensors (patches expanded on chip);
        ``"expanded"``: as their im2col GEMM matrices (docs/model/interleaved.md).
    intermediates : str
        ``"evict"`` (default): a partial sum is a victim like any tile; ``"keep"``: partial sums
        stay on chip while another tile can be evicted, "stored in the SPM to the extent possible"
        (the paper's §4.3; docs/model/interleaved.md, "Reading (intermediate results)").
    reduction : str
        ``"chip"`` (default): a partition's contributions to one output tile add on chip;
        ``"dram"``: a partition that cuts M (N) gives each part its own dW (dX), written off chip
        and read back to be summed (the paper's §5; docs/model/interleaved.md, "Reading
        (off-chip reduction)").
    """
    if order not in ORDERS:
        raise ValueError(f"order: {order!r} is not one of {', '.join(ORDERS)}")
    edge = tile if tile is not None else (_array_rows(hardware) or 128)
    opts = [f"order={order}", f"tile={edge}"]
    if first != "dx":
        opts.append(f"first={first}")
    if method != "walk":
        opts.append(f"method={method}")
    if psum_bytes:
        opts.append(f"psum_bytes={psum_bytes}")
    if buffer_fraction != 0.5:
        opts.append(f"buffer_fraction={buffer_fraction}")
    if partition != "none":
        opts.append(f"partition={partition}")
    if parts != 1:
        opts.append(f"parts={parts}")
    if cores != 1:
        opts.append(f"cores={cores}")
    if nest != "best":
        opts.append(f"nest={nest}")
    if replace != "belady":
        opts.append(f"replace={replace}")
    if im2col != "raw":
        opts.append(f"im2col={im2col}")
    if intermediates != "evict":
        opts.append(f"intermediates={intermediates}")
    if reduction != "chip":
        opts.append(f"reduction={reduction}")
    return f"split-backward({', '.join(opts)}) + {cache}"


def layer_table(result: Result) -> pd.DataFrame:
    """One row per backward GEMM layer the tile model walked (docs/model/interleaved.md, Report).

    Columns: ``layer`` (name), ``M``, ``K``, ``N``, ``count`` (products per layer), ``order``
    walked, ``reason`` (why ``alg1`` / ``alg1-size`` / ``best`` chose it), ``nest_x``,
    ``nest_w``, ``partition`` ("", "m", "n", "k") and ``parts``, ``c_eff`` (the share, bytes); per operand P in dY, W, X, dX, dW: ``read_P``,
    ``written_P``, ``spill_P`` (partial sums written + read back), ``streamed_P`` (False: the
    cache kept it whole, free); ``dy_reads`` (dY bytes read / |dY|), ``spill`` (all partial-sum
    bytes), ``reads`` (every byte read, partial sums included), ``bytes`` (everything the layer's step(s) moved through the tile model). Empty when
    the result's policy leaves the tile model off.
    """
    import pandas as pd

    rows = result._core.tile_table()
    names = list(result.network.layers["name"])
    out: list[dict[str, Any]] = []
    for r in rows:
        row: dict[str, Any] = {
            "layer": names[r["layer"]],
            "M": r["m"],
            "K": r["k"],
            "N": r["n"],
            "count": r["count"],
            "order": r["order"],
            "reason": r["reason"],
            "nest_x": r["nest_x"],
            "nest_w": r["nest_w"],
            "partition": r["partition"],
            "parts": r["parts"],
            "c_eff": r["c_eff"],
        }
        total = spill = reads = 0
        for p in OPERANDS:
            reads += r[f"read_{p}"] + r[f"psum_read_{p}"]
            row[f"read_{p}"] = r[f"read_{p}"]
            row[f"written_{p}"] = r[f"written_{p}"]
            row[f"spill_{p}"] = r[f"psum_read_{p}"] + r[f"psum_written_{p}"]
            row[f"streamed_{p}"] = r[f"streamed_{p}"]
            spill += row[f"spill_{p}"]
            total += row[f"read_{p}"] + row[f"written_{p}"] + row[f"spill_{p}"]
        row["dy_reads"] = r["read_dY"] / r["size_dY"] if r["size_dY"] else 0.0
        row["spill"] = spill
        row["reads"] = reads
        row["bytes"] = total
        out.append(row)
    return pd.DataFrame(out)


def totals(result: Result) -> dict[str, float]:
    """The paper's Fig. 5 metrics over the tiled layers, and over the whole iteration.

    ``dy_share_of_reads``: dY bytes read / all bytes read by the tiled layers' GEMMs (partial
    sums read back included); ``dy_share_of_traffic``: dY bytes read / all their bytes moved;
    ``dy_share_of_iteration``: dY bytes read by them / the iteration's traffic (in + out);
    ``dy_reads``: their dY bytes read / their |dY| summed; ``spill``: partial-sum bytes;
    ``gemm_bytes``: all their bytes.
    """
    t = layer_table(result)
    if t.empty:
        return {
            "dy_share_of_reads": 0.0,
            "dy_share_of_traffic": 0.0,
            "dy_share_of_iteration": 0.0,
            "dy_reads": 0.0,
            "spill": 0.0,
            "gemm_bytes": 0.0,
        }
    reads = float(t["reads"].sum())
    dy = float(t["read_dY"].sum())
    size_dy = sum(r["size_dY"] for r in result._core.tile_table())
    return {
        "dy_share_of_reads": dy / float(reads) if reads else 0.0,
        "dy_share_of_traffic": dy / float(t["bytes"].sum()),
        "dy_share_of_iteration": dy / float(result.traffic) if result.traffic else 0.0,
        "dy_reads": dy / size_dy if size_dy else 0.0,
        "spill": float(t["spill"].sum()),
        "gemm_bytes": float(t["bytes"].sum()),
    }

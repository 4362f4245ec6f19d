"""The interleaved-gradient paper's per-layer partition choice by a k-nearest-neighbour classifier
(its §5; docs/model/interleaved.md, "Partitioning"), in NumPy.

The paper trains KNN on the least-traffic partition of each layer ("we simulate three data
partitioning schemes ... and empirically determine the most efficient") with "the dimensions of
dX, dW, and dY as features". dnnmem's reading: the features are the six dimensions of dX (M, K),
dW (K, N) and dY (M, N), each as log2 of its size in tiles (so a doubling counts the same at every
size; the paper gives no scaling), Euclidean distance, ``k`` neighbours by majority vote with ties
broken by the nearest of the tied labels. The labels are the tile model's own oracle
(``partition=best``: the least traffic of M, N, K in ``parts`` parts under the layer's order and
nests) on generated GEMM shapes, one classifier per NPU (its tile and scratchpad share).

>>> import dnnmem.partition_knn as pk
>>> shapes = pk.random_shapes(200, tile=45, seed=0)
>>> labels = pk.oracle_labels(shapes, tile=45, c_eff=512 * 1024)
>>> knn = pk.KnnPartition(k=5).fit(pk.features(shapes, tile=45), labels)
>>> knn.predict(pk.features([(4096, 1024, 256)], tile=45))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["LABELS", "KnnPartition", "features", "oracle_label", "oracle_labels", "random_shapes"]

LABELS = ("m", "n", "k")
"""The classes: the partitioned GEMM dimension (the tile model's ``partition`` values)."""
_ROW_NESTS = ("ijk", "ikj", "kij")
_COL_NESTS = ("jik", "jki", "kji")


def features(shapes: Sequence[tuple[int, int, int]], tile: int) -> npt.NDArray[np.float64]:
    """The feature rows of GEMM shapes ``(M, K, N)`` (dY is M x N, W K x N, X M x K): log2 of the
    dimensions of dX (M, K), dW (K, N) and dY (M, N) in tiles of ``tile`` elements."""
    if tile < 1:
        raise ValueError(f"features: tile must be >= 1, got {tile}")
    a = np.asarray(shapes, dtype=np.float64).reshape(-1, 3)
    if (a < 1).any():
        raise ValueError("features: every GEMM dimension must be >= 1")
    m, k, n = (np.log2(a[:, i] / tile) for i in range(3))
    return np.column_stack([m, k, k, n, m, n])


class KnnPartition:
    """A k-nearest-neighbour classifier (Euclidean distance, majority vote, a tie going to the
    tied label with the nearest neighbour)."""

    def __init__(self, k: int = 5) -> None:
        """``k``: the neighbours that vote (>= 1)."""
        if k < 1:
            raise ValueError(f"KnnPartition: k must be >= 1, got {k}")
        self.k = k
        self._x: npt.NDArray[np.float64] = np.zeros((0, 0))
        self._y: list[str] = []

    def fit(self, x: npt.ArrayLike, y: Sequence[str]) -> KnnPartition:
        """Keep the training rows ``x`` (n x d) and their labels ``y``; returns ``self``."""
        xa = np.asarray(x, dtype=np.float64)
        if xa.ndim != 2 or len(xa) != len(y) or len(y) == 0:
            raise ValueError("KnnPartition.fit: x must be n x d with n labels, n >= 1")
        self._x, self._y = xa, list(y)
        return self

    def predict(self, x: npt.ArrayLike) -> list[str]:
        """The label of each row of ``x``."""
        if not self._y:
            raise ValueError("KnnPartition.predict: fit first")
        xa = np.asarray(x, dtype=np.float64).reshape(-1, self._x.shape[1])
        d = np.sqrt(((xa[:, None, :] - self._x[None, :, :]) ** 2).sum(axis=2))
        k = min(self.k, len(self._y))
        out = []
        for row in d:
            near = np.argsort(row, kind="stable")[:k]  # nearest first; equal distances by index
            votes: dict[str, int] = {}
            for j in near:
                votes[self._y[j]] = votes.get(self._y[j], 0) + 1
            top = max(votes.values())
            out.append(next(self._y[j] for j in near if votes[self._y[j]] == top))
        return out


def random_shapes(
    count: int, tile: int, seed: int = 0, max_tiles: int = 1024, max_ops: int = 1 << 17
) -> list[tuple[int, int, int]]:
    """``count`` GEMM shapes ``(M, K, N)``, each dimension log-uniform between half a tile and
    ``max_tiles`` tiles, redrawn while the tile grid has more than ``max_ops`` operations (the
    paper's workloads on its NPUs span 1 to about 700 tiles a dimension and up to about 10^5 tile
    operations a product)."""
    rng = np.random.default_rng(seed)
    lo, hi = np.log2(max(tile // 2, 1)), np.log2(tile * max_tiles)
    out: list[tuple[int, int, int]] = []
    while len(out) < count:
        m, k, n = (int(np.rint(2.0**v)) for v in rng.uniform(lo, hi, size=3))
        if -(-m // tile) * -(-k // tile) * -(-n // tile) <= max_ops:
            out.append((m, k, n))
    return out


def _alg1(m: int, k: int, n: int) -> str:
    # Algorithm 1 as printed (the tile model's `alg1`).
    if max(m, n, k) < 4 * min(m, n, k):
        return "interleave"
    return "dw-major" if k > n and k > m else "dx-major"


def oracle_label(
    shape: tuple[int, int, int],
    tile: int,
    c_eff: int,
    parts: int = 2,
    elem_bytes: int = 2,
    order: str = "alg1",
) -> str:
    """The tile model's ``partition=best`` for one GEMM shape ``(M, K, N)``: the dimension whose
    ``parts``-way partition moves the fewest bytes (the first of M, N, K on a tie) under
    ``order`` (``alg1``: Algorithm 1's pick) with the closed form's best nests of each family
    over a share of ``c_eff`` bytes."""
    from ._core import tile_estimate, tile_walk

    m, k, n = shape
    o = _alg1(m, k, n) if order == "alg1" else order
    best, nests = -1, ("ijk", "jik")
    for nx in _ROW_NESTS:
        for nw in _COL_NESTS:
            if (o == "dx-major" and nw != "jik") or (o == "dw-major" and nx != "ijk"):
                continue
            t = tile_estimate(m, k, n, o, tile, c_eff, elem_bytes, elem_bytes, nx, nw)
            total = sum(sum(t[f][p] for p in t[f]) for f in _FIELDS)
            if best < 0 or total < best:
                best, nests = total, (nx, nw)
    least, label = -1, LABELS[0]
    for d in LABELS:
        t = tile_walk(
            m,
            k,
            n,
            o,
            tile,
            c_eff,
            elem_bytes,
            elem_bytes,
            nests[0],
            nests[1],
            partition=d,
            parts=parts,
        )
        total = sum(sum(t[f][p] for p in t[f]) for f in _FIELDS)
        if least < 0 or total < least:
            least, label = total, d
    return label


_FIELDS = ("read", "written", "psum_read", "psum_written")


def oracle_labels(
    shapes: Sequence[tuple[int, int, int]],
    tile: int,
    c_eff: int,
    parts: int = 2,
    elem_bytes: int = 2,
    order: str = "alg1",
) -> list[str]:
    """:func:`oracle_label` of each shape."""
    return [oracle_label(s, tile, c_eff, parts, elem_bytes, order) for s in shapes]

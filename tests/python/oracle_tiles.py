"""The tile walk of docs/model/interleaved.md ("The tile walk (reference)"), in plain Python,
from that page alone: the bytes one backward GEMM step moves under an order, over a scratchpad
share of ``c_eff`` bytes with Bélády replacement at tile granularity (``replace="lru"``: least
recently used, the simpler baseline tiler's rule).

    walk = tile_walk(m=512, k=256, n=128, tile=128, order="dx-major", c_eff=1 << 20, elem=2)
    walk.read["dY"], walk.written["dW"], walk.psum_read["dX"], walk.dy_passes

It is the second implementation the C++ tile model is checked against when it lands; today the
tests check it against hand-computed traffic and the invariants of the model page.

Tensors and tiles (the page's "Tile grid"): dY (M, N) tiles (i, j); W (K, N) tiles (k, j); X (M, K)
tiles (i, k); dX (M, K) tiles (i, k); dW (K, N) tiles (k, j). dX-op(i, j, k) reads dY(i, j) and
W(k, j) and accumulates into dX(i, k); dW-op(i, j, k) reads X(i, k) and dY(i, j) and accumulates
into dW(k, j).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

TENSORS = ("dY", "W", "X", "dX", "dW")  # the tie-break order of rule 4
OUTPUTS = ("dX", "dW")
ROW_MAJOR = ("ijk", "ikj", "kij")  # i outside j: dY walked row by row
COL_MAJOR = ("jik", "jki", "kji")
ORDERS = ("seq", "seq-dw-first", "interleave", "dx-major", "dw-major")

# A tile index is (row, column), or (row, column, part) for a part's own copy of an output (the
# off-chip reduction, ``reduction="dram"``).
Tile = tuple[str, tuple[int, ...]]
Touch = tuple[str, tuple[int, ...], str]  # tensor, tile index, "r" (read) or "a" (accumulate)


@dataclass
class Walk:
    """Bytes moved per tensor: reads of inputs, final writes of outputs, partial sums."""

    read: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    written: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    psum_read: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    psum_written: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TENSORS, 0))
    dy_passes: float = 0.0  # dY bytes read / |dY|

    def total(self) -> int:
        """Every byte moved."""
        return sum(
            sum(d.values()) for d in (self.read, self.written, self.psum_read, self.psum_written)
        )


def _extent(size: int, tile: int, index: int) -> int:
    return min(tile, size - index * tile)


def _ops(
    ranges: dict[str, range],
    nest: str,
    which: str,
    skip: frozenset[str] = frozenset(),
    copy: tuple[str, int] | None = None,
) -> list[list[Touch]]:
    """The tile operations of one product ("dx" or "dw") over the tiles ``ranges`` of each grid
    dimension, in loop nest ``nest`` (outer to inner), without the touches of the tensors in
    ``skip`` (kept whole by the cache: free). ``copy`` = (output, part p >= 1): that output's
    tiles are the part's own copy, indexed (row, column, p) (the off-chip reduction)."""
    ops: list[list[Touch]] = []

    def out(t: str, r: int, c: int) -> tuple[int, ...]:
        return (r, c, copy[1]) if copy is not None and copy[0] == t else (r, c)

    for a, b, c in itertools.product(*(ranges[d] for d in nest)):
        pos = dict(zip(nest, (a, b, c)))
        i, j, kk = pos["i"], pos["j"], pos["k"]
        if which == "dx":
            op: list[Touch] = [
                ("dY", (i, j), "r"),
                ("W", (kk, j), "r"),
                ("dX", out("dX", i, kk), "a"),
            ]
        else:
            op = [("X", (i, kk), "r"), ("dY", (i, j), "r"), ("dW", out("dW", kk, j), "a")]
        ops.append([t for t in op if t[0] not in skip])
    return ops


def trace(
    m: int,
    k: int,
    n: int,
    tile: int,
    order: str,
    nest_x: str = "ijk",
    nest_w: str = "jik",
    skip_x: frozenset[str] = frozenset(),
    skip_w: frozenset[str] = frozenset(),
    partition: str | None = None,
    parts: int = 1,
    lockstep: bool = False,
    reduction: str = "chip",
) -> list[list[Touch]]:
    """The sequence of tile operations of ``order``; a fused operation is the dX-op's touches then
    the dW-op's. ``nest_x`` / ``nest_w``: the loop nests of the row- and column-major streams
    (for ``dx-major`` only ``nest_x`` is used, for ``dw-major`` only ``nest_w``). ``partition``
    ("m", "n", "k") cuts that dimension's tiles into ``parts`` runs, each walked in ``order``:
    one after another, or with ``lockstep`` (one part per core) operation t of every part as one
    operation. ``reduction="dram"``: each part p >= 1 accumulates into its own copy of the
    output the cut reduces (:func:`reduced_output`)."""
    if order not in ORDERS:
        raise ValueError(f"order {order!r} (valid: {', '.join(ORDERS)})")
    if nest_x not in ROW_MAJOR or nest_w not in COL_MAJOR:
        raise ValueError("nest_x must be row-major in dY, nest_w column-major")
    count = {"i": -(-m // tile), "j": -(-n // tile), "k": -(-k // tile)}
    dim = {"m": "i", "n": "j", "k": "k"}.get(partition or "")
    n_parts = min(parts, count[dim]) if dim else 1
    cut, _ = reduced_output(m, k, n, tile, partition, parts, skip_x, skip_w, reduction)
    per_part = []
    for p in range(n_parts):
        ranges = {d: range(c) for d, c in count.items()}
        if dim:  # the page's "Partitioning": contiguous runs of tiles, balanced
            ranges[dim] = range(p * count[dim] // n_parts, (p + 1) * count[dim] // n_parts)
        copy = (cut, p) if cut and p > 0 else None
        per_part.append(_order_ops(ranges, order, nest_x, nest_w, skip_x, skip_w, copy))
    if not lockstep:
        return [op for ops in per_part for op in ops]
    longest = max(len(ops) for ops in per_part)
    return [[touch for ops in per_part if t < len(ops) for touch in ops[t]] for t in range(longest)]


def _order_ops(
    ranges: dict[str, range],
    order: str,
    nest_x: str,
    nest_w: str,
    skip_x: frozenset[str],
    skip_w: frozenset[str],
    copy: tuple[str, int] | None = None,
) -> list[list[Touch]]:
    if order == "seq":
        return _ops(ranges, nest_x, "dx", skip_x, copy) + _ops(ranges, nest_w, "dw", skip_w, copy)
    if order == "seq-dw-first":
        return _ops(ranges, nest_w, "dw", skip_w, copy) + _ops(ranges, nest_x, "dx", skip_x, copy)
    if order == "interleave":
        xs = _ops(ranges, nest_x, "dx", skip_x, copy)
        ws = _ops(ranges, nest_w, "dw", skip_w, copy)
        return [x + w for x, w in zip(xs, ws)]
    nest = nest_x if order == "dx-major" else nest_w
    xs, ws = _ops(ranges, nest, "dx", skip_x, copy), _ops(ranges, nest, "dw", skip_w, copy)
    return [x + w for x, w in zip(xs, ws)]


def reduced_output(
    m: int,
    k: int,
    n: int,
    tile: int,
    partition: str | None,
    parts: int,
    skip_x: frozenset[str] = frozenset(),
    skip_w: frozenset[str] = frozenset(),
    reduction: str = "chip",
) -> tuple[str | None, int]:
    """The page's "Reading (off-chip reduction)": under ``reduction="dram"`` the output whose
    reduced dimension the partition cuts (M: dW, reduced over i; N: dX, reduced over j), when the
    partition has more than one part and the output's touches are in the trace (not kept whole
    by the cache), and the number of parts; (None, 1) otherwise."""
    if reduction not in ("chip", "dram"):
        raise ValueError(f"reduction {reduction!r} (valid: chip, dram)")
    count = {"m": -(-m // tile), "n": -(-n // tile), "k": -(-k // tile)}
    n_parts = min(parts, count[partition]) if partition in count else 1
    out = {"m": "dW", "n": "dX"}.get(partition or "")
    if reduction == "chip" or out is None or n_parts < 2:
        return None, 1
    if out in (skip_w if out == "dW" else skip_x):
        return None, 1
    return out, n_parts


def tile_walk(
    m: int,
    k: int,
    n: int,
    tile: int,
    order: str,
    c_eff: int,
    elem: int = 2,
    psum: int | None = None,
    nest_x: str = "ijk",
    nest_w: str = "jik",
    skip_x: frozenset[str] = frozenset(),
    skip_w: frozenset[str] = frozenset(),
    partition: str | None = None,
    parts: int = 1,
    lockstep: bool = False,
    replace: str = "belady",
    intermediates: str = "evict",
    reduction: str = "chip",
) -> Walk:
    """Walk ``order``'s tile operations over a scratchpad of ``c_eff`` bytes (rules 1-5 of the
    page). ``psum``: bytes per element of a spilled partial sum (default ``elem``); an output
    tile occupies ``psum`` bytes per element on chip, an input tile ``elem``. ``skip_x`` /
    ``skip_w``: tensors whose touches by the dX-ops / dW-ops are left out of the trace (kept whole
    by the inter-layer cache, or the dY oracle's free dW-op reads of dY). ``replace``: rule 4's
    victim is the tile used farthest in the future (``belady``) or least recently (``lru``).
    ``intermediates="keep"``: the victim is a partial sum (an output tile with contributions to
    come) only when every other candidate is one. ``replace="none"``: the share keeps nothing
    between operations (the page's "Reading (no reuse)"): each operation reads each distinct tile
    it reads once, every output tile is written once, final, and ``c_eff`` plays no part.
    ``reduction="dram"`` (the page's "Reading (off-chip reduction)"): a partition that cuts M
    (N) gives each part its own dW (dX), accumulated like any output tile; each copy goes off
    chip as a partial sum and is read back to be summed, and the sum is written once."""
    if replace not in ("belady", "lru", "none"):
        raise ValueError(f"replace {replace!r} (valid: belady, lru, none)")
    if intermediates not in ("evict", "keep"):
        raise ValueError(f"intermediates {intermediates!r} (valid: evict, keep)")
    psum = elem if psum is None else psum
    ops = trace(
        m, k, n, tile, order, nest_x, nest_w, skip_x, skip_w, partition, parts, lockstep, reduction
    )
    dims = {"dY": (m, n), "W": (k, n), "X": (m, k), "dX": (m, k), "dW": (k, n)}
    cut, copies = reduced_output(m, k, n, tile, partition, parts, skip_x, skip_w, reduction)
    if replace == "none":
        return _reduce_off_chip(
            _no_reuse_walk(ops, dims, tile, elem), cut, copies, dims, elem, psum
        )

    def elements(t: str, idx: tuple[int, int]) -> int:
        r, c = dims[t]
        return _extent(r, tile, idx[0]) * _extent(c, tile, idx[1])

    def size(t: str, idx: tuple[int, int]) -> int:
        return elements(t, idx) * (psum if t in OUTPUTS else elem)

    # Every touch of every tile, in walk order: position = (operation, touch).
    touches: dict[Tile, list[int]] = {}
    pos = 0
    for op in ops:
        for t, idx, _ in op:
            touches.setdefault((t, idx), []).append(pos)
            pos += 1
    contributions = {key: len(p) for key, p in touches.items() if key[0] in OUTPUTS}
    cursor = dict.fromkeys(touches, 0)  # how many touches of a tile are past

    walk = Walk()
    resident: dict[Tile, int] = {}  # tile -> bytes on chip
    dirty: set[Tile] = set()
    seen: set[Tile] = set()
    done: dict[Tile, int] = {}  # contributions made so far
    used = 0
    never = float("inf")
    pos = 0
    for op in ops:
        op_tiles = {(t, idx) for t, idx, _ in op}
        need = sum(size(t, idx) for t, idx in op_tiles)
        fits = need <= c_eff
        for t, idx, mode in op:
            key = (t, idx)
            if key not in resident:
                if mode == "r":
                    walk.read[t] += elements(t, idx) * elem
                elif key in seen:  # rule 3: a later contribution to an evicted output
                    walk.psum_read[t] += elements(t, idx) * psum
                b = size(t, idx)
                # Rule 4: make room, evicting the tile used farthest in the future (never
                # the current operation's tiles); no room at all: nothing is kept.
                while fits and used + b > c_eff:
                    victims = [v for v in resident if v not in op_tiles]
                    if intermediates == "keep":
                        finals = [
                            v for v in victims if v not in dirty or done[v] == contributions[v]
                        ]
                        victims = finals or victims

                    def next_use(v: Tile) -> float:
                        p = touches[v]
                        return p[cursor[v]] if cursor[v] < len(p) else never

                    def last_use(v: Tile) -> int:
                        return touches[v][cursor[v] - 1]

                    if replace == "lru":
                        victim = min(victims, key=last_use)
                    else:
                        victim = max(victims, key=lambda v: (next_use(v), *_rank(v)))
                    used -= resident.pop(victim)
                    if victim in dirty:
                        dirty.discard(victim)
                        vt, vidx = victim
                        if done[victim] < contributions[victim]:
                            walk.psum_written[vt] += elements(vt, vidx) * psum
                        else:
                            walk.written[vt] += elements(vt, vidx) * elem
                if fits:
                    resident[key] = b
                    used += b
            if mode == "a":
                seen.add(key)
                done[key] = done.get(key, 0) + 1
                if fits:
                    dirty.add(key)
                elif done[key] < contributions[key]:  # not kept: spill the partial sum now
                    walk.psum_written[t] += elements(t, idx) * psum
                else:
                    walk.written[t] += elements(t, idx) * elem
            cursor[key] += 1
            pos += 1
        if not fits:
            # Nothing stays: the operation's tiles leave with it (rule 4's degenerate case).
            for key in op_tiles:
                if key in resident:
                    used -= resident.pop(key)
                    dirty.discard(key)  # its bytes were counted when it was touched
    for key in dirty:  # rule 5
        t, idx = key
        walk.written[t] += elements(t, idx) * elem
    walk.dy_passes = walk.read["dY"] / (m * n * elem)
    return _reduce_off_chip(walk, cut, copies, dims, elem, psum)


def _rank(v: Tile) -> tuple[int, tuple[int, ...]]:
    """Rule 4's tie-break among tiles never used again: the later tensor, then the higher tile;
    a part's copy of an output ranks after every tensor's own tiles, by part, then tile."""
    t, idx = v
    return (TENSORS.index(t), idx) if len(idx) == 2 else (len(TENSORS) - 1 + idx[2], idx[:2])


def _reduce_off_chip(
    walk: Walk,
    cut: str | None,
    copies: int,
    dims: dict[str, tuple[int, int]],
    elem: int,
    psum: int,
) -> Walk:
    """The off-chip reduction's bytes: the walk wrote each of the ``copies`` copies of ``cut``
    once, final; each is instead a partial sum written off chip (``psum`` bytes per element) and
    read back, and the sum is written once (``elem``)."""
    if cut is None:
        return walk
    r, c = dims[cut]
    assert walk.written[cut] == copies * r * c * elem  # each copy's tiles written once
    walk.written[cut] = r * c * elem
    walk.psum_written[cut] += copies * r * c * psum
    walk.psum_read[cut] += copies * r * c * psum
    return walk


def _no_reuse_walk(
    ops: list[list[Touch]], dims: dict[str, tuple[int, int]], tile: int, elem: int
) -> Walk:
    """``replace="none"``: per operation, one read of each distinct tile it reads; one final write
    of each output tile the trace accumulates into (its partial sums stay in accumulators)."""
    walk = Walk()

    def nbytes(t: str, idx: tuple[int, int]) -> int:
        r, c = dims[t]
        return _extent(r, tile, idx[0]) * _extent(c, tile, idx[1]) * elem

    outputs: set[Tile] = set()
    for op in ops:
        for t, idx in {(t, idx) for t, idx, mode in op if mode == "r"}:
            walk.read[t] += nbytes(t, idx)
        outputs |= {(t, idx) for t, idx, mode in op if mode == "a"}
    for t, idx in outputs:
        walk.written[t] += nbytes(t, idx)
    r, c = dims["dY"]
    walk.dy_passes = walk.read["dY"] / (r * c * elem)
    return walk


def joint_search(
    m: int,
    k: int,
    n: int,
    tile: int,
    c_eff: int,
    nests: dict[str, tuple[str, str]],
    parts: int,
    elem: int = 2,
) -> tuple[str, str | None, int]:
    """The page's joint search (``partition = joint``) on one core: the least-traffic pair of an
    order of ``nests`` (order -> its (nest_x, nest_w), in the tie-break order) and a partition
    (None, then M, N, K in ``parts`` parts); returns (order, partition, bytes)."""
    best: tuple[str, str | None, int] | None = None
    for order, (nx, nw) in nests.items():
        for part in (None, "m", "n", "k"):
            if part is not None and parts <= 1:
                break
            w = tile_walk(m, k, n, tile, order, c_eff, elem, None, nx, nw,
                          partition=part, parts=parts if part else 1)  # fmt: skip
            if best is None or w.total() < best[2]:
                best = (order, part, w.total())
    assert best is not None
    return best


def pass_bytes(
    walk: Walk,
    sizes: dict[str, int],
    m: int,
    k: int,
    n: int,
    count: int = 1,
    elem_bytes: int = 2,
    im2col: str = "raw",
    dy_once: bool = False,
) -> dict[str, dict[str, int]]:
    """The bytes the plan pass gives each operand from one product's ``walk`` (the page's
    "Timing" and "Reading (im2col traffic)"): the walk counts GEMM-matrix bytes; ``raw`` scales
    each operand P to its tensor, |P| · walked / (its GEMM matrix's bytes), rounded to the
    nearest byte (halves up); ``expanded`` keeps X's and dX's walked bytes, ``count`` products of
    them. ``dy_once`` (order ``dy-once``, the page's orders table): dY's reads capped at one read
    of the tensor, ``sizes["dY"]``. ``sizes``: the tensors' bytes by operand name."""
    if im2col not in ("raw", "expanded"):
        raise ValueError(f"im2col {im2col!r} (valid: raw, expanded)")
    matrix = {"dY": m * n, "W": k * n, "X": m * k, "dX": m * k, "dW": k * n}
    out: dict[str, dict[str, int]] = {}
    for what in ("read", "written", "psum_read", "psum_written"):
        out[what] = {}
        for t in TENSORS:
            walked = getattr(walk, what)[t]
            gemm = matrix[t] * elem_bytes
            if im2col == "expanded" and t in ("X", "dX"):
                out[what][t] = walked * count
            else:
                out[what][t] = (walked * sizes[t] + gemm // 2) // gemm
    if dy_once:
        out["read"]["dY"] = min(out["read"]["dY"], sizes["dY"])
    return out

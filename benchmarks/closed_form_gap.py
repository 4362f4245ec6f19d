"""The tile model's closed form against its walk over every case of the property test's domain.

Run: ``.venv/bin/python benchmarks/closed_form_gap.py [ORDER ...]`` (default: every order; three to
four minutes per order on one core, so run orders in parallel processes to use more).

For M, K, N in 1 … 9, tile 1 … 3, a share (C_eff) of 0 … 400 bytes, every nest pair and 1-byte
elements and partial sums, it prints per order the smallest and the largest ratio of
``_core.tile_estimate``'s total bytes to ``_core.tile_walk``'s, with the case that gives each.
``tests/python/test_tiles_closed.py::test_closed_form_within_its_stated_gap`` asserts these
bounds, and docs/model/interleaved.md ("What the tests pin") gives them.
"""

from __future__ import annotations

import itertools
import sys

from dnnmem import _core

ORDERS = ("seq", "seq-dw-first", "interleave", "dx-major", "dw-major")
FIELDS = ("read", "written", "psum_read", "psum_written")
NESTS = tuple(itertools.product(("ijk", "ikj", "kij"), ("jik", "jki", "kji")))
Case = tuple[int, int, int, str, int, int, int, int, str, str]


def total(bytes_by_field: dict[str, dict[str, int]]) -> int:
    """Every byte the model moves: reads, writes and partial sums, over the five operands."""
    return sum(sum(bytes_by_field[f].values()) for f in FIELDS)


def extremes(order: str) -> tuple[tuple[float, Case], tuple[float, Case]]:
    """The smallest and the largest closed-form / walk ratio of ``order`` over the domain."""
    low: tuple[float, Case] | None = None
    high: tuple[float, Case] | None = None
    dims = range(1, 10)
    for m, k, n, tile in itertools.product(dims, dims, dims, range(1, 4)):
        for dx_nest, dw_nest in NESTS:
            for share in range(401):
                case: Case = (m, k, n, order, tile, share, 1, 1, dx_nest, dw_nest)
                ratio = total(_core.tile_estimate(*case)) / total(_core.tile_walk(*case))
                if low is None or ratio < low[0]:
                    low = (ratio, case)
                if high is None or ratio > high[0]:
                    high = (ratio, case)
    assert low is not None and high is not None
    return low, high


def main() -> None:
    """Print each order's extremes (one line per order)."""
    for order in sys.argv[1:] or ORDERS:
        if order not in ORDERS:
            raise SystemExit(f"unknown order {order!r} (known: {', '.join(ORDERS)})")
        (lo, lo_case), (hi, hi_case) = extremes(order)
        print(f"{order}: closed form / walk {lo:.4f} at {lo_case}, {hi:.4f} at {hi_case}")


if __name__ == "__main__":
    main()

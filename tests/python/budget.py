"""How many examples the property tests draw.

The numbers written in the tests are what every run of ``scripts/test.sh`` (and so CI) can
afford on a two-core machine. ``DNNMEM_TEST_DEPTH`` multiplies them for a deeper run, e.g.
``DNNMEM_TEST_DEPTH=10 .venv/bin/python -m pytest tests/python/test_compose.py`` before a
release or after touching a planner; ``DNNMEM_HYPOTHESIS_EXAMPLES`` (the sanitizer run's knob)
still sets the count of the tests that read it.
"""

from __future__ import annotations

import os

DEPTH = float(os.environ.get("DNNMEM_TEST_DEPTH", "1"))


def examples(n: int) -> int:
    """``n`` examples scaled by ``DNNMEM_TEST_DEPTH`` (at least one)."""
    return max(1, round(n * DEPTH))

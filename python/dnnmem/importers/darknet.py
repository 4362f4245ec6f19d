"""Darknet ``.cfg`` → network document (work in progress)."""
from __future__ import annotations

from typing import Any


def from_darknet(cfg_path: Any, **options: Any) -> Any:
    """Not written yet."""
    raise NotImplementedError

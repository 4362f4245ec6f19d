"""ONNX → network document (work in progress)."""
from __future__ import annotations

from typing import Any


def from_onnx(model: Any, **options: Any) -> Any:
    """Not written yet."""
    raise NotImplementedError

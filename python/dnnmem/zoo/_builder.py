"""A tiny helper every zoo builder uses to write the layer list of a network document."""

from __future__ import annotations

from typing import Any

__all__ = ["Layers"]


class Layers:
    """An ordered list of layer objects (``docs/network-format.md``) being built.

    The file order matters: it breaks ties in the depth-first schedule (SPEC §3), so builders
    add layers in the order the reference framework creates them.
    """

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def input(self, name: str, shape: list[int] | tuple[int, ...], **fields: Any) -> str:
        """Add an input layer (per-sample ``shape``); returns its name."""
        self.items.append({"name": name, "kind": "input", "shape": list(shape), **fields})
        return name

    def add(self, name: str, kind: str, inputs: list[str] | str, **fields: Any) -> str:
        """Add a layer of ``kind`` reading ``inputs``; returns its name (to chain layers)."""
        ins = [inputs] if isinstance(inputs, str) else list(inputs)
        self.items.append({"name": name, "kind": kind, "inputs": ins, **fields})
        return name

    def document(self, name: str) -> dict[str, Any]:
        """The network document ``{"name": name, "layers": [...]}``."""
        return {"name": name, "layers": self.items}

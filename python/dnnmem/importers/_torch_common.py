"""What the torch importer's graph walk and operator mappings share (``torch.py``)."""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Any

# ATen ops that only re-index or re-type their input (no data moves in dnnmem's model).
_VIEWS = {
    "view",
    "_unsafe_view",
    "reshape",
    "permute",
    "transpose",
    "t",
    "flatten",
    "contiguous",
    "clone",
    "unsqueeze",
    "squeeze",
    "alias",
    "detach",
    "to",
    "_to_copy",
    "type_as",
    "lift_fresh_copy",
    "view_as",
    "reshape_as",
    "unflatten",
    "expand",
    "expand_as",
    "_assert_tensor_metadata",
}
# One-input point-wise activations: ATen op name → kind.
_ACTIVATIONS = {
    "relu": "relu",
    "relu_": "relu",
    "gelu": "gelu",
    "silu": "swish",
    "silu_": "swish",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "hardswish": "hard_swish",
    "hardswish_": "hard_swish",
    "hardsigmoid": "hard_sigmoid",
    "mish": "mish",
    "relu6": "relu6",
}
# One-input point-wise math with a constant (or none): one `rescaling` layer (2 FLOPs/element).
_POINTWISE_UNARY = {
    "neg",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "abs",
    "erf",
    "clamp",
    "clamp_min",
    "clamp_max",
    "pow",
    "square",
}
_BINARY = {"add", "add_", "sub", "sub_", "rsub", "mul", "mul_", "div", "div_"}
_SLICES = {"select", "slice", "narrow", "index", "index_select", "gather"}
_SPLITS = {"split", "split_with_sizes", "chunk", "unbind", "tensor_split"}
# Module class names whose forward is one activation written as several ATen ops (Hugging Face
# NewGELUActivation is mul/pow/add/tanh): collapsed into one layer of this kind.
_ACTIVATION_MODULES = [
    (re.compile(r"gelu", re.I), "gelu"),
    (re.compile(r"silu|swish", re.I), "swish"),
    (re.compile(r"mish", re.I), "mish"),
]


@dataclass
class _Value:
    """What one fx node computes, as far as the document is concerned.

    ``kind`` is "data" (depends on an input: ``layer`` holds it, with dnnmem shape ``shape``),
    "param" (a parameter, ``target`` its fully qualified name), "const" (computed from
    constants only) or "list" (a tuple of values, ``items``). ``ps`` is the torch per-sample
    shape (batch removed), ``image`` whether it is an NCHW image tensor.
    """

    kind: str
    layer: str = ""
    shape: tuple[int, ...] = ()
    ps: tuple[int, ...] = ()
    image: bool = False
    target: str = ""
    node: Any = None
    items: list[Any] | None = None


def _op_name(target: Any) -> str:
    """``aten.conv2d.default`` → ``conv2d``; ``operator.getitem`` → ``getitem``."""
    if target is operator.getitem:
        return "getitem"
    packet = getattr(target, "_overloadpacket", None)
    if packet is not None:
        return str(packet.__name__)
    return str(getattr(target, "__name__", target))


def _args(node: Any) -> dict[str, Any]:
    """A node's arguments by schema name, defaults filled in."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return {f"arg{i}": a for i, a in enumerate(node.args)} | dict(node.kwargs)
    out: dict[str, Any] = {}
    for i, a in enumerate(schema.arguments):
        if i < len(node.args) and not a.kwarg_only:
            out[a.name] = node.args[i]
        elif a.name in node.kwargs:
            out[a.name] = node.kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
        else:
            out[a.name] = None
    return out


def _pair(v: Any, default: int) -> list[int]:
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return [default, default]
    if isinstance(v, (list, tuple)):
        return [int(v[0]), int(v[-1])] if len(v) in (1, 2) else [int(x) for x in v]
    return [int(v), int(v)]

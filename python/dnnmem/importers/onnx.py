"""ONNX models → dnnmem network documents (``docs/importers.md``).

The graph is shape-inferred (``onnx.shape_inference.infer_shapes``), then walked in node order.
Tensors computed from initializers and constants alone (weight transposes, shape arithmetic)
are constants and create no layer; every other node becomes zero, one or a few layers.

Layout: ONNX images are NCHW; dnnmem shapes are per sample and channels last. A rank-4
tensor produced by an image operator (Conv, pooling, BatchNormalization, Resize, Pad, …) or a
rank-4 graph input is kept as (H, W, C); every other tensor keeps ONNX's order without the
batch dimension, which must be dimension 0.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..network import Network
from ._common import DocumentBuilder, hwc, read_model_file, sanitize_name, to_network

__all__ = ["from_onnx", "SUPPORTED_OPS"]


@dataclass
class _Act:
    """An activation tensor: the layer holding it and whether it is an (H, W, C) image."""

    layer: str
    image: bool


_POINTWISE = {
    "Relu": "relu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Gelu": "gelu",
    "HardSwish": "hard_swish",
    "HardSigmoid": "hard_sigmoid",
    "Mish": "mish",
    "Softmax": "softmax",
    "LogSoftmax": "softmax",
}
_COPIES = {"Slice", "Split", "Expand", "Tile"}  # re-index / copy data: zero-FLOP ``opaque``
_RESHAPES = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose"}
_ALIASES = {"Identity", "Cast"}
_IMAGE_OPS = {
    "Conv",
    "MaxPool",
    "AveragePool",
    "GlobalAveragePool",
    "GlobalMaxPool",
    "BatchNormalization",
    "Resize",
    "Upsample",
    "Pad",
}

#: Operator types the importer translates (others: unsupported, see :func:`from_onnx`).
SUPPORTED_OPS: frozenset[str] = frozenset(
    set(_POINTWISE)
    | _COPIES
    | _RESHAPES
    | _ALIASES
    | _IMAGE_OPS
    | {
        "Gemm",
        "MatMul",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Clip",
        "LeakyRelu",
        "Erf",
        "Concat",
        "Gather",
        "Dropout",
        "LayerNormalization",
        "Shape",
        "Constant",
        "ReduceMean",
    }
)


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as e:  # pragma: no cover - depends on the environment
        from .._optional import install_hint

        raise ImportError(
            f"the ONNX importer needs the 'onnx' package: {install_hint('onnx')}"
        ) from e
    return onnx


def _attrs(node: Any) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _text(at: dict[str, Any], key: str, default: str) -> str:
    """A string attribute (onnx gives bytes)."""
    v = at.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


def _same_padding(at: dict[str, Any]) -> bool:
    """Whether ``auto_pad`` asks for Keras-style ``same`` padding."""
    return _text(at, "auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER")


_ELEM_INT = {6: "int32", 7: "int64"}  # onnx.TensorProto.INT32 / INT64


def _eval_const(op: str, a: dict[str, Any], xs: list[Any]) -> np.ndarray | None:
    """The value of a node whose inputs are all constants, for the few ops shape code uses.

    ``xs``: the inputs' values (arrays; None where an input is not a known constant).
    """
    from onnx import numpy_helper

    if op == "Constant":
        if "value" in a:
            return numpy_helper.to_array(a["value"])
        for k in ("value_float", "value_int", "value_floats", "value_ints"):
            if k in a:
                return np.array(a[k])
        return None
    if not xs or xs[0] is None:
        return None
    x: np.ndarray = xs[0]
    if op in ("Identity", "Cast"):
        return x
    if op == "Transpose":
        return np.transpose(x, a.get("perm"))
    if op == "Reshape":
        shape = [int(d) for d in xs[1]]
        shape = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
        return x.reshape(shape)
    if op in ("Unsqueeze", "Squeeze"):
        axes = a.get("axes", list(xs[1]) if len(xs) > 1 and xs[1] is not None else None)
        if op == "Squeeze":
            return np.squeeze(x, axis=None if axes is None else tuple(int(i) for i in axes))
        if axes is None:  # an Unsqueeze needs its axes; without them, no value
            return None
        for ax in sorted(int(i) % (x.ndim + len(axes)) for i in axes):
            x = np.expand_dims(x, ax)
        return x
    if op == "Concat":
        return np.concatenate([np.atleast_1d(v) for v in xs], axis=a.get("axis", 0))
    if op == "Gather":
        return np.take(x, xs[1], axis=a.get("axis", 0))
    if op in ("Add", "Sub", "Mul", "Div"):
        f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}[op]
        return f(x, xs[1])
    return None


def from_onnx(
    model: Any,
    *,
    batch: int = 1,
    strict: bool = True,
    document: bool = False,
    bytes_per_element: int = 4,
) -> Network | dict[str, Any]:
    """Import an ONNX model (a ``.onnx`` path or an ``onnx.ModelProto``).

    Operators (ONNX → dnnmem kinds):

    - ``Conv`` (2-D; groups, dilations, pads, strides, auto_pad) → ``conv2d``, bias when given.
    - ``Gemm`` / ``MatMul`` with a constant weight → ``dense``; a following ``Add`` of a
      constant of ``units`` elements is folded in as its bias (torch's Linear on 3-D inputs).
      ``MatMul`` of two activations → ``matmul``.
    - ``Add`` / ``Sub`` of two activations → ``add`` (``multiply`` when they broadcast),
      ``Mul`` / ``Div`` → ``multiply``; with a scalar constant → ``rescaling``; ``Add`` of a
      constant as large as the activation (a learned table) → ``position_embedding``; other
      constants → ``rescaling`` (their elements are *not* counted as parameters).
    - ``Relu``, ``Sigmoid``, ``Tanh``, ``Gelu``, ``HardSwish``, ``HardSigmoid``, ``Mish``,
      ``Softmax``, ``LeakyRelu``; ``Clip`` → ``relu6``; torch's exact-GELU pattern
      ``Div(√2) → Erf → Add(1) → Mul(x) → Mul(0.5)`` → one ``gelu``; a lone ``Erf`` → a
      one-FLOP point-wise ``tanh``.
    - ``BatchNormalization`` (images, or [C] vectors) → ``batchnorm``;
      ``LayerNormalization`` over the last axis → ``layernorm``.
    - ``MaxPool`` / ``AveragePool`` (``ceil_mode`` by extra bottom/right padding),
      ``GlobalAveragePool`` / ``GlobalMaxPool`` and ``ReduceMean`` over H, W → pools.
    - ``Flatten``, ``Reshape``, ``Squeeze``, ``Unsqueeze``, ``Transpose`` → folded ``flatten``
      / ``reshape`` (nothing when the per-sample shape is unchanged); ``Identity``, ``Cast`` and
      ``Dropout`` at ratio 0 → nothing; ``Dropout`` → ``dropout``.
    - ``Concat`` → ``concat``; ``Pad`` (zeros on H, W) → ``zero_padding``; ``Resize`` /
      ``Upsample`` by integer factors → ``upsample``.
    - ``Gather`` of a constant table by activation ids → ``embedding``.
    - ``Slice``, ``Split``, ``Expand``, ``Tile``, ``Gather`` of an activation → ``opaque``
      copies: 0 FLOPs, the inferred output shape (dnnmem has no slice kind; a copy costs no
      arithmetic, as ``concat``).

    - ``LSTM`` (forward, reverse or bidirectional; default activations; zero or constant initial
      states) → ``lstm_cell`` timesteps sharing one weight per direction, each reading an
      ``opaque`` slice x_t of X and, at t = 0, zero-state inputs ``<name>.h0`` / ``.c0``.
      ONNX (and torch) keep two bias vectors (W_b, R_b: 8H per direction) where ``lstm_cell``
      has one (4H): the import has 4H parameters fewer per direction and layer, their sum
      being the only thing that matters. The batch axis of time-major tensors is tracked
      through ``Transpose`` / ``Squeeze`` / ``Unsqueeze``.

    Anything else (``GRU``, ``RNN``, ``ReduceSum``, ``Pow``, …) is unsupported: ``strict=True``
    raises one :class:`~dnnmem.importers.UnsupportedOperatorError` listing every unsupported
    operator type with its node names; ``strict=False`` warns and writes a zero-FLOP ``opaque``
    placeholder with the node's inferred output shape for each used output.

    Parameters
    ----------
    model : str, os.PathLike or onnx.ModelProto
        The model. Input shapes must be static apart from the batch dimension (dimension 0).
    batch : int
        Mini-batch size of the returned network (the model's own batch dimension is ignored).
    strict : bool
        See above.
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.
    bytes_per_element : int
        Element size of the returned network.

    Returns
    -------
    Network or dict

    Raises
    ------
    ValueError
        A tensor whose shape inference left unknown (named with its node), malformed operands,
        or unsupported operators under ``strict=True``.
    """
    onnx = _onnx()
    from onnx import numpy_helper

    if isinstance(model, (str, os.PathLike)):
        source = os.fspath(model)
        proto = read_model_file(source, "an ONNX model", onnx.load)
        if not proto.graph.node and not proto.graph.input:  # e.g. an empty file
            raise ValueError(f"{source}: the ONNX model has an empty graph (an ONNX file?)")
    elif isinstance(model, onnx.ModelProto):
        proto = model
        source = proto.graph.name or "onnx model"
    else:
        raise TypeError(
            f"from_onnx: model must be a path or an onnx.ModelProto, got {type(model).__name__}"
        )
    try:
        proto = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    except Exception as e:  # onnx raises its own InferenceError types
        raise ValueError(f"{source}: ONNX shape inference failed: {e}") from None
    g = proto.graph
    # A file's stem names the network (torch calls every graph "main_graph").
    stem = os.path.splitext(os.path.basename(source))[0] if source != proto.graph.name else ""
    name = sanitize_name(stem or proto.graph.name, "onnx")
    b = DocumentBuilder(source, name)

    consts: dict[str, Any] = {}  # name -> np.ndarray, or None: not a known constant
    for init in g.initializer:
        consts[init.name] = numpy_helper.to_array(init)
    shapes: dict[str, list[int | None]] = {}
    elem: dict[str, int] = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        t = vi.type.tensor_type
        if t.HasField("shape"):
            shapes[vi.name] = [
                d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim
            ]
        elem[vi.name] = t.elem_type
    for node in g.node:  # Constant nodes first: a fused pattern looks ahead at their values
        if node.op_type == "Constant":
            consts[node.output[0]] = _eval_const("Constant", _attrs(node), [])
    consumers: dict[str, list[Any]] = {}
    for node in g.node:
        for i in node.input:
            consumers.setdefault(i, []).append(node)
    graph_outputs = {o.name for o in g.output}
    acts: dict[str, _Act] = {}
    skip: set[int] = set()  # ids of nodes fused into an earlier layer
    # tensor → (dense / conv layer without bias, its units): a following Add may be its bias.
    bias_slot: dict[str, tuple[dict[str, Any], int]] = {}

    def full_shape(t: str, node: Any) -> list[int]:
        s = shapes.get(t)
        if t in consts and consts[t] is not None:
            return list(consts[t].shape)
        if s is None or any(d is None for d in s[1:]):
            raise ValueError(
                f"{source}: node '{node.name}' ({node.op_type}): the shape of "
                f"tensor '{t}' is unknown after shape inference ({s}); export the "
                "model with static input shapes"
            )
        return [d if d is not None else 1 for d in s]

    # tensor → its batch axis when not 0 (the time-major tensors around an LSTM).
    bax: dict[str, int] = {}

    def sample_shape(t: str, node: Any, image: bool) -> list[int]:
        full = full_shape(t, node)
        k = 0 if image else bax.get(t, 0)
        s = full[:k] + full[k + 1 :]
        return list(hwc(s)) if image and len(s) == 3 else s

    def is_const(t: str) -> bool:
        return t in consts

    def as_image(a: _Act, t: str, node: Any) -> str:
        """The layer holding ``t`` as (H, W, C); a folded reshape when it is in ONNX order."""
        if a.image:
            return a.layer
        s = full_shape(t, node)
        if len(s) != 4:
            raise ValueError(
                f"{source}: node '{node.name}' ({node.op_type}) needs an NCHW "
                f"input, '{t}' has shape {s}"
            )
        n = b.unique(f"{a.layer}_nhwc")
        b.add(n, "reshape", [a.layer], target_shape=list(hwc(s[1:])))
        acts[t] = _Act(n, True)
        return n

    def layer(node: Any, kind: str, inputs: list[str], suffix: str = "", **fields: Any) -> str:
        n = b.unique((node.name or node.output[0]) + suffix)
        return b.add(n, kind, inputs, **fields)

    def out(node: Any, lname: str, image: bool, k: int = 0) -> None:
        acts[node.output[k]] = _Act(lname, image)
        x = next((i for i in node.input if i in acts), None)
        if (
            not image
            and x is not None
            and bax.get(x, 0)
            and node.op_type not in _RESHAPES
            and len(full_shape(node.output[k], node)) == len(full_shape(x, node))
        ):
            bax[node.output[k]] = bax[x]  # point-wise: the batch stays where it was

    def placeholder(node: Any) -> None:
        ins = [acts[i].layer for i in node.input if i in acts]
        image = any(acts[i].image for i in node.input if i in acts)
        if not ins:
            raise ValueError(
                f"{source}: node '{node.name}' ({node.op_type}) has no activation input"
            )
        used = [
            k for k, o in enumerate(node.output) if o and (o in consumers or o in graph_outputs)
        ]
        for k in used:
            im = image and len(full_shape(node.output[k], node)) == 4
            n = b.unique((node.name or node.output[k]) + (f"_{k}" if len(used) > 1 else ""))
            b.placeholder(n, node.op_type, ins, sample_shape(node.output[k], node, im))
            out(node, n, im, k)
        if not used:
            b.unsupported(node.op_type, node.name or node.output[0])

    def copy(node: Any) -> None:
        """A zero-FLOP opaque layer per used output (slices, splits, broadcasts)."""
        x = next(i for i in node.input if i in acts)
        a = acts[x]
        for k, o in enumerate(node.output):
            if not o or (o not in consumers and o not in graph_outputs):
                continue
            im = a.image and len(full_shape(o, node)) == 4
            n = layer(
                node,
                "opaque",
                [a.layer],
                f"_{k}" if len(node.output) > 1 else "",
                shape=sample_shape(o, node, im),
                meta={"op_type": node.op_type},
            )
            out(node, n, im, k)

    def single_consumer(t: str, op: str) -> Any | None:
        c = consumers.get(t, [])
        return c[0] if len(c) == 1 and c[0].op_type == op and t not in graph_outputs else None

    def const_value(t: str) -> float | None:
        v = consts.get(t)
        return float(v.reshape(-1)[0]) if v is not None and v.size == 1 else None

    def try_gelu(node: Any) -> bool:
        """torch's exact GELU: Div(x, √2) → Erf → Add(1) → Mul(x, ·) → Mul(·, 0.5)."""
        x, c = node.input
        if (
            x not in acts
            or not is_const(c)
            or not math.isclose(const_value(c) or 0, math.sqrt(2), rel_tol=1e-3)
        ):
            return False
        chain, t = [], node.output[0]
        for op in ("Erf", "Add", "Mul", "Mul"):
            nxt = single_consumer(t, op)
            if nxt is None:  # (protobuf messages are not truthy: compare with None)
                return False
            chain.append(nxt)
            t = nxt.output[0]
        erf, add, mul, half = chain
        if not (
            x in mul.input
            and any(const_value(i) == 1.0 for i in add.input)
            and any(const_value(i) == 0.5 for i in half.input)
        ):
            return False
        n = b.unique(os.path.dirname((erf.name or "").rstrip("/")) or erf.name or "gelu")
        b.add(n, "gelu", [acts[x].layer])
        acts[half.output[0]] = _Act(n, acts[x].image)
        skip.update(id(m) for m in (erf, add, mul, half))
        return True

    def binary(node: Any, op: str) -> None:
        xs = [i for i in node.input if i in acts]
        cs = [i for i in node.input if i not in acts]
        if len(xs) == 2:
            a0, a1 = (acts[i] for i in xs)
            image = a0.image or a1.image
            ins = [as_image(acts[i], i, node) if image else acts[i].layer for i in xs]
            same = sample_shape(xs[0], node, image) == sample_shape(xs[1], node, image)
            kind = "add" if op in ("Add", "Sub") and same else "multiply"
            out(node, layer(node, kind, ins), image)
            return
        if len(xs) != 1:
            placeholder(node)
            return
        x, c = xs[0], cs[0]
        a = acts[x]
        csize = int(np.prod(full_shape(c, node))) if is_const(c) else -1
        slot = bias_slot.pop(x, None)
        if (
            op == "Add"
            and slot is not None
            and csize == slot[1]
            and len(consumers[x]) == 1
            and full_shape(c, node)[-1] == slot[1]
        ):
            slot[0]["use_bias"] = True  # torch's Linear on [N, T, d]: MatMul, then Add(bias)
            acts[node.output[0]] = a
            return
        if op == "Div" and try_gelu(node):
            return
        per_sample = int(np.prod(sample_shape(x, node, a.image)))
        if op == "Add" and csize == per_sample and c in {i.name for i in g.initializer}:
            out(node, layer(node, "position_embedding", [a.layer]), a.image)
            return
        out(node, layer(node, "rescaling", [a.layer], meta={"op_type": op}), a.image)

    def moved_batch_axis(node: Any, k: int, rank_in: int, rank_out: int) -> int:
        """Where the batch axis ``k`` of the input lands in the output of a reshape-like op."""
        at = _attrs(node)
        axes = at.get("axes")
        if axes is None and len(node.input) > 1 and consts.get(node.input[1]) is not None:
            axes = [int(v) for v in np.ravel(consts[node.input[1]])]
        if node.op_type == "Transpose":
            perm = list(at.get("perm", range(rank_in)[::-1]))
            return perm.index(k)
        if node.op_type == "Unsqueeze" and axes is not None:
            for ax in sorted(a % rank_out for a in axes):
                k += ax <= k
            return k
        if node.op_type == "Squeeze" and axes is not None:
            axes = [a % rank_in for a in axes]
            return 0 if k in axes else k - sum(a < k for a in axes)
        return k if k < rank_out else 0  # Reshape, Flatten: assume it stays

    def reshape(node: Any) -> None:
        x = node.input[0]
        a = acts[x]
        old = sample_shape(x, node, a.image)
        full = full_shape(node.output[0], node)
        k = (
            0
            if a.image
            else moved_batch_axis(node, bax.get(x, 0), len(full_shape(x, node)), len(full))
        )
        if k:
            bax[node.output[0]] = k
        new = full[:k] + full[k + 1 :]
        if int(np.prod(new)) != int(np.prod(old)) and int(np.prod(full)) == int(np.prod(old)):
            new = full  # batch folded into another dimension by a batch-1 export
        if new == old and not a.image:
            acts[node.output[0]] = a
        elif node.op_type == "Flatten" and len(new) == 1:
            out(node, layer(node, "flatten", [a.layer]), False)
        elif (
            a.image
            and len(full) == 4
            and node.op_type in ("Squeeze", "Unsqueeze")
            and full[1:] == full_shape(x, node)[1:]
        ):
            acts[node.output[0]] = a
        else:
            out(node, layer(node, "reshape", [a.layer], target_shape=new), False)

    def lstm(node: Any, at: dict[str, Any]) -> None:
        """Unroll an LSTM into ``lstm_cell`` timesteps sharing one weight per direction.

        Timestep t reads an ``opaque`` slice x_t of X; step 0 reads zero initial states, inputs
        ``<name>.h0`` / ``<name>.c0`` (ONNX's default when ``initial_h`` / ``initial_c`` are
        absent). Y is the concatenation of the h_t ([T, directions, H] per sample).
        """
        x = node.input[0]
        ins = list(node.input) + [""] * (8 - len(node.input))
        # Constant initial states are torch's zeros; states or lengths computed by the graph,
        # and peepholes, are not modelled.
        if (
            x not in acts
            or acts[x].image
            or any(ins[i] in acts for i in (4, 5, 6))
            or ins[7]
            or at.get("clip") is not None
            or at.get("input_forget", 0)
            or at.get("activations")
            not in (None, [b"Sigmoid", b"Tanh", b"Tanh"] * 2, [b"Sigmoid", b"Tanh", b"Tanh"])
        ):
            placeholder(node)  # initial states, sequence lengths, peepholes, clipping…
            return
        layout = int(at.get("layout", 0))
        d, four_h, i_dim = full_shape(ins[1], node)
        h_dim = four_h // 4
        xs = full_shape(x, node)
        t_axis = 1 if layout else 0
        if bax.get(x, 0) != 1 - t_axis or len(xs) != 3:
            placeholder(node)  # X is not [T, N, I] (layout 0) / [N, T, I] (layout 1)
            return
        steps = xs[t_axis]
        base = b.unique(node.name or node.output[0], "lstm")
        hs: list[list[str]] = []
        cs: list[str] = []
        for direction in range(d):
            tag = base if d == 1 else f"{base}.{('fwd', 'bwd')[direction]}"
            h = b.input(b.unique(f"{tag}.h0"), [h_dim])
            c = b.input(b.unique(f"{tag}.c0"), [h_dim])
            order = range(steps) if direction == 0 else range(steps - 1, -1, -1)
            outs: dict[int, str] = {}
            for t in order:
                xt = b.add(
                    b.unique(f"{tag}.x{t}"),
                    "opaque",
                    [acts[x].layer],
                    shape=[i_dim],
                    meta={"op_type": "LSTM timestep slice"},
                )
                cell = b.add(
                    b.unique(f"{tag}.t{t}"),
                    "lstm_cell",
                    [xt, h, c],
                    units=h_dim,
                    use_bias=bool(ins[3]),
                    weights=tag,
                )
                h, c = cell, f"{cell}/c"
                outs[t] = cell
            hs.append([outs[t] for t in range(steps)])
            cs.append(c)

        def used(k: int) -> bool:
            o = node.output[k] if k < len(node.output) else ""
            return bool(o) and (o in consumers or o in graph_outputs)

        if used(0):  # Y: [T, D, N, H] (layout 0) or [N, T, D, H]: per sample [T, D, H]
            rows = []
            for t in range(steps):
                parts = [
                    b.add(
                        b.unique(f"{base}.y{t}_{k}"),
                        "reshape",
                        [hs[k][t]],
                        target_shape=[1, 1, h_dim],
                    )
                    for k in range(d)
                ]
                rows.append(
                    parts[0] if d == 1 else b.add(b.unique(f"{base}.y{t}"), "concat", parts, axis=1)
                )
            y = b.add(b.unique(f"{base}.Y"), "concat", rows, axis=0)
            acts[node.output[0]] = _Act(y, False)
            bax[node.output[0]] = 2 if layout == 0 else 0
        for k, finals in ((1, [hs[j][-1 if j == 0 else 0] for j in range(d)]), (2, cs)):
            if not used(k):
                continue  # Y_h / Y_c: [D, N, H] (layout 0) or [N, D, H]: per sample [D, H]
            parts = [
                b.add(b.unique(f"{base}.{'hc'[k - 1]}{j}"), "reshape", [f], target_shape=[1, h_dim])
                for j, f in enumerate(finals)
            ]
            y = (
                parts[0]
                if d == 1
                else b.add(b.unique(f"{base}.Y_{'hc'[k - 1]}"), "concat", parts, axis=0)
            )
            acts[node.output[k]] = _Act(y, False)
            bax[node.output[k]] = 1 if layout == 0 else 0

    def pool(node: Any, at: dict[str, Any]) -> None:
        x = node.input[0]
        xi = as_image(acts[x], x, node)
        k = list(at["kernel_shape"])
        if len(k) != 2:
            placeholder(node)
            return
        s = list(at.get("strides", [1, 1]))
        p = list(at.get("pads", [0, 0, 0, 0]))
        fields: dict[str, Any] = {"pool_size": k, "strides": s}
        if _same_padding(at):
            fields["padding"] = "same"
        else:
            h, w = sample_shape(x, node, True)[:2]
            want = sample_shape(node.output[0], node, True)[:2]
            for d, size in ((0, h), (1, w)):  # ceil_mode: pad the end until floor() agrees
                while (size + p[d] + p[d + 2] - k[d]) // s[d] + 1 < want[d]:
                    p[d + 2] += s[d]
            fields["padding"] = [[p[0], p[2]], [p[1], p[3]]]
        kind = "maxpool" if node.op_type == "MaxPool" else "avgpool"
        out(node, layer(node, kind, [xi], **fields), True)

    for vi in g.input:
        if vi.name in consts:
            continue  # old exporters list initializers as inputs too
        s = shapes.get(vi.name)
        if s is None or len(s) < 2 or any(d is None for d in s[1:]):
            raise ValueError(
                f"{source}: graph input '{vi.name}' needs a static shape after "
                f"a batch dimension, got {s}"
            )
        image = len(s) == 4
        dims = [int(d) for d in s[1:] if d is not None]  # all of them: checked above
        per = list(hwc(dims)) if image else dims
        kw = {"dtype": _ELEM_INT[elem[vi.name]]} if elem.get(vi.name) in _ELEM_INT else {}
        acts[vi.name] = _Act(b.input(b.unique(vi.name, "input"), per, **kw), image)

    for node in g.node:
        if id(node) in skip:
            continue
        op, at = node.op_type, _attrs(node)
        ins = [i for i in node.input if i]
        if op == "Shape" and ins[0] in acts:
            consts[node.output[0]] = np.array(full_shape(ins[0], node), dtype=np.int64)
            continue
        if all(is_const(i) for i in ins):
            try:
                v = _eval_const(op, at, [consts[i] for i in ins])
            except Exception:  # a value nothing below needs; its shape still comes from inference
                v = None
            for o in node.output:
                consts[o] = v if len(node.output) == 1 else None
            continue
        x = ins[0]
        if op in _ALIASES:
            acts[node.output[0]] = acts[x]
        elif op == "Dropout":
            # Training is what dnnmem models, so a Dropout is a layer whatever training_mode says.
            rate = const_value(ins[1]) if len(ins) > 1 else float(at.get("ratio", 0.5))
            if not rate:
                acts[node.output[0]] = acts[x]
            else:
                out(node, layer(node, "dropout", [acts[x].layer], rate=rate), acts[x].image)
        elif op == "Conv":
            wshape = full_shape(node.input[1], node)
            if len(wshape) != 4 or x not in acts:
                placeholder(node)
                continue
            xi = as_image(acts[x], x, node)
            cpads = list(at.get("pads", [0, 0, 0, 0]))
            padding: Any = (
                "same" if _same_padding(at) else [[cpads[0], cpads[2]], [cpads[1], cpads[3]]]
            )
            fields = dict(
                filters=wshape[0],
                kernel_size=wshape[2:],
                strides=list(at.get("strides", [1, 1])),
                padding=padding,
                dilation=list(at.get("dilations", [1, 1])),
                groups=int(at.get("group", 1)),
                use_bias=len(ins) > 2,
            )
            n = layer(node, "conv2d", [xi], **fields)
            out(node, n, True)
            if len(ins) <= 2:
                bias_slot[node.output[0]] = (b.items[-1], wshape[0])
        elif op in ("Gemm", "MatMul"):
            wt = node.input[1]
            if x not in acts or at.get("transA", 0):
                placeholder(node)
                continue
            if wt in acts:
                trans: dict[str, Any] = {"transpose_b": True} if at.get("transB", 0) else {}
                out(node, layer(node, "matmul", [acts[x].layer, acts[wt].layer], **trans), False)
                continue
            wshape = full_shape(wt, node)
            if len(wshape) != 2:
                placeholder(node)
                continue
            units = wshape[0] if at.get("transB", 0) else wshape[1]
            xin = acts[x].layer
            if acts[x].image:  # a dense on an image flattens it (Gemm after GlobalAveragePool)
                xin = b.add(b.unique(f"{xin}_flatten"), "flatten", [xin])
            n = layer(node, "dense", [xin], units=units, use_bias=len(ins) > 2)
            out(node, n, False)
            if len(ins) <= 2:
                bias_slot[node.output[0]] = (b.items[-1], units)
        elif op in ("Add", "Sub", "Mul", "Div"):
            binary(node, op)
        elif op in _POINTWISE:
            out(node, layer(node, _POINTWISE[op], [acts[x].layer]), acts[x].image)
        elif op == "LeakyRelu":
            alpha = float(at.get("alpha", 0.01))
            out(node, layer(node, "leaky_relu", [acts[x].layer], alpha=alpha), acts[x].image)
        elif op == "Clip":
            out(
                node, layer(node, "relu6", [acts[x].layer], meta={"op_type": "Clip"}), acts[x].image
            )
        elif op == "Erf":
            out(node, layer(node, "tanh", [acts[x].layer], meta={"op_type": "Erf"}), acts[x].image)
        elif op == "BatchNormalization":
            a = acts[x]
            rank = len(full_shape(x, node))
            if rank == 4:
                out(node, layer(node, "batchnorm", [as_image(a, x, node)]), True)
            elif rank == 2:
                out(node, layer(node, "batchnorm", [a.layer]), False)
            else:
                placeholder(node)
        elif op == "LayerNormalization":
            rank = len(full_shape(x, node))
            if at.get("axis", -1) % rank != rank - 1 or acts[x].image:
                placeholder(node)
                continue
            out(node, layer(node, "layernorm", [acts[x].layer], center=len(ins) > 2), False)
        elif op in ("MaxPool", "AveragePool"):
            pool(node, at)
        elif op in ("GlobalAveragePool", "GlobalMaxPool"):
            kind = "global_avgpool" if op == "GlobalAveragePool" else "global_maxpool"
            out(node, layer(node, kind, [as_image(acts[x], x, node)], keepdims=True), True)
        elif op == "ReduceMean":
            axes = at.get("axes") or (
                list(consts[ins[1]]) if len(ins) > 1 and consts.get(ins[1]) is not None else None
            )
            if (
                len(full_shape(x, node)) == 4
                and axes is not None
                and sorted(int(i) % 4 for i in axes) == [2, 3]
            ):
                keep = bool(at.get("keepdims", 1))
                out(
                    node,
                    layer(node, "global_avgpool", [as_image(acts[x], x, node)], keepdims=keep),
                    keep,
                )
            else:
                placeholder(node)
        elif op in _RESHAPES:
            reshape(node)
        elif op == "Concat":
            if not all(i in acts for i in ins):
                placeholder(node)
                continue
            rank = len(full_shape(x, node))
            axis = int(at["axis"]) % rank
            image = rank == 4 and any(acts[i].image for i in ins)
            k = 0 if image else bax.get(x, 0)
            if axis == k or any(bax.get(i, 0) != k for i in ins if not image):
                placeholder(node)
                continue
            srcs = [as_image(acts[i], i, node) if image else acts[i].layer for i in ins]
            ax = {1: -1, 2: 0, 3: 1}[axis] if image else axis - (axis > k)
            out(node, layer(node, "concat", srcs, axis=ax), image)
        elif op == "Gather":
            data, idx = node.input[0], node.input[1]
            if is_const(data) and idx in acts and len(full_shape(data, node)) == 2:
                vocab, d = full_shape(data, node)
                out(
                    node,
                    layer(node, "embedding", [acts[idx].layer], input_dim=vocab, output_dim=d),
                    False,
                )
            elif data in acts:
                copy(node)
            else:
                placeholder(node)
        elif op in _COPIES:
            copy(node)
        elif op == "LSTM":
            lstm(node, at)
        elif op == "Pad":
            pads = at.get("pads") or (
                list(consts[ins[1]]) if len(ins) > 1 and consts.get(ins[1]) is not None else None
            )
            mode = _text(at, "mode", "constant")
            if (
                pads is not None
                and len(pads) == 8
                and mode == "constant"
                and pads[0] == pads[1] == pads[4] == pads[5] == 0
            ):
                xi = as_image(acts[x], x, node)
                out(
                    node,
                    layer(
                        node,
                        "zero_padding",
                        [xi],
                        padding=[[int(pads[2]), int(pads[6])], [int(pads[3]), int(pads[7])]],
                    ),
                    True,
                )
            else:
                copy(node)
        elif op in ("Resize", "Upsample"):
            if len(full_shape(x, node)) != 4:
                placeholder(node)
                continue
            h, w = sample_shape(x, node, True)[:2]
            oh, ow = sample_shape(node.output[0], node, True)[:2]
            if oh % h or ow % w:
                placeholder(node)
                continue
            mode = _text(at, "mode", "nearest")
            out(
                node,
                layer(
                    node,
                    "upsample",
                    [as_image(acts[x], x, node)],
                    size=[oh // h, ow // w],
                    interpolation="nearest" if mode == "nearest" else "bilinear",
                ),
                True,
            )
        else:
            placeholder(node)

    doc = b.finish(strict)
    _note_folded_batchnorm(g, source)
    return to_network(doc, batch, bytes_per_element, document)


def _computed_by_the_exporter(name: str) -> bool:
    """Whether a weight's name is one an exporter gives a tensor it computed (torch:
    ``onnx::Conv_28``; tf2onnx: ``..._fused_bn``, ``const_fold_opt__12``), not the name of a
    parameter of the model (``layer1.0.conv1.weight``)."""
    lower = name.lower()
    return name.startswith("onnx::") or "fused_bn" in lower or lower.startswith("const_fold_opt")


def _note_folded_batchnorm(g: Any, source: str) -> None:
    """Warn (:class:`FoldedBatchNormWarning`) when the exporter folded BatchNorm into the
    convolutions: convolutions whose weight and bias are both tensors the exporter computed
    (an eval-mode export with constant folding multiplies each BatchNorm's scale into its
    convolution's weight and adds a bias; a convolution that had none keeps its parameters'
    names). A training iteration runs each BatchNorm as a layer of its own."""
    convs = [n for n in g.node if n.op_type == "Conv"]
    folded = [
        n
        for n in convs
        if len(n.input) >= 3
        and n.input[2]
        and _computed_by_the_exporter(n.input[1])
        and _computed_by_the_exporter(n.input[2])
    ]
    if not folded:
        return
    import warnings

    from ._common import FoldedBatchNormWarning

    k = len(folded)
    names = ", ".join(n.input[1] for n in folded[:2]) + (", ..." if k > 2 else "")
    warnings.warn(
        FoldedBatchNormWarning(
            f"{source}: {k} of {len(convs)} convolutions have a weight and a bias that the "
            f"exporter computed ({names}): BatchNorm was folded into them (an eval-mode "
            f"export). Training runs each BatchNorm as a layer of its own, with an output "
            f"tensor and a backward step: this network has {k} batchnorm layer"
            f"{'s' if k > 1 else ''} fewer than the model trains with, so its activations, "
            f"FLOPs, traffic and time are underestimated (docs/importers.md). Export in "
            f"training mode instead: module.train(), torch.onnx.export(..., "
            f"do_constant_folding=False)"
        ),
        stacklevel=3,
    )

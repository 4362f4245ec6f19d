"""PyTorch modules → dnnmem network documents (``docs/importers-keras-torch.md``).

The module is captured with ``torch.export.export`` on example inputs (the ATen graph with
shapes: every node's ``meta["val"]`` is a fake tensor), and each ATen operator is mapped to the
kinds of ``docs/network-format.md``:

- The leading dimension of every tensor that depends on an input is the batch (a view that
  merges batch and sequence, as GPT-2's ``Conv1D`` does, is undone); shapes are per sample.
  4-D image tensors (NCHW in torch) become channels last (H, W, C).
- Views (view, reshape, permute, transpose, flatten, contiguous, expand, unsqueeze, …) move no
  data: they create no layer; where a consumer needs the viewed shape, a ``reshape`` layer
  (folded: no step, no tensor) is written.
- Tensors computed from constants only (attention masks, position ids from ``arange``) are not
  layers. A constant a layer reads as data (the position ids of an embedding) becomes an
  ``input`` layer.
- ``scaled_dot_product_attention`` becomes matmul (q·kᵀ), softmax, (dropout,) matmul (·v); the
  mask is folded into the softmax, as the zoo's transformer does.
- A softmax (or log-softmax) that produces a network output is dropped: the loss step applies it.
"""

from __future__ import annotations

import math
import operator
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

from ..network import Network, load_network
from ._common import PLACEHOLDER_KIND, DocumentBuilder, ImporterWarning

__all__ = ["from_torch"]

# ATen ops that only re-index or re-type their input (no data moves in dnnmem's model).
_VIEWS = {
    "view", "_unsafe_view", "reshape", "permute", "transpose", "t", "flatten", "contiguous",
    "clone", "unsqueeze", "squeeze", "alias", "detach", "to", "_to_copy", "type_as",
    "lift_fresh_copy", "view_as", "reshape_as", "unflatten", "expand", "expand_as",
    "_assert_tensor_metadata",
}
# One-input point-wise activations: ATen op name → kind.
_ACTIVATIONS = {
    "relu": "relu", "relu_": "relu", "gelu": "gelu", "silu": "swish", "silu_": "swish",
    "sigmoid": "sigmoid", "tanh": "tanh", "hardswish": "hard_swish", "hardswish_": "hard_swish",
    "hardsigmoid": "hard_sigmoid", "mish": "mish", "relu6": "relu6",
}
# One-input point-wise math with a constant (or none): one `rescaling` layer (2 FLOPs/element).
_POINTWISE_UNARY = {"neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "abs", "erf",
                    "clamp", "clamp_min", "clamp_max", "pow", "square"}
_BINARY = {"add", "add_", "sub", "sub_", "rsub", "mul", "mul_", "div", "div_"}
_SLICES = {"select", "slice", "narrow", "index", "index_select", "gather"}
_SPLITS = {"split", "split_with_sizes", "chunk", "unbind", "tensor_split"}
# Module class names whose forward is one activation written as several ATen ops (Hugging Face
# NewGELUActivation is mul/pow/add/tanh): collapsed into one layer of this kind.
_ACTIVATION_MODULES = [(re.compile(r"gelu", re.I), "gelu"), (re.compile(r"silu|swish", re.I),
                       "swish"), (re.compile(r"mish", re.I), "mish")]


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


def _one(v: list[int]) -> int | list[int]:
    return v[0] if v[0] == v[1] else list(v)


def _hwc(ps: Sequence[int]) -> tuple[int, ...]:
    """[C, H, W] → (H, W, C)."""
    c, h, w = ps
    return (int(h), int(w), int(c))


class _TorchImport:
    def __init__(self, ep: Any, name: str, strict: bool) -> None:
        import torch  # lazy: an optional dependency
        self.torch = torch
        self.ep = ep
        self.strict = strict
        self.b = DocumentBuilder(f"torch module {name!r}", name)
        self.values: dict[Any, _Value] = {}
        self.reshapes: dict[tuple[str, tuple[int, ...]], str] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}   # layer → dnnmem output shape
        self.inputs_of: dict[str, list[str]] = {}
        self.kind_of: dict[str, str] = {}
        self.param_owner: dict[str, str] = {}          # parameter fqn → first layer using it
        self.params: dict[str, int] = {}               # parameter fqn → elements
        self.batch = 1
        self.skip: set[Any] = set()
        self.ops_per_call: dict[str, int] = {}
        self.const_layers: dict[Any, _Value] = {}
        self.placeholder_params: set[int] = set()      # id() of parameters placeholders read
        self.pending: list[tuple[str, str]] = []       # unsupported (op, layer), if live
        self.buffers: dict[str, str] = {}              # placeholder name → buffer fqn
        self.bax: dict[Any, tuple[int, int]] = {}      # node → batch_axis() of its output

    # -- shapes ------------------------------------------------------------------------------
    def per_sample(self, shape: Sequence[int], node: Any) -> tuple[int, ...]:
        """Torch shape of ``node``'s output → per-sample shape: the batch (tracked by
        :meth:`batch_axis`) is taken out of its axis: the axis goes if it is the batch (or a
        broadcast 1), else it is divided by N (a batch merged with other dimensions, as
        GPT-2's ``Conv1D`` and ``nn.MultiheadAttention`` view their inputs)."""
        s = [int(d) for d in shape]
        if not s:
            return ()
        return self._drop_batch(s, min(self.batch_axis(node)[0], len(s) - 1), node)

    def const_per_sample(self, shape: Sequence[int], node: Any) -> tuple[int, ...]:
        """A constant read as data: its leading axis is the batch (or a broadcast 1)."""
        s = [int(d) for d in shape]
        return self._drop_batch(s, 0, node) if s else ()

    def _drop_batch(self, s: list[int], b: int, node: Any) -> tuple[int, ...]:
        n = self.batch
        if s[b] in (n, 1):
            del s[b]
        elif s[b] % n == 0:
            s[b] //= n
        else:
            raise ValueError(f"torch node {node.name!r}: cannot find the batch ({n}) in shape "
                             f"{tuple(self._shape_of(node))} (axis {b})")
        return tuple(s)

    def batch_axis(self, node: Any) -> tuple[int, int]:
        """Where the batch is in ``node``'s torch output: ``(axis, k)``, the axis of size
        k·N·m holding it, k the elements of that axis before it (inputs: ``(0, 1)``)."""
        if node not in self.bax:
            self.bax[node] = self._batch_axis(node)
        return self.bax[node]

    def _batch_axis(self, node: Any) -> tuple[int, int]:
        if node.op != "call_function":
            return (0, 1)
        op = _op_name(node.target)
        if op == "getitem":
            src = node.args[0]
            if _op_name(getattr(src, "target", None)) == "lstm" and node.args[1] in (1, 2):
                return (1, 1)  # h_n, c_n: [layers · directions, N, H]
            return self.batch_axis(src)
        srcs = [a for a in node.all_input_nodes
                if a in self.values and self.values[a].kind == "data"]
        if not srcs:
            return (0, 1)
        src = srcs[0]
        b, k = self.batch_axis(src)
        sin = self._shape_of(src)
        out = self._shape_of(node)
        if not sin or not out:
            return (0, 1)
        r_in = len(sin)
        if op in ("transpose", "t", "permute"):
            if op == "permute":
                perm = [d % r_in for d in node.args[1]]
            else:
                d0, d1 = ((node.args[1] % r_in, node.args[2] % r_in) if op == "transpose"
                          else (0, 1))
                perm = list(range(r_in))
                perm[d0], perm[d1] = d1, d0
            return (perm.index(b), k)
        if op in ("expand", "expand_as"):
            return (b + len(out) - r_in, k)
        if op == "select":
            return (b - 1 if node.args[1] % r_in < b else b, k)
        if op in ("view", "_unsafe_view", "reshape", "flatten", "unflatten", "view_as",
                  "reshape_as", "squeeze", "unsqueeze"):
            # A view keeps the element order: as many elements precede the batch as before.
            return self._locate(out, math.prod(sin[:b]) * k)
        if len(out) == r_in:
            return (b, k)
        return (min(b, len(out) - 1), 1)

    def _shape_of(self, node: Any) -> tuple[int, ...]:
        v = node.meta.get("val")
        if isinstance(v, (list, tuple)):
            v = next((t for t in v if hasattr(t, "shape")), None)
        return tuple(int(d) for d in v.shape) if v is not None and hasattr(v, "shape") else ()

    def _locate(self, out: Sequence[int], outer: int) -> tuple[int, int]:
        """``(axis, k)`` of the batch in a view of shape ``out`` when ``outer`` elements (in
        units of the batch stride) precede it."""
        n, before = self.batch, 1
        for j, d in enumerate(out):
            if outer % before == 0 and d % ((outer // before) * n) == 0 and (d > 1 or n == 1):
                return (j, outer // before)
            before *= d
        return (0, 1)

    def val_shape(self, node: Any) -> tuple[int, ...]:
        v = node.meta.get("val")
        return tuple(int(d) for d in v.shape)

    # -- emitting ----------------------------------------------------------------------------
    def raw_name(self, node: Any, params: Sequence[str] = ()) -> str:
        """A layer's name before making it unique: the module owning the parameters it holds
        (``conv1``; ``self_attn.in_proj`` for ``self_attn.in_proj_weight``), else the module
        path if the node is the only operator of that module call, else path + node name."""
        stack = node.meta.get("nn_module_stack") or {}
        if not stack:
            return node.name
        key, (path, _) = list(stack.items())[-1]
        for p in params:
            if path and p.startswith(path + "."):
                owner, _, leaf = p.rpartition(".")
                return owner if leaf in ("weight", "bias") else \
                    f"{owner}.{re.sub(r'_(weight|bias)$', '', leaf)}"
        if path and self.ops_per_call.get(key, 0) == 1:
            return path
        return f"{path}.{node.name}" if path else node.name

    def name_for(self, node: Any, params: Sequence[str] = ()) -> str:
        """A unique layer name for ``node`` (see :meth:`raw_name`)."""
        return self.b.unique(self.raw_name(node, params), node.name)

    def part_name(self, node: Any) -> str:
        """A unique name ``<module path>.<node name>`` (slices: never the module's name)."""
        stack = node.meta.get("nn_module_stack") or {}
        path = list(stack.values())[-1][0] if stack else ""
        return self.b.unique(f"{path}.{node.name}" if path else node.name, node.name)

    def emit(self, name: str, kind: str, inputs: Sequence[str], out_shape: Sequence[int],
             **fields: Any) -> str:
        """Add a layer whose dnnmem output shape is ``out_shape`` (checked after loading)."""
        self.b.add(name, kind, list(inputs), **fields)
        self.shapes[name] = tuple(int(d) for d in out_shape)
        self.inputs_of[name] = list(inputs)
        self.kind_of[name] = kind
        return name

    def data(self, node: Any, layer: str, image: bool = False) -> _Value:
        """Record that ``node``'s value is ``layer``'s output (its shape from torch)."""
        ps = self.per_sample(self.val_shape(node), node)
        return _Value("data", layer=layer, shape=self.shapes[layer], ps=ps, image=image,
                      node=node)

    def dn_shape(self, node: Any, image: bool) -> tuple[int, ...]:
        ps = self.per_sample(self.val_shape(node), node)
        return _hwc(ps) if image and len(ps) == 3 else ps

    def ref(self, arg: Any, image: bool | None = None) -> str:
        """The layer holding ``arg`` in the shape a consumer expects (a folded reshape if the
        producer's shape differs: views). ``image``: the consumer wants channels last."""
        v = self.value(arg)
        if v.kind == "const":
            v = self.const_input(arg)
        if v.kind != "data":
            raise ValueError(f"torch node {getattr(arg, 'name', arg)!r}: expected a tensor that "
                             f"depends on the inputs, got a {v.kind}")
        want_image = v.image if image is None else image
        want = _hwc(v.ps) if want_image and len(v.ps) == 3 else v.ps
        if want == v.shape:
            return v.layer
        key = (v.layer, want)
        if key not in self.reshapes:
            if math.prod(want) != math.prod(v.shape):
                raise ValueError(f"torch node {arg.name!r}: shape {want} does not have the "
                                 f"{math.prod(v.shape)} elements of layer {v.layer!r}")
            name = self.b.unique(f"{v.layer}_as_{'x'.join(map(str, want)) or 'scalar'}")
            self.reshapes[key] = self.emit(name, "reshape", [v.layer], want,
                                           target_shape=list(want))
        return self.reshapes[key]

    def const_input(self, node: Any) -> _Value:
        """A constant tensor read as data (position ids, a token type buffer): an input layer
        (one per constant; the constant stays a constant for every other consumer)."""
        if node in self.const_layers:
            return self.const_layers[node]
        name = self.b.unique(self.const_name(node), "const")
        t = node.meta["val"]
        ps = self.const_per_sample(t.shape, node)
        fields: dict[str, Any] = {}
        if not t.dtype.is_floating_point:
            fields["dtype"] = "int32" if str(t.dtype) == "torch.int32" else "int64"
        self.b.input(name, ps, **fields)
        self.shapes[name], self.inputs_of[name], self.kind_of[name] = ps, [], "input"
        v = _Value("data", layer=name, shape=ps, ps=ps, node=node)
        self.const_layers[node] = v
        return v

    def const_name(self, node: Any) -> str:
        """A buffer's name (``embeddings.token_type_ids``) if the constant is a view or slice
        of one, else ``<module path>.<node name>``."""
        n = node
        while n.op == "call_function" and n.args and isinstance(n.args[0], self.torch.fx.Node) \
                and _op_name(n.target) in _VIEWS | _SLICES:
            n = n.args[0]
        if n.op == "placeholder" and n.name in self.buffers:
            return self.buffers[n.name]
        stack = node.meta.get("nn_module_stack") or {}
        path = list(stack.values())[-1][0] if stack else ""
        return f"{path}.{node.name}" if path else node.name

    def value(self, arg: Any) -> _Value:
        if isinstance(arg, self.torch.fx.Node):
            return self.values[arg]
        return _Value("const")

    def claim(self, layer: str, fqns: Sequence[str | None], fields: dict[str, Any]) -> None:
        """``layer`` holds these parameters; a parameter already held makes it a shared W."""
        fqns = [f for f in fqns if f]
        owners = {self.param_owner[f] for f in fqns if f in self.param_owner}
        if owners:
            fields["weights"] = sorted(owners)[0]
        state = self.ep.state_dict
        if fqns and not any(getattr(state[f], "requires_grad", True) for f in fqns):
            fields["trainable"] = False  # frozen (requires_grad=False): no dW
        for f in fqns:
            self.param_owner.setdefault(f, layer)

    def param(self, arg: Any) -> str | None:
        """The parameter fqn behind an argument (None for None / a non-parameter)."""
        if arg is None:
            return None
        v = self.value(arg)
        return v.target if v.kind == "param" else None

    # -- the walk ----------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        torch = self.torch
        ep = self.ep
        sig = ep.graph_signature
        kinds = {s.arg.name: s for s in sig.input_specs if hasattr(s.arg, "name")}
        user = [n for n in ep.graph.nodes if n.op == "placeholder"
                and kinds[n.name].kind == torch.export.graph_signature.InputKind.USER_INPUT]
        data_inputs = [n for n in user if isinstance(n.meta.get("val"), torch.Tensor)]
        if not data_inputs:
            raise ValueError("example_inputs: no tensor input")
        self.batch = int(data_inputs[0].meta["val"].shape[0]) if data_inputs[0].meta[
            "val"].dim() else 1
        state = ep.state_dict
        for fqn in sig.parameters:
            self.params[fqn] = int(state[fqn].numel())
        groups = self.activation_groups()
        for node in ep.graph.nodes:
            stack = node.meta.get("nn_module_stack") if node.op == "call_function" else None
            if stack and _op_name(node.target) not in _VIEWS | {"getitem"}:
                key = list(stack)[-1]
                self.ops_per_call[key] = self.ops_per_call.get(key, 0) + 1
        for node in ep.graph.nodes:
            if node.op == "placeholder":
                spec = kinds[node.name]
                if spec.kind == torch.export.graph_signature.InputKind.USER_INPUT:
                    self.user_input(node)
                elif spec.kind == torch.export.graph_signature.InputKind.PARAMETER:
                    self.values[node] = _Value("param", target=spec.target, node=node)
                else:
                    self.values[node] = _Value("const", node=node)
                    if spec.target:
                        self.buffers[node.name] = str(spec.target)
            elif node.op == "call_function":
                if node in self.skip:
                    continue
                if node in groups:
                    self.activation_module(node, *groups[node])
                    continue
                self.call(node)
            elif node.op == "output":
                self.outputs(node)
        doc = self.b.finish(self.strict)
        self.check_params()
        return doc

    def user_input(self, node: Any) -> None:
        t = node.meta.get("val")
        if not isinstance(t, self.torch.Tensor):
            self.values[node] = _Value("const", node=node)
            return
        ps = self.per_sample(t.shape, node)
        image = len(ps) == 3 and t.dtype.is_floating_point
        shape = _hwc(ps) if image else ps
        name = self.b.unique(node.name, "input")
        fields: dict[str, Any] = {}
        if not t.dtype.is_floating_point:
            fields["dtype"] = "int32" if str(t.dtype) == "torch.int32" else "int64"
        self.b.input(name, shape, **fields)
        self.shapes[name], self.inputs_of[name], self.kind_of[name] = shape, [], "input"
        self.values[node] = _Value("data", layer=name, shape=shape, ps=ps, image=image, node=node)

    def activation_groups(self) -> dict[Any, tuple[str, list[Any]]]:
        """Runs of nodes inside one activation module (e.g. NewGELUActivation) → one layer."""
        result: dict[Any, tuple[str, list[Any]]] = {}
        run: list[Any] = []
        key = None

        def close() -> None:
            if len(run) < 2:
                return
            cls = key[1]
            kind = next((k for rx, k in _ACTIVATION_MODULES if rx.search(cls)), None)
            if kind is None or cls.startswith("torch.nn.modules."):
                return
            inside = set(run)
            ext = {a for n in run for a in n.all_input_nodes if a not in inside}
            used_outside = [n for n in run if any(u not in inside for u in n.users)]
            if len(ext) == 1 and used_outside == [run[-1]]:
                result[run[0]] = (kind, list(run))

        for node in self.ep.graph.nodes:
            stack = node.meta.get("nn_module_stack") if node.op == "call_function" else None
            k = None
            if stack:
                key_name, (path, cls) = list(stack.items())[-1]
                cls = cls if isinstance(cls, str) else f"{cls.__module__}.{cls.__qualname__}"
                k = (key_name, cls)
            if k != key:
                close()
                run, key = [], k
            if k is not None:
                run.append(node)
        close()
        return result

    def activation_module(self, first: Any, kind: str, run: list[Any]) -> None:
        inside = set(run)
        src = next(a for n in run for a in n.all_input_nodes if a not in inside)
        self.skip.update(run)
        v = self.value(src)
        if v.kind != "data":
            for n in run:
                self.values[n] = _Value("const", node=n)
            return
        last = run[-1]
        x = self.ref(src)
        path = list(last.meta["nn_module_stack"].values())[-1][0]
        name = self.b.unique(path or last.name, last.name)
        self.emit(name, kind, [x], self.shapes[x])
        self.values[last] = self.data(last, name, v.image)
        for n in run[:-1]:
            self.values[n] = _Value("const", node=n)  # never read outside the run

    def outputs(self, node: Any) -> None:
        torch = self.torch
        specs = self.ep.graph_signature.output_specs
        args = node.args[0]
        outs = []
        for spec, a in zip(specs, args):
            if spec.kind != torch.export.graph_signature.OutputKind.USER_OUTPUT:
                continue
            if isinstance(a, torch.fx.Node) and self.value(a).kind == "data":
                layer = self.value(a).layer
                # The loss step applies the final softmax (SPEC §2): the output is the logits.
                while self.kind_of.get(layer) in ("softmax", "log_softmax"):
                    layer = self.inputs_of[layer][0]
                outs.append(layer)
        if not outs:
            raise ValueError("the module has no output that depends on its inputs")
        self.prune(outs)

    def prune(self, outs: list[str]) -> None:
        """Drop layers no output depends on (mask computations, unused slices)."""
        live: set[str] = set()
        stack = list(outs)
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            stack.extend(self.inputs_of.get(n, []))
        self.b.items = [d for d in self.b.items if d["name"] in live]
        for op, name in self.pending:
            if name in live or name not in self.shapes:
                self.b.unsupported(op, name)

    def check_params(self) -> None:
        # Tied parameters (GPT-2's lm_head and wte) have several names for one tensor.
        state = self.ep.state_dict
        held = {id(state[p]) for p in self.param_owner} | self.placeholder_params
        unused = [p for p in self.params if id(state[p]) not in held]
        if unused:
            warnings.warn(f"{self.b.source}: parameters that no imported layer reads (not "
                          f"counted): {', '.join(unused)}", ImporterWarning, stacklevel=4)

    # -- one op ------------------------------------------------------------------------------
    def call(self, node: Any) -> None:
        op = _op_name(node.target)
        ins = [self.value(a) for a in node.all_input_nodes]
        if op == "getitem":
            src, idx = node.args
            v = self.value(src)
            if v.kind == "list":
                item = v.items[idx]
                if callable(item):  # built on first use (slices of a split, LSTM states)
                    item = item() if node.users else _Value("const", node=node)
                self.values[node] = item
            else:
                self.values[node] = _Value(v.kind if v.kind != "data" else "const", node=node)
                if v.kind == "data":
                    self.slice_(node, src)
            return
        if op in _VIEWS and ins and ins[0].kind == "param":
            self.values[node] = _Value("param", target=ins[0].target, node=node)
            return
        if not any(v.kind in ("data", "param") for v in ins):
            # Nothing here depends on an input or a parameter: a constant (masks, ids).
            self.values[node] = _Value("const", node=node)
            return
        val = node.meta.get("val")
        if val is None or (not isinstance(val, self.torch.Tensor)
                           and not isinstance(val, (list, tuple))):
            self.values[node] = _Value("const", node=node)  # asserts and other non-tensors
            return
        handler = getattr(self, f"op_{op}", None)
        if handler is not None:
            handler(node, _args(node))
        elif op in _VIEWS:
            self.view(node)
        elif op in _ACTIVATIONS:
            self.unary(node, _ACTIVATIONS[op])
        elif op in _BINARY:
            self.binary(node, op)
        elif op in _POINTWISE_UNARY:
            self.unary(node, "rescaling", meta={"op": op})
        elif op in _SLICES:
            self.slice_(node, node.args[0])
        elif op in _SPLITS:
            self.split(node)
        else:
            self.unsupported(node, f"aten.{op}")

    def unsupported(self, node: Any, op: str) -> None:
        state = self.ep.state_dict
        self.placeholder_params.update(id(state[v.target]) for v in map(self.value,
                                       node.all_input_nodes) if v.kind == "param")
        val = node.meta.get("val")
        if not isinstance(val, self.torch.Tensor):
            val = val[0] if isinstance(val, (list, tuple)) and val else None
        image_in = any(self.value(a).image for a in node.all_input_nodes)
        ps = self.per_sample(val.shape, node) if val is not None else ()
        image = image_in and len(ps) == 3
        shape = _hwc(ps) if image else ps
        ins = [self.ref(a) for a in node.all_input_nodes if self.value(a).kind == "data"]
        name = self.name_for(node)
        # Recorded as unsupported only if an output depends on it (see prune): mask
        # arithmetic on an attention_mask input ends in the folded mask and is dropped.
        self.b.add(name, PLACEHOLDER_KIND, ins, shape=list(shape),
                   meta={"op_type": op, "placeholder": True})
        self.pending.append((op, name))
        self.shapes[name], self.inputs_of[name], self.kind_of[name] = shape, ins, "opaque"
        v = _Value("data", layer=name, shape=shape, ps=ps, image=image, node=node)
        if isinstance(node.meta.get("val"), (list, tuple)):
            self.values[node] = _Value("list", items=[v] * len(node.meta["val"]), node=node)
        else:
            self.values[node] = v

    def view(self, node: Any) -> None:
        src = self.value(node.args[0])
        op = _op_name(node.target)
        if op in ("expand", "expand_as", "_assert_tensor_metadata"):
            # Broadcasting: consumers read the unexpanded tensor (numpy rules).
            self.values[node] = src
            return
        ps = self.per_sample(self.val_shape(node), node)
        same = ps == src.ps
        self.values[node] = _Value("data", layer=src.layer, shape=src.shape, ps=ps,
                                   image=src.image and same, node=node)

    def unary(self, node: Any, kind: str, **fields: Any) -> None:
        src = node.args[0]
        v = self.value(src)
        x = self.ref(src)
        name = self.name_for(node)
        self.emit(name, kind, [x], self.shapes[x], **fields)
        self.values[node] = self.data(node, name, v.image)

    def binary(self, node: Any, op: str) -> None:
        tensors = [a for a in node.args[:2] if isinstance(a, self.torch.fx.Node)]
        data = [a for a in tensors if self.value(a).kind == "data"]
        params = [self.value(a).target for a in tensors if self.value(a).kind == "param"]
        if op in ("add", "add_") and len(data) == 1 and len(params) == 1 \
                and self.params.get(params[0]) == math.prod(self.value(data[0]).ps):
            # A learned tensor added to every sample (ViT's position embeddings).
            x = self.ref(data[0], False)
            name = self.b.unique(params[0])  # named after the parameter
            fields: dict[str, Any] = {}
            self.claim(name, params, fields)
            self.emit(name, "position_embedding", [x], self.shapes[x], **fields)
            self.values[node] = self.data(node, name)
            return None
        if len(data) < 2:
            # With a constant (scalar, mask, buffer): one point-wise layer.
            return self.unary_from(node, data[0], "rescaling", meta={"op": op})
        vs = [self.value(a) for a in data]
        image = all(v.image for v in vs)
        xs = [self.ref(a, image) for a in data]
        name = self.name_for(node)
        shape = self.dn_shape(node, image)
        if op.startswith(("mul", "div")):
            kind = "multiply"
        else:
            kind = "add" if all(self.shapes[x] == shape for x in xs) else "multiply"
        fields: dict[str, Any] = {}
        if kind == "multiply" and not op.startswith("mul"):
            fields["meta"] = {"op": op}
        self.emit(name, kind, xs, shape, **fields)
        self.values[node] = self.data(node, name, image)

    def unary_from(self, node: Any, src: Any, kind: str, **fields: Any) -> None:
        v = self.value(src)
        x = self.ref(src)
        name = self.name_for(node)
        shape = self.dn_shape(node, v.image)
        if shape != self.shapes[x]:  # broadcast against a constant: read it in that shape
            x = self.ref_as(src, shape)
        self.emit(name, kind, [x], shape, **fields)
        self.values[node] = self.data(node, name, v.image)

    def ref_as(self, src: Any, shape: tuple[int, ...]) -> str:
        v = self.value(src)
        if math.prod(shape) != math.prod(v.shape):
            raise ValueError(f"torch node {src.name!r}: broadcast to {shape} by a constant "
                             "is not supported")
        key = (v.layer, shape)
        if key not in self.reshapes:
            name = self.b.unique(f"{v.layer}_as_{'x'.join(map(str, shape))}")
            self.reshapes[key] = self.emit(name, "reshape", [v.layer], shape,
                                           target_shape=list(shape))
        return self.reshapes[key]

    def slice_(self, node: Any, src: Any) -> None:
        """A part of a tensor (select, slice, getitem of a split): an opaque copy."""
        v = self.value(src)
        ps = self.per_sample(self.val_shape(node), node)
        if ps == v.ps:  # a slice over the whole range
            self.values[node] = _Value("data", layer=v.layer, shape=v.shape, ps=ps,
                                       image=v.image, node=node)
            return
        x = self.ref(src, False)
        name = self.part_name(node)
        self.emit(name, "opaque", [x], ps, shape=list(ps),
                  meta={"op": _op_name(node.target), "slice": True})
        self.values[node] = self.data(node, name)

    def split(self, node: Any) -> None:
        src = node.args[0]
        items = []
        base = self.raw_name(node)
        for i, t in enumerate(node.meta["val"]):
            def make(i: int = i, t: Any = t) -> _Value:
                ps = self.per_sample(t.shape, node)
                x = self.ref(src, False)
                name = self.b.unique(f"{base}_{i}")
                self.emit(name, "opaque", [x], ps, shape=list(ps),
                          meta={"op": _op_name(node.target), "slice": True})
                return _Value("data", layer=name, shape=ps, ps=ps, node=node)
            items.append(make)
        self.values[node] = _Value("list", items=items, node=node)

    # -- ops with their own mapping ----------------------------------------------------------
    def op_conv2d(self, node: Any, a: dict[str, Any]) -> None:
        x = self.ref(a["input"], True)
        w = a["weight"].meta["val"]
        out_c, in_per_group, kh, kw = (int(d) for d in w.shape)
        groups = int(a["groups"])
        in_c = self.shapes[x][-1]
        padding = a["padding"]
        pad: Any = padding if isinstance(padding, str) else _one(_pair(padding, 0))
        fields: dict[str, Any] = {"kernel_size": _one([kh, kw]),
                                  "strides": _one(_pair(a["stride"], 1)), "padding": pad,
                                  "dilation": _one(_pair(a["dilation"], 1)),
                                  "use_bias": a["bias"] is not None}
        params = [self.param(a["weight"]), self.param(a["bias"])]
        name = self.name_for(node, [p for p in params if p])
        if groups == in_c and groups > 1:
            kind = "depthwise_conv2d"
            fields["depth_multiplier"] = out_c // in_c
        else:
            kind = "conv2d"
            fields = {"filters": out_c, **fields}
            if groups != 1:
                fields["groups"] = groups
        self.claim(name, params, fields)
        self.emit(name, kind, [x], self.dn_shape(node, True), **fields)
        self.values[node] = self.data(node, name, True)

    def op_convolution(self, node: Any, a: dict[str, Any]) -> None:
        if a.get("transposed") or len(a["weight"].meta["val"].shape) != 4:
            return self.unsupported(node, "aten.convolution (not 2-D)")
        return self.op_conv2d(node, a)

    def _dense(self, node: Any, x_arg: Any, w_arg: Any, b_arg: Any) -> None:
        x = self.ref(x_arg, False)
        units = int(self.val_shape(node)[-1])
        params = [self.param(w_arg), self.param(b_arg)]
        name = self.name_for(node, [p for p in params if p])
        fields: dict[str, Any] = {"units": units, "use_bias": b_arg is not None}
        self.claim(name, params, fields)
        self.emit(name, "dense", [x], self.dn_shape(node, False), **fields)
        self.values[node] = self.data(node, name)

    def op_linear(self, node: Any, a: dict[str, Any]) -> None:
        self._dense(node, a["input"], a["weight"], a["bias"])

    def op_addmm(self, node: Any, a: dict[str, Any]) -> None:
        if self.value(a["mat2"]).kind == "param" and self.value(a["self"]).kind == "param":
            return self._dense(node, a["mat1"], a["mat2"], a["self"])
        return self.unsupported(node, "aten.addmm")

    def op_matmul(self, node: Any, a: dict[str, Any]) -> None:
        x_arg, y_arg = node.args[0], node.args[1]
        if self.value(y_arg).kind == "param" and self.value(x_arg).kind == "data":
            return self._dense(node, x_arg, y_arg, None)
        if self.value(x_arg).kind != "data" or self.value(y_arg).kind != "data":
            return self.unsupported(node, f"aten.{_op_name(node.target)} with a constant")
        xs = [self.ref(x_arg, False), self.ref(y_arg, False)]
        name = self.name_for(node)
        self.emit(name, "matmul", xs, self.dn_shape(node, False))
        self.values[node] = self.data(node, name)

    op_mm = op_bmm = op_matmul

    def op_scaled_dot_product_attention(self, node: Any, a: dict[str, Any]) -> None:
        q, k, v = (self.ref(a[n], False) for n in ("query", "key", "value"))
        base = self.name_for(node)
        hq, t, _ = self.shapes[q] if len(self.shapes[q]) == 3 else (1, *self.shapes[q])
        s = self.shapes[k][-2]
        qk_shape = (*self.shapes[q][:-1], s)
        qk = self.emit(self.b.unique(f"{base}.qk"), "matmul", [q, k], qk_shape,
                       transpose_b=True)
        sm = self.emit(self.b.unique(f"{base}.softmax"), "softmax", [qk], qk_shape)
        if float(a.get("dropout_p") or 0.0) > 0.0:
            sm = self.emit(self.b.unique(f"{base}.dropout"), "dropout", [sm], qk_shape,
                           rate=float(a["dropout_p"]))
        self.emit(base, "matmul", [sm, v], self.dn_shape(node, False))
        self.values[node] = self.data(node, base)

    def op_batch_norm(self, node: Any, a: dict[str, Any]) -> None:
        v = self.value(a["input"])
        if not (v.image or len(v.ps) == 1):
            return self.unsupported(node, "aten.batch_norm (not 2-D / 4-D)")
        x = self.ref(a["input"])
        params = [self.param(a["weight"]), self.param(a["bias"])]
        name = self.name_for(node, [p for p in params if p])
        fields: dict[str, Any] = {"center": a["bias"] is not None,
                                  "scale": a["weight"] is not None}
        self.claim(name, params, fields)
        self.emit(name, "batchnorm", [x], self.shapes[x], **fields)
        self.values[node] = self.data(node, name, v.image)

    def op__native_batch_norm_legit_no_training(self, node: Any, a: dict[str, Any]) -> None:
        self.op_batch_norm(node, a)
        self.values[node] = _Value("list", items=[self.values[node]] + [_Value("const")] * 2)

    op__native_batch_norm_legit = op__native_batch_norm_legit_no_training
    op__native_batch_norm_legit_functional = op__native_batch_norm_legit_no_training

    def op_layer_norm(self, node: Any, a: dict[str, Any]) -> None:
        if len(a["normalized_shape"]) != 1:
            return self.unsupported(node, "aten.layer_norm (over more than the last dim)")
        x = self.ref(a["input"], False)
        params = [self.param(a["weight"]), self.param(a["bias"])]
        name = self.name_for(node, [p for p in params if p])
        fields: dict[str, Any] = {"center": a["bias"] is not None,
                                  "scale": a["weight"] is not None}
        self.claim(name, params, fields)
        self.emit(name, "layernorm", [x], self.shapes[x], **fields)
        self.values[node] = self.data(node, name)

    def op_embedding(self, node: Any, a: dict[str, Any]) -> None:
        ids = self.ref(a["indices"], False)
        rows, width = (int(d) for d in a["weight"].meta["val"].shape)
        params = [self.param(a["weight"])]
        name = self.name_for(node, [p for p in params if p])
        fields: dict[str, Any] = {"input_dim": rows, "output_dim": width}
        self.claim(name, params, fields)
        self.emit(name, "embedding", [ids], (*self.shapes[ids], width), **fields)
        self.values[node] = self.data(node, name)

    def op_hardtanh(self, node: Any, a: dict[str, Any]) -> None:
        if float(a["min_val"]) == 0.0 and float(a["max_val"]) == 6.0:
            return self.unary(node, "relu6")
        return self.unsupported(node, f"aten.hardtanh({a['min_val']}, {a['max_val']})")

    op_hardtanh_ = op_hardtanh

    def op_leaky_relu(self, node: Any, a: dict[str, Any]) -> None:
        self.unary(node, "leaky_relu", alpha=float(a["negative_slope"]))

    op_leaky_relu_ = op_leaky_relu

    def _softmax(self, node: Any, a: dict[str, Any], kind: str) -> None:
        v = self.value(a["self"])
        dim = int(a["dim"])
        rank = len(self.val_shape(node))
        if dim % rank != rank - 1 or v.image:
            return self.unsupported(node, f"aten.{_op_name(node.target)} (not over the last "
                                    "dimension)")
        self.unary(node, "softmax")
        self.kind_of[self.values[node].layer] = kind

    def op_softmax(self, node: Any, a: dict[str, Any]) -> None:
        self._softmax(node, a, "softmax")

    op__softmax = op_softmax

    def op_log_softmax(self, node: Any, a: dict[str, Any]) -> None:
        # Counted as a softmax; dropped like one when it is the output (the loss step's).
        self._softmax(node, a, "log_softmax")

    op__log_softmax = op_log_softmax

    def op_dropout(self, node: Any, a: dict[str, Any]) -> None:
        p = float(a.get("p") or 0.0)
        if p <= 0.0:
            return self.view(node)
        self.unary(node, "dropout", rate=p)

    op_feature_dropout = op_dropout

    def op_native_dropout(self, node: Any, a: dict[str, Any]) -> None:
        self.op_dropout(node, {"p": a["p"]})
        self.values[node] = _Value("list", items=[self.values[node], _Value("const")])

    def _pool(self, node: Any, a: dict[str, Any], kind: str) -> None:
        x = self.ref(a["self"], True)
        k = _pair(a["kernel_size"], 1)
        s = _pair(a["stride"], 0)
        s = k if s == [0, 0] else s
        p = _pair(a["padding"], 0)
        if kind == "maxpool" and _pair(a.get("dilation"), 1) != [1, 1]:
            return self.unsupported(node, "aten.max_pool2d (dilated)")
        h, w, _ = self.shapes[x]
        out_h, out_w, _ = self.dn_shape(node, True)
        # ceil_mode: the extra window at the bottom / right, as padding there.
        extra = [max(0, (o - 1) * st + kk - (i + 2 * pp))
                 for o, st, kk, i, pp in zip((out_h, out_w), s, k, (h, w), p)]
        pad: Any = _one(p) if extra == [0, 0] else [[p[0], p[0] + extra[0]],
                                                     [p[1], p[1] + extra[1]]]
        name = self.name_for(node)
        self.emit(name, kind, [x], self.dn_shape(node, True), pool_size=_one(k),
                  strides=_one(s), padding=pad)
        self.values[node] = self.data(node, name, True)

    def op_max_pool2d(self, node: Any, a: dict[str, Any]) -> None:
        self._pool(node, a, "maxpool")

    def op_max_pool2d_with_indices(self, node: Any, a: dict[str, Any]) -> None:
        self._pool(node, a, "maxpool")
        self.values[node] = _Value("list", items=[self.values[node], _Value("const")])

    def op_avg_pool2d(self, node: Any, a: dict[str, Any]) -> None:
        self._pool(node, a, "avgpool")

    def _adaptive(self, node: Any, a: dict[str, Any], glob: str, local: str) -> None:
        x = self.ref(a["self"], True)
        h, w, _ = self.shapes[x]
        oh, ow, c = self.dn_shape(node, True)
        name = self.name_for(node)
        if (oh, ow) == (1, 1):
            self.emit(name, glob, [x], (1, 1, c), keepdims=True)
        elif (oh, ow) == (h, w):
            self.emit(name, "identity", [x], (h, w, c))
        elif h % oh == 0 and w % ow == 0:
            self.emit(name, local, [x], (oh, ow, c), pool_size=_one([h // oh, w // ow]))
        else:
            return self.unsupported(node, f"aten.{_op_name(node.target)} ({h}×{w} → {oh}×{ow})")
        self.values[node] = self.data(node, name, True)

    def op_adaptive_avg_pool2d(self, node: Any, a: dict[str, Any]) -> None:
        self._adaptive(node, a, "global_avgpool", "avgpool")

    def op_adaptive_max_pool2d(self, node: Any, a: dict[str, Any]) -> None:
        self._adaptive(node, a, "global_maxpool", "maxpool")
        self.values[node] = _Value("list", items=[self.values[node], _Value("const")])

    def op_mean(self, node: Any, a: dict[str, Any]) -> None:
        v = self.value(node.args[0])
        dims = sorted(int(d) % 4 for d in (node.args[1] if len(node.args) > 1 else []))
        if not (v.image and dims == [2, 3]):
            return self.unsupported(node, "aten.mean (not over H and W of an image)")
        x = self.ref(node.args[0], True)
        keep = bool(node.args[2]) if len(node.args) > 2 else bool(node.kwargs.get("keepdim"))
        name = self.name_for(node)
        c = self.shapes[x][-1]
        self.emit(name, "global_avgpool", [x], (1, 1, c) if keep else (c,), keepdims=keep)
        self.values[node] = self.data(node, name, keep)

    def op_cat(self, node: Any, a: dict[str, Any]) -> None:
        tensors = list(a["tensors"])
        vs = [self.value(t) for t in tensors]
        kinds = [v.kind for v in vs]
        if sorted(kinds) == ["data", "param"] and kinds[0] == "param" and int(a["dim"]) == 1 \
                and len(self.val_shape(node)) == 3:
            # A learned token prepended to the sequence (ViT's class token): [T, d] → [T+1, d].
            x = self.ref(tensors[1], False)
            params = [vs[0].target]
            if self.params.get(params[0]) != self.shapes[x][-1]:
                return self.unsupported(node, "aten.cat of a parameter")
            name = self.b.unique(params[0])  # named after the parameter
            fields: dict[str, Any] = {}
            self.claim(name, params, fields)
            self.emit(name, "class_token", [x], self.dn_shape(node, False), **fields)
            self.values[node] = self.data(node, name)
            return None
        image = all(v.image or v.kind == "const" for v in vs) and any(v.image for v in vs)
        rank = len(self.val_shape(node))
        dim = int(a["dim"]) % rank
        if dim == 0:
            return self.unsupported(node, "aten.cat (along the batch)")
        if image:
            axis = {1: 2, 2: 0, 3: 1}[dim]
        else:
            axis = dim - 1
        xs = [self.ref(t, image) for t in tensors]
        name = self.name_for(node)
        self.emit(name, "concat", xs, self.dn_shape(node, image), axis=axis)
        self.values[node] = self.data(node, name, image)

    op_concat = op_cat

    def op_constant_pad_nd(self, node: Any, a: dict[str, Any]) -> None:
        v = self.value(a["self"])
        pad = [int(p) for p in a["pad"]]
        if not v.image or len(pad) != 4 or min(pad) < 0 or float(a.get("value") or 0) != 0:
            return self.unsupported(node, "aten.constant_pad_nd (not a zero padding of H, W)")
        x = self.ref(a["self"], True)
        left, right, top, bottom = pad
        name = self.name_for(node)
        self.emit(name, "zero_padding", [x], self.dn_shape(node, True),
                  padding=[[top, bottom], [left, right]])
        self.values[node] = self.data(node, name, True)

    def op_pad(self, node: Any, a: dict[str, Any]) -> None:
        if a.get("mode", "constant") != "constant":
            return self.unsupported(node, f"aten.pad (mode {a['mode']!r})")
        self.op_constant_pad_nd(node, {"self": a["self"], "pad": a["pad"],
                                       "value": a.get("value")})

    def _upsample(self, node: Any, interpolation: str) -> None:
        x = self.ref(node.args[0], True)
        h, w, _ = self.shapes[x]
        oh, ow, _ = self.dn_shape(node, True)
        if oh % h or ow % w:
            return self.unsupported(node, f"aten.{_op_name(node.target)} (not an integer "
                                    "scale)")
        name = self.name_for(node)
        self.emit(name, "upsample", [x], (oh, ow, self.shapes[x][-1]),
                  size=_one([oh // h, ow // w]), interpolation=interpolation)
        self.values[node] = self.data(node, name, True)

    def op_upsample_nearest2d(self, node: Any, a: dict[str, Any]) -> None:
        self._upsample(node, "nearest")

    def op_upsample_bilinear2d(self, node: Any, a: dict[str, Any]) -> None:
        self._upsample(node, "bilinear")


    def op_lstm(self, node: Any, a: dict[str, Any]) -> None:
        """Unroll ``nn.LSTM`` into ``lstm_cell`` timesteps sharing one weight set per layer and
        direction (``docs/importers-keras-torch.md``)."""
        if self.batch_axis(a["input"]) != ((0 if a["batch_first"] else 1), 1):
            return self.unsupported(node, "aten.lstm (the batch is not on the batch_first "
                                    "axis)")
        if any(self.value(h).kind == "data" for h in a["hx"]):
            return self.unsupported(node, "aten.lstm (initial state from the inputs)")
        dirs = 2 if a["bidirectional"] else 1
        layers = int(a["num_layers"])
        per = 4 if a["has_biases"] else 2
        params = [self.param(p) for p in a["params"]]
        if len(params) != layers * dirs * per:
            return self.unsupported(node, "aten.lstm (projections)")
        hidden = int(a["params"][1].meta["val"].shape[1])
        x = self.ref(a["input"], False)
        steps = self.shapes[x][0]
        width = self.shapes[x][-1]
        stack = node.meta.get("nn_module_stack") or {}
        base = (list(stack.values())[-1][0] if stack else "") or node.name
        zero = self.b.unique(f"{base}.zero_state")
        self.b.input(zero, [1, hidden])
        self.shapes[zero], self.inputs_of[zero], self.kind_of[zero] = (1, hidden), [], "input"
        # Layer 1 reads the sequence one step at a time: slices [1, d] (opaque copies).
        seq = [self.emit(self.b.unique(f"{base}.x{t}"), "opaque", [x], (1, width),
                         shape=[1, width], meta={"op": "select", "slice": True})
               for t in range(steps)]
        for layer in range(layers):
            outs = []
            for d in range(dirs):
                group = params[(layer * dirs + d) * per:(layer * dirs + d + 1) * per]
                suffix = f"l{layer}" + ("_reverse" if d else "")
                weights = self.b.unique(f"{base}.{suffix}")
                order = range(steps) if d == 0 else range(steps - 1, -1, -1)
                h = c = zero
                hs: dict[int, str] = {}
                for t in order:
                    name = weights if not hs else self.b.unique(f"{weights}.t{t}")
                    fields: dict[str, Any] = {"units": hidden, "use_bias": per == 4,
                                              "weights": weights}
                    if not hs:
                        self.claim(name, group, {})
                    self.emit(name, "lstm_cell", [seq[t], h, c], (1, hidden), **fields)
                    self.shapes[f"{name}/c"] = (1, hidden)
                    h, c = name, f"{name}/c"
                    hs[t] = name
                outs.append(hs)
            if dirs == 1:
                seq = [outs[0][t] for t in range(steps)]
            else:
                seq = [self.emit(self.b.unique(f"{base}.l{layer}.t{t}"), "concat",
                                 [outs[0][t], outs[1][t]], (1, 2 * hidden), axis=-1)
                       for t in range(steps)]
        out = seq[0] if steps == 1 else self.emit(self.b.unique(base), "concat", seq,
                                                   (steps, dirs * hidden), axis=0)
        y = _Value("data", layer=out, shape=self.shapes[out], ps=(steps, dirs * hidden),
                   node=node)
        last = seq[-1]
        h_n = _Value("data", layer=last, shape=self.shapes[last], ps=self.shapes[last],
                     node=node) if layers * dirs == 1 else None
        self.values[node] = _Value("list", items=[y, h_n or self._lstm_state(node, 1),
                                                  self._lstm_state(node, 2)], node=node)

    def _lstm_state(self, node: Any, i: int) -> Any:
        """h_n / c_n beyond one layer and direction: not mapped (a placeholder if read)."""
        def make() -> _Value:
            self.pending.append((f"aten.lstm output {i} (h_n/c_n)", node.name))
            return _Value("const", node=node)
        return make

def from_torch(module: Any, example_inputs: Any = None, *, batch: int | None = None,
               strict: bool = True, document: bool = False, bytes_per_element: int = 4,
               example_kwargs: dict[str, Any] | None = None,
               name: str | None = None) -> Network | dict[str, Any]:
    """Import a PyTorch module through ``torch.export``.

    Parameters
    ----------
    module : torch.nn.Module or torch.export.ExportedProgram or str or os.PathLike
        The module (exported on ``example_inputs``), an already exported program, or the
        path of a ``.pt2`` file written by ``torch.export.save``.
    example_inputs : tuple or torch.Tensor
        Positional example inputs (a single tensor is wrapped). The leading dimension of each
        tensor is the batch; shapes are taken from them.
    batch : int, optional
        Mini-batch size of the returned network (default: the examples' batch).
    strict : bool
        True: ATen operators the importer cannot map raise :class:`UnsupportedOperatorError`
        listing each operator and its nodes. False: they become zero-FLOP placeholders (kind
        ``opaque``) with an :class:`ImporterWarning`.
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.
    bytes_per_element : int
        Element size of the returned network (4: FP32).
    example_kwargs : dict, optional
        Keyword example inputs (e.g. ``{"use_cache": False}`` for Hugging Face models).
    name : str, optional
        The document's name (default: the module's class name).

    Returns
    -------
    Network or dict
        The network (or its document).

    Raises
    ------
    ValueError
        No tensor input, a shape without the batch in front, a ``.pt`` file (it needs example
        inputs: export to ``.pt2``), or a shape the mapping cannot reconcile.
    UnsupportedOperatorError
        ``strict=True`` and some operators have no dnnmem kind.
    """
    import torch  # lazy: an optional dependency

    if isinstance(module, (str, os.PathLike)):
        path = os.fspath(module)
        if not path.lower().endswith(".pt2"):
            raise ValueError(f"{path}: only .pt2 files (torch.export.save) can be imported "
                             "without example inputs; for a module, call from_torch(module, "
                             "example_inputs)")
        ep = torch.export.load(path)
        name = name or os.path.splitext(os.path.basename(path))[0]
    elif isinstance(module, torch.export.ExportedProgram):
        ep = module
        name = name or "exported_program"
    else:
        if example_inputs is None:
            raise ValueError("example_inputs: required to export a torch.nn.Module")
        if isinstance(example_inputs, torch.Tensor):
            example_inputs = (example_inputs,)
        ep = torch.export.export(module, tuple(example_inputs), kwargs=example_kwargs)
        name = name or type(module).__name__
    imp = _TorchImport(ep, name, strict)
    doc = imp.run()
    net = load_network(doc, batch=batch or imp.batch, bytes_per_element=bytes_per_element)
    _check_shapes(net, imp.shapes)
    return doc if document else net


def _check_shapes(net: Network, expected: dict[str, tuple[int, ...]]) -> None:
    """Every layer's shape as dnnmem infers it equals torch's (a mapping bug otherwise)."""
    for layer, shape in zip(net.layers["name"], net.layers["output_shape"]):
        if layer in expected and tuple(shape) != expected[layer]:
            raise ValueError(f"layer {layer!r}: dnnmem infers shape {tuple(shape)}, torch has "
                             f"{expected[layer]} (an importer bug: please report)")

"""The walk over a ``torch.export`` graph that writes the network document (``torch.py``)."""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Sequence
from typing import Any

from ._common import PLACEHOLDER_KIND, DocumentBuilder, ImporterWarning, hwc
from ._torch_common import (
    _ACTIVATION_MODULES,
    _ACTIVATIONS,
    _BINARY,
    _POINTWISE_UNARY,
    _SLICES,
    _SPLITS,
    _VIEWS,
    _args,
    _op_name,
    _Value,
)
from ._torch_ops import _OpMappings


class _TorchImport(_OpMappings):
    """One import of an exported program: values per fx node, the document being written."""

    def __init__(self, ep: Any, name: str, strict: bool) -> None:
        import torch  # lazy: an optional dependency

        self.torch = torch
        self.ep = ep
        self.strict = strict
        self.b = DocumentBuilder(f"torch module {name!r}", name)
        self.values: dict[Any, _Value] = {}
        self.reshapes: dict[tuple[str, tuple[int, ...]], str] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}  # layer → dnnmem output shape
        self.inputs_of: dict[str, list[str]] = {}
        self.kind_of: dict[str, str] = {}
        self.param_owner: dict[str, str] = {}  # parameter fqn → first layer using it
        self.params: dict[str, int] = {}  # parameter fqn → elements
        self.batch = 1
        self.skip: set[Any] = set()
        self.ops_per_call: dict[str, int] = {}
        self.const_layers: dict[Any, _Value] = {}
        self.placeholder_params: set[int] = set()  # id() of parameters placeholders read
        self.pending: list[tuple[str, str]] = []  # unsupported (op, layer), if live
        self.buffers: dict[str, str] = {}  # placeholder name → buffer fqn
        self.bax: dict[Any, tuple[int, int]] = {}  # node → batch_axis() of its output

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
            raise ValueError(
                f"torch node {node.name!r}: cannot find the batch ({n}) in shape "
                f"{tuple(self._shape_of(node))} (axis {b})"
            )
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
        srcs = [
            a for a in node.all_input_nodes if a in self.values and self.values[a].kind == "data"
        ]
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
                d0, d1 = (node.args[1] % r_in, node.args[2] % r_in) if op == "transpose" else (0, 1)
                perm = list(range(r_in))
                perm[d0], perm[d1] = d1, d0
            return (perm.index(b), k)
        if op in ("expand", "expand_as"):
            return (b + len(out) - r_in, k)
        if op == "select":
            return (b - 1 if node.args[1] % r_in < b else b, k)
        if op in (
            "view",
            "_unsafe_view",
            "reshape",
            "flatten",
            "unflatten",
            "view_as",
            "reshape_as",
            "squeeze",
            "unsqueeze",
        ):
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
                return (
                    owner
                    if leaf in ("weight", "bias")
                    else f"{owner}.{re.sub(r'_(weight|bias)$', '', leaf)}"
                )
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

    def emit(
        self, name: str, kind: str, inputs: Sequence[str], out_shape: Sequence[int], **fields: Any
    ) -> str:
        """Add a layer whose dnnmem output shape is ``out_shape`` (checked after loading)."""
        self.b.add(name, kind, list(inputs), **fields)
        self.shapes[name] = tuple(int(d) for d in out_shape)
        self.inputs_of[name] = list(inputs)
        self.kind_of[name] = kind
        return name

    def data(self, node: Any, layer: str, image: bool = False) -> _Value:
        """Record that ``node``'s value is ``layer``'s output (its shape from torch)."""
        ps = self.per_sample(self.val_shape(node), node)
        return _Value("data", layer=layer, shape=self.shapes[layer], ps=ps, image=image, node=node)

    def dn_shape(self, node: Any, image: bool) -> tuple[int, ...]:
        ps = self.per_sample(self.val_shape(node), node)
        return hwc(ps) if image and len(ps) == 3 else ps

    def ref(self, arg: Any, image: bool | None = None) -> str:
        """The layer holding ``arg`` in the shape a consumer expects (a folded reshape if the
        producer's shape differs: views). ``image``: the consumer wants channels last."""
        v = self.value(arg)
        if v.kind == "const":
            v = self.const_input(arg)
        if v.kind != "data":
            raise ValueError(
                f"torch node {getattr(arg, 'name', arg)!r}: expected a tensor that "
                f"depends on the inputs, got a {v.kind}"
            )
        want_image = v.image if image is None else image
        want = hwc(v.ps) if want_image and len(v.ps) == 3 else v.ps
        if want == v.shape:
            return v.layer
        key = (v.layer, want)
        if key not in self.reshapes:
            if math.prod(want) != math.prod(v.shape):
                raise ValueError(
                    f"torch node {arg.name!r}: shape {want} does not have the "
                    f"{math.prod(v.shape)} elements of layer {v.layer!r}"
                )
            name = self.b.unique(f"{v.layer}_as_{'x'.join(map(str, want)) or 'scalar'}")
            self.reshapes[key] = self.emit(
                name, "reshape", [v.layer], want, target_shape=list(want)
            )
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
        while (
            n.op == "call_function"
            and n.args
            and isinstance(n.args[0], self.torch.fx.Node)
            and _op_name(n.target) in _VIEWS | _SLICES
        ):
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
            if f is not None:
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
        user = [
            n
            for n in ep.graph.nodes
            if n.op == "placeholder"
            and kinds[n.name].kind == torch.export.graph_signature.InputKind.USER_INPUT
        ]
        data_inputs = [n for n in user if isinstance(n.meta.get("val"), torch.Tensor)]
        if not data_inputs:
            raise ValueError("example_inputs: no tensor input")
        self.batch = (
            int(data_inputs[0].meta["val"].shape[0]) if data_inputs[0].meta["val"].dim() else 1
        )
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
        shape = hwc(ps) if image else ps
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
        key: tuple[str, str] | None = None  # (module path, class) of the run

        def close() -> None:
            if len(run) < 2 or key is None:  # a run is never empty without a key
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
                key_name, (_path, cls) = list(stack.items())[-1]
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
            warnings.warn(
                f"{self.b.source}: parameters that no imported layer reads (not "
                f"counted): {', '.join(unused)}",
                ImporterWarning,
                stacklevel=4,
            )

    # -- one op ------------------------------------------------------------------------------
    def call(self, node: Any) -> None:
        op = _op_name(node.target)
        ins = [self.value(a) for a in node.all_input_nodes]
        if op == "getitem":
            src, idx = node.args
            v = self.value(src)
            if v.kind == "list":
                assert v.items is not None  # a "list" value always has its items
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
        if val is None or (
            not isinstance(val, self.torch.Tensor) and not isinstance(val, (list, tuple))
        ):
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
        self.placeholder_params.update(
            id(state[v.target]) for v in map(self.value, node.all_input_nodes) if v.kind == "param"
        )
        val = node.meta.get("val")
        if not isinstance(val, self.torch.Tensor):
            val = val[0] if isinstance(val, (list, tuple)) and val else None
        image_in = any(self.value(a).image for a in node.all_input_nodes)
        ps = self.per_sample(val.shape, node) if val is not None else ()
        image = image_in and len(ps) == 3
        shape = hwc(ps) if image else ps
        ins = [self.ref(a) for a in node.all_input_nodes if self.value(a).kind == "data"]
        name = self.name_for(node)
        # Recorded as unsupported only if an output depends on it (see prune): mask
        # arithmetic on an attention_mask input ends in the folded mask and is dropped.
        self.b.add(
            name,
            PLACEHOLDER_KIND,
            ins,
            shape=list(shape),
            meta={"op_type": op, "placeholder": True},
        )
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
        self.values[node] = _Value(
            "data", layer=src.layer, shape=src.shape, ps=ps, image=src.image and same, node=node
        )

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
        if (
            op in ("add", "add_")
            and len(data) == 1
            and len(params) == 1
            and self.params.get(params[0]) == math.prod(self.value(data[0]).ps)
        ):
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
        fields = {}
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
            raise ValueError(
                f"torch node {src.name!r}: broadcast to {shape} by a constant is not supported"
            )
        key = (v.layer, shape)
        if key not in self.reshapes:
            name = self.b.unique(f"{v.layer}_as_{'x'.join(map(str, shape))}")
            self.reshapes[key] = self.emit(
                name, "reshape", [v.layer], shape, target_shape=list(shape)
            )
        return self.reshapes[key]

    def slice_(self, node: Any, src: Any) -> None:
        """A part of a tensor (select, slice, getitem of a split): an opaque copy."""
        v = self.value(src)
        ps = self.per_sample(self.val_shape(node), node)
        if ps == v.ps:  # a slice over the whole range
            self.values[node] = _Value(
                "data", layer=v.layer, shape=v.shape, ps=ps, image=v.image, node=node
            )
            return
        x = self.ref(src, False)
        name = self.part_name(node)
        self.emit(
            name,
            "opaque",
            [x],
            ps,
            shape=list(ps),
            meta={"op": _op_name(node.target), "slice": True},
        )
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
                self.emit(
                    name,
                    "opaque",
                    [x],
                    ps,
                    shape=list(ps),
                    meta={"op": _op_name(node.target), "slice": True},
                )
                return _Value("data", layer=name, shape=ps, ps=ps, node=node)

            items.append(make)
        self.values[node] = _Value("list", items=items, node=node)

"""ATen operators with a mapping of their own, as a mixin of the graph walk (``torch.py``).

Each ``op_<aten name>(node, args)`` writes the layers for one node and records its value; the
walk (``_torch_graph.py``) dispatches on the ATen name and handles views, point-wise operators,
slices and unsupported operators itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._common import collapse_pair
from ._torch_common import _op_name, _pair, _Value


class _OpMappings:
    """``op_*`` handlers; ``self`` is a ``_TorchImport`` (``_torch_graph.py``)."""

    if TYPE_CHECKING:
        # The graph walk that mixes this class in holds the state and helpers (b, shapes,
        # values, emit, ref, …) the handlers use; typed there, Any here.
        def __getattr__(self, name: str) -> Any: ...

    def op_conv2d(self, node: Any, a: dict[str, Any]) -> None:
        x = self.ref(a["input"], True)
        w = a["weight"].meta["val"]
        out_c, _in_per_group, kh, kw = (int(d) for d in w.shape)
        groups = int(a["groups"])
        in_c = self.shapes[x][-1]
        padding = a["padding"]
        pad: Any = padding if isinstance(padding, str) else collapse_pair(_pair(padding, 0))
        fields: dict[str, Any] = {
            "kernel_size": collapse_pair([kh, kw]),
            "strides": collapse_pair(_pair(a["stride"], 1)),
            "padding": pad,
            "dilation": collapse_pair(_pair(a["dilation"], 1)),
            "use_bias": a["bias"] is not None,
        }
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
        _hq, _t, _ = self.shapes[q] if len(self.shapes[q]) == 3 else (1, *self.shapes[q])
        s = self.shapes[k][-2]
        qk_shape = (*self.shapes[q][:-1], s)
        qk = self.emit(self.b.unique(f"{base}.qk"), "matmul", [q, k], qk_shape, transpose_b=True)
        sm = self.emit(self.b.unique(f"{base}.softmax"), "softmax", [qk], qk_shape)
        if float(a.get("dropout_p") or 0.0) > 0.0:
            sm = self.emit(
                self.b.unique(f"{base}.dropout"),
                "dropout",
                [sm],
                qk_shape,
                rate=float(a["dropout_p"]),
            )
        self.emit(base, "matmul", [sm, v], self.dn_shape(node, False))
        self.values[node] = self.data(node, base)

    def op_batch_norm(self, node: Any, a: dict[str, Any]) -> None:
        v = self.value(a["input"])
        if not (v.image or len(v.ps) == 1):
            return self.unsupported(node, "aten.batch_norm (not 2-D / 4-D)")
        x = self.ref(a["input"])
        params = [self.param(a["weight"]), self.param(a["bias"])]
        name = self.name_for(node, [p for p in params if p])
        fields: dict[str, Any] = {"center": a["bias"] is not None, "scale": a["weight"] is not None}
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
        fields: dict[str, Any] = {"center": a["bias"] is not None, "scale": a["weight"] is not None}
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
            return self.unsupported(
                node, f"aten.{_op_name(node.target)} (not over the last dimension)"
            )
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
        extra = [
            max(0, (o - 1) * st + kk - (i + 2 * pp))
            for o, st, kk, i, pp in zip((out_h, out_w), s, k, (h, w), p)
        ]
        pad: Any = (
            collapse_pair(p)
            if extra == [0, 0]
            else [[p[0], p[0] + extra[0]], [p[1], p[1] + extra[1]]]
        )
        name = self.name_for(node)
        self.emit(
            name,
            kind,
            [x],
            self.dn_shape(node, True),
            pool_size=collapse_pair(k),
            strides=collapse_pair(s),
            padding=pad,
        )
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
            self.emit(name, local, [x], (oh, ow, c), pool_size=collapse_pair([h // oh, w // ow]))
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
        if (
            sorted(kinds) == ["data", "param"]
            and kinds[0] == "param"
            and int(a["dim"]) == 1
            and len(self.val_shape(node)) == 3
        ):
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
        self.emit(
            name,
            "zero_padding",
            [x],
            self.dn_shape(node, True),
            padding=[[top, bottom], [left, right]],
        )
        self.values[node] = self.data(node, name, True)

    def op_pad(self, node: Any, a: dict[str, Any]) -> None:
        if a.get("mode", "constant") != "constant":
            return self.unsupported(node, f"aten.pad (mode {a['mode']!r})")
        self.op_constant_pad_nd(node, {"self": a["self"], "pad": a["pad"], "value": a.get("value")})

    def _upsample(self, node: Any, interpolation: str) -> None:
        x = self.ref(node.args[0], True)
        h, w, _ = self.shapes[x]
        oh, ow, _ = self.dn_shape(node, True)
        if oh % h or ow % w:
            return self.unsupported(node, f"aten.{_op_name(node.target)} (not an integer scale)")
        name = self.name_for(node)
        self.emit(
            name,
            "upsample",
            [x],
            (oh, ow, self.shapes[x][-1]),
            size=collapse_pair([oh // h, ow // w]),
            interpolation=interpolation,
        )
        self.values[node] = self.data(node, name, True)

    def op_upsample_nearest2d(self, node: Any, a: dict[str, Any]) -> None:
        self._upsample(node, "nearest")

    def op_upsample_bilinear2d(self, node: Any, a: dict[str, Any]) -> None:
        self._upsample(node, "bilinear")

    def op_lstm(self, node: Any, a: dict[str, Any]) -> None:
        """Unroll ``nn.LSTM`` into ``lstm_cell`` timesteps sharing one weight set per layer and
        direction (``docs/importers.md``)."""
        if self.batch_axis(a["input"]) != ((0 if a["batch_first"] else 1), 1):
            return self.unsupported(node, "aten.lstm (the batch is not on the batch_first axis)")
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
        seq = [
            self.emit(
                self.b.unique(f"{base}.x{t}"),
                "opaque",
                [x],
                (1, width),
                shape=[1, width],
                meta={"op": "select", "slice": True},
            )
            for t in range(steps)
        ]
        for layer in range(layers):
            outs = []
            for d in range(dirs):
                group = params[(layer * dirs + d) * per : (layer * dirs + d + 1) * per]
                suffix = f"l{layer}" + ("_reverse" if d else "")
                weights = self.b.unique(f"{base}.{suffix}")
                order = range(steps) if d == 0 else range(steps - 1, -1, -1)
                h = c = zero
                hs: dict[int, str] = {}
                for t in order:
                    name = weights if not hs else self.b.unique(f"{weights}.t{t}")
                    fields: dict[str, Any] = {
                        "units": hidden,
                        "use_bias": per == 4,
                        "weights": weights,
                    }
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
                seq = [
                    self.emit(
                        self.b.unique(f"{base}.l{layer}.t{t}"),
                        "concat",
                        [outs[0][t], outs[1][t]],
                        (1, 2 * hidden),
                        axis=-1,
                    )
                    for t in range(steps)
                ]
        out = (
            seq[0]
            if steps == 1
            else self.emit(self.b.unique(base), "concat", seq, (steps, dirs * hidden), axis=0)
        )
        y = _Value("data", layer=out, shape=self.shapes[out], ps=(steps, dirs * hidden), node=node)
        last = seq[-1]
        h_n = (
            _Value("data", layer=last, shape=self.shapes[last], ps=self.shapes[last], node=node)
            if layers * dirs == 1
            else None
        )
        self.values[node] = _Value(
            "list",
            items=[y, h_n or self._lstm_state(node, 1), self._lstm_state(node, 2)],
            node=node,
        )

    def _lstm_state(self, node: Any, i: int) -> Any:
        """h_n / c_n beyond one layer and direction: not mapped (a placeholder if read)."""

        def make() -> _Value:
            self.pending.append((f"aten.lstm output {i} (h_n/c_n)", node.name))
            return _Value("const", node=node)

        return make

"""Keras 3 models → dnnmem network documents (``docs/importers.md``).

The importer walks the graph of a built Keras model (functional or sequential; models used as
layers are flattened into the outer graph) in call order and maps every layer call to the kinds
of ``docs/network-format.md``. Keras already works per sample and channels last, so shapes carry
over unchanged; the layer names are kept.

Two rewrites make a Keras model fit the format:

- A fused activation (``Dense(..., activation="relu")``, also on convolutions) becomes a layer
  of its own, ``<name>_<kind>`` (e.g. ``block1_conv1_relu``, as the zoo names them), after the layer (the format forbids fused activations: an
  activation is a step with its own traffic).
- A softmax that produces a network output is dropped (fused or a layer of its own): the loss
  step applies it (SPEC §2), so the network output is the logits.
"""

from __future__ import annotations

import heapq
import importlib.util
import json
import os
import re
import sys
from types import ModuleType
from typing import Any

from ..network import Network
from ._common import DocumentBuilder, collapse_pair, read_model_file, to_network

__all__ = ["from_keras", "import_keras", "KERAS_ACTIVATIONS", "KERAS_BACKENDS"]

#: Keras 3 backends, in the order :func:`import_keras` picks one when none is configured: jax
#: first (``pip install "dnnmem[keras]"`` installs its CPU build, no GPU packages), then torch,
#: then tensorflow. Each maps to the module whose presence says it is installed.
KERAS_BACKENDS: dict[str, str] = {"jax": "jaxlib", "torch": "torch", "tensorflow": "tensorflow"}

_INSTALL_HINT = (
    'pip install "dnnmem[keras]" (Keras with the CPU build of jax), or install '
    'a backend yourself: pip install "jax[cpu]", torch or tensorflow-cpu'
)


def _configured_backend() -> str | None:
    """The backend the user chose: ``KERAS_BACKEND``, else ``keras.json``'s, else None.

    Keras reads the same two places (the file in ``$KERAS_HOME``, default ``~/.keras``).
    """
    env = os.environ.get("KERAS_BACKEND")
    if env:
        return env
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    try:
        with open(os.path.join(home, "keras.json"), encoding="utf-8") as f:
            backend = json.load(f).get("backend")
    except (OSError, ValueError, AttributeError):
        return None
    return backend if isinstance(backend, str) and backend else None


def _installed(backend: str) -> bool:
    module = KERAS_BACKENDS.get(backend, backend)
    return importlib.util.find_spec(module) is not None


def _backend_to_set() -> str | None:
    """The backend :func:`import_keras` sets before importing keras (None: keep the user's).

    Raises ImportError naming what to install when keras or every backend is missing.
    """
    if importlib.util.find_spec("keras") is None:
        raise ImportError(f"from_keras needs Keras 3, which is not installed: {_INSTALL_HINT}")
    if os.environ.get("KERAS_BACKEND"):
        return None
    configured = _configured_backend()
    if configured is not None and _installed(configured):
        return None
    found = [b for b in KERAS_BACKENDS if _installed(b)]
    if not found:
        raise ImportError(
            "Keras 3 needs a backend (jax, torch or tensorflow) and none is "
            f"installed: {_INSTALL_HINT}"
        )
    return found[0]


def import_keras() -> ModuleType:
    """Import Keras 3 with a backend that is installed, or say exactly what to install.

    Keras' own default backend is tensorflow, which ``pip install keras`` does not bring, so a
    bare ``import keras`` fails. When keras is not imported yet and ``KERAS_BACKEND`` is unset,
    this picks the backend of ``keras.json`` if it is installed, else the first installed of
    :data:`KERAS_BACKENDS` (jax, torch, tensorflow), and sets ``KERAS_BACKEND`` to it for this
    process. An explicit ``KERAS_BACKEND`` is always kept.

    Returns
    -------
    module
        The ``keras`` module.

    Raises
    ------
    ImportError
        Keras is not installed, no backend is, or the configured backend is not; the message
        names the packages to install.
    """
    if "keras" not in sys.modules:
        backend = _backend_to_set()
        if backend is not None:
            os.environ["KERAS_BACKEND"] = backend
    try:
        import keras  # lazy: an optional dependency
    except ModuleNotFoundError as e:
        backend = _configured_backend()
        raise ImportError(
            f"Keras could not import its backend {backend!r} (set by KERAS_BACKEND "
            f"or keras.json): {e}. Install it, or unset KERAS_BACKEND to let dnnmem "
            f"pick an installed one; {_INSTALL_HINT}"
        ) from e
    return keras


#: Keras activation function name → dnnmem kind (``None``: no layer). Others are unsupported.
KERAS_ACTIVATIONS: dict[str, str | None] = {
    "linear": None,
    "relu": "relu",
    "relu6": "relu6",
    "gelu": "gelu",
    "sigmoid": "sigmoid",
    "tanh": "tanh",
    "softmax": "softmax",
    "swish": "swish",
    "silu": "swish",
    "hard_swish": "hard_swish",
    "hard_silu": "hard_swish",
    "hard_sigmoid": "hard_sigmoid",
    "leaky_relu": "leaky_relu",
    "mish": "mish",
}

# keras.ops functions called in a functional graph (operation class → kind).
_OP_ACTIVATIONS = {
    "Relu": "relu",
    "Relu6": "relu6",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Gelu": "gelu",
    "Silu": "swish",
    "HardSilu": "hard_swish",
    "HardSigmoid": "hard_sigmoid",
    "Mish": "mish",
}
_POOLS = {
    "MaxPooling2D": "maxpool",
    "AveragePooling2D": "avgpool",
    "GlobalAveragePooling2D": "global_avgpool",
    "GlobalMaxPooling2D": "global_maxpool",
}
_MERGES = {"Add": "add", "Multiply": "multiply"}
# Layers that only re-index (or pass through) their input in inference-free graph terms.
_FOLDED = {"Flatten": "flatten", "Identity": "identity"}


def _pair(v: Any) -> list[int]:
    """A Keras int-or-tuple field as ``[a, b]``."""
    return [int(x) for x in v] if isinstance(v, (tuple, list)) else [int(v), int(v)]


def _scalar_or_pair(v: Any) -> int | list[int]:
    return collapse_pair(_pair(v))


def _window(cfg: dict[str, Any]) -> dict[str, Any]:
    """A convolution config's sliding-window fields (kernel, strides, padding, dilation)."""
    return {
        "kernel_size": _scalar_or_pair(cfg["kernel_size"]),
        "strides": _scalar_or_pair(cfg["strides"]),
        "padding": cfg["padding"],
        "dilation": _scalar_or_pair(cfg["dilation_rate"]),
    }


def _activation_name(fn: Any) -> str:
    """The name of a Keras activation function (``keras.activations.relu`` → ``"relu"``)."""
    if fn is None:
        return "linear"
    name = getattr(fn, "__name__", None) or type(fn).__name__
    return str(name).lower()


def _per_sample_shape(tensor: Any, where: str) -> list[int]:
    shape = list(tensor.shape)[1:]
    if any(d is None for d in shape):
        raise ValueError(
            f"{where}: per-sample shape {tuple(tensor.shape)} has unknown "
            "dimensions; build the model with a fixed input shape"
        )
    return [int(d) for d in shape]


def _creation_index(node: Any) -> float:
    """When Keras created a node's first output: the counter in ``keras_tensor_<n>``.

    Keras numbers symbolic tensors as it creates them, i.e. in call order; sorting by it gives
    the order the model's code called its layers (the file order breaks ties in the schedule,
    SPEC §3). Tensors named otherwise sort last (then by graph order).
    """
    for t in node.outputs:
        m = re.fullmatch(r"keras_tensor(?:_(\d+))?", str(getattr(t, "name", "")))
        if m:
            return float(m.group(1) or 0)
    return float("inf")


def _graph(model: Any) -> Any:
    """The functional graph of a model (a Sequential model keeps one once built)."""
    if hasattr(model, "_nodes_by_depth"):
        return model
    inner = getattr(model, "_functional", None)
    if inner is None:
        raise ValueError(
            f"model {model.name!r}: not built; call it on data or build it with "
            "an input shape first"
        )
    return inner


def _ordered_nodes(graph: Any) -> list[Any]:
    """The graph's layer calls in call order: topological, ready calls by creation order."""
    nodes = [
        n
        for depth in graph._nodes_by_depth.values()
        for n in depth
        if n.operation is not None and not n.is_input
    ]
    order = {id(n): i for i, n in enumerate(graph.operations)}
    made_by = {id(t): i for i, n in enumerate(nodes) for t in n.outputs}
    waiting = [sum(id(t) in made_by for t in n.input_tensors) for n in nodes]
    users: dict[int, list[int]] = {}
    for i, n in enumerate(nodes):
        for t in n.input_tensors:
            if id(t) in made_by:
                users.setdefault(made_by[id(t)], []).append(i)
    key = [(_creation_index(n), order.get(id(n.operation), 0), i) for i, n in enumerate(nodes)]
    ready = [key[i] for i in range(len(nodes)) if waiting[i] == 0]
    heapq.heapify(ready)
    result = []
    while ready:
        i = heapq.heappop(ready)[2]
        result.append(nodes[i])
        for j in users.get(i, []):
            waiting[j] -= 1
            if waiting[j] == 0:
                heapq.heappush(ready, key[j])
    return result


class _KerasImport:
    """One import: the builder, the tensor → layer-name map, first names of shared layers."""

    def __init__(self, model: Any, strict: bool) -> None:
        self.model = model
        self.strict = strict
        self.b = DocumentBuilder(f"keras model {model.name!r}", model.name)
        self.names: dict[int, str] = {}  # id(KerasTensor) → dnnmem layer name
        self.first_call: dict[int, str] = {}  # id(layer) → name of its first call (weights)
        self.outputs: set[int] = set()

    # -- graph walk ---------------------------------------------------------------------------
    def run(self) -> dict[str, Any]:
        graph = _graph(self.model)
        self.outputs = {id(t) for t in graph.outputs}
        for t in graph.inputs:
            layer = t._keras_history.operation
            name = self.b.unique(layer.name, "input")
            fields: dict[str, Any] = {}
            dtype = str(t.dtype)
            if dtype in ("int32", "int64"):
                fields["dtype"] = dtype
            elif not dtype.startswith(("float", "bfloat")):
                fields["dtype"] = "int64"  # other integer / bool ids: counted as int64
            self.b.input(name, _per_sample_shape(t, f"input {layer.name!r}"), **fields)
            self.names[id(t)] = name
        self.walk(graph)
        return self.b.finish(self.strict)

    def walk(self, graph: Any) -> None:
        for node in _ordered_nodes(graph):
            layer = node.operation
            ins = [self.names[id(t)] for t in node.input_tensors]
            if hasattr(layer, "_nodes_by_depth") or getattr(layer, "_functional", None):
                self.nested(layer, node, ins)
                continue
            if len(node.outputs) != 1:
                raise ValueError(
                    f"keras layer {layer.name!r}: {len(node.outputs)} outputs; "
                    "only single-output layers can be imported"
                )
            out = node.outputs[0]
            self.names[id(out)] = self.layer(layer, ins, out)

    def nested(self, model: Any, node: Any, ins: list[str]) -> None:
        """Flatten a model used as a layer: its inputs are the outer tensors it was called on."""
        graph = _graph(model)
        if len(graph.inputs) != len(ins):
            raise ValueError(
                f"nested model {model.name!r}: called on {len(ins)} tensors, "
                f"has {len(graph.inputs)} inputs"
            )
        for t, name in zip(graph.inputs, ins):
            self.names[id(t)] = name
        for inner, outer in zip(graph.outputs, node.outputs):
            if id(outer) in self.outputs:  # its final softmax is the loss step's too
                self.outputs.add(id(inner))
        self.walk(graph)
        for outer, inner in zip(node.outputs, graph.outputs):
            self.names[id(outer)] = self.names[id(inner)]

    # -- one layer call -----------------------------------------------------------------------
    def layer(self, layer: Any, ins: list[str], out: Any) -> str:
        """Add the layers for one call of ``layer``; returns the name of its output."""
        cls = type(layer).__name__
        is_output = id(out) in self.outputs
        shared = id(layer) in self.first_call
        name = self.b.unique(layer.name)
        self.first_call.setdefault(id(layer), name)
        fields: dict[str, Any] = {}
        if getattr(layer, "weights", None):
            if shared:
                fields["weights"] = self.first_call[id(layer)]
            if not getattr(layer, "trainable", True):
                fields["trainable"] = False
        add = self.b.add
        try:
            cfg = layer.get_config()
        except Exception:  # keras.ops called in a functional graph: no config to read
            cfg = {}

        if cls == "Conv2D":
            self._check_channels_last(layer, cfg)
            x = add(
                name,
                "conv2d",
                ins,
                filters=int(cfg["filters"]),
                **_window(cfg),
                groups=int(cfg.get("groups", 1)),
                use_bias=bool(cfg["use_bias"]),
                **fields,
            )
            return self._fused_activation(layer, x, out, is_output)
        if cls == "DepthwiseConv2D":
            self._check_channels_last(layer, cfg)
            x = add(
                name,
                "depthwise_conv2d",
                ins,
                **_window(cfg),
                depth_multiplier=int(cfg["depth_multiplier"]),
                use_bias=bool(cfg["use_bias"]),
                **fields,
            )
            return self._fused_activation(layer, x, out, is_output)
        if cls == "SeparableConv2D":
            # Depthwise (no bias) then 1×1 pointwise with the bias: Keras' own two kernels.
            self._check_channels_last(layer, cfg)
            dw_fields = {k: v for k, v in fields.items() if k != "weights"}
            if shared:
                dw_fields["weights"] = f"{self.first_call[id(layer)]}_depthwise"
                fields["weights"] = self.first_call[id(layer)]
            dw = add(
                self.b.unique(f"{name}_depthwise"),
                "depthwise_conv2d",
                ins,
                **_window(cfg),
                depth_multiplier=int(cfg["depth_multiplier"]),
                use_bias=False,
                **dw_fields,
            )
            x = add(
                name,
                "conv2d",
                [dw],
                filters=int(cfg["filters"]),
                kernel_size=1,
                use_bias=bool(cfg["use_bias"]),
                **fields,
            )
            return self._fused_activation(layer, x, out, is_output)
        if cls == "Dense":
            x = add(
                name,
                "dense",
                ins,
                units=int(cfg["units"]),
                use_bias=bool(cfg["use_bias"]),
                **fields,
            )
            return self._fused_activation(layer, x, out, is_output)
        if cls == "BatchNormalization":
            if cfg.get("axis", -1) not in (-1, len(out.shape) - 1, [-1], [len(out.shape) - 1]):
                return self._unsupported(name, f"BatchNormalization(axis={cfg['axis']})", ins, out)
            return add(
                name,
                "batchnorm",
                ins,
                center=bool(cfg["center"]),
                scale=bool(cfg["scale"]),
                **fields,
            )
        if cls == "LayerNormalization":
            if cfg.get("rms_scaling"):
                return self._unsupported(name, "LayerNormalization(rms_scaling=True)", ins, out)
            return add(
                name,
                "layernorm",
                ins,
                center=bool(cfg["center"]),
                scale=bool(cfg["scale"]),
                **fields,
            )
        if cls == "Activation":
            fn = _activation_name(layer.activation)
            if fn == "softmax" and is_output:
                return ins[0]  # the loss step applies it
            kind = KERAS_ACTIVATIONS.get(fn, "?")
            if kind is None:
                return add(name, "identity", ins)
            if kind == "?":
                return self._unsupported(name, f"Activation({fn})", ins, out)
            return add(name, kind, ins)
        if cls in _OP_ACTIVATIONS:
            return add(name, _OP_ACTIVATIONS[cls], ins)
        if cls == "ReLU":
            return self._relu(name, cfg, ins, out)
        if cls == "LeakyReLU":
            return add(
                name,
                "leaky_relu",
                ins,
                alpha=float(cfg.get("negative_slope", cfg.get("alpha", 0.3))),
            )
        if cls == "Softmax":
            axis = cfg.get("axis", -1)
            if isinstance(axis, (list, tuple)) or self._sample_axis(int(axis), out) not in (
                -1,
                len(out.shape) - 2,
            ):
                return self._unsupported(name, f"Softmax(axis={axis})", ins, out)
            if is_output:
                return ins[0]
            return add(name, "softmax", ins)
        if cls in (
            "Dropout",
            "SpatialDropout2D",
            "SpatialDropout1D",
            "GaussianDropout",
            "AlphaDropout",
        ):
            return add(name, "dropout", ins, rate=float(cfg["rate"]))
        if cls in _MERGES:
            if len(ins) < 2:  # keras.ops.add(x, 2.0): with a constant
                return add(name, "rescaling", ins, meta={"op": cls})
            return add(name, _MERGES[cls], ins)
        if cls == "Concatenate":
            axis = self._sample_axis(int(cfg["axis"]), out)
            if axis is None:
                return self._unsupported(name, "Concatenate(axis=0)", ins, out)
            return add(name, "concat", ins, axis=axis)
        if cls in ("MaxPooling2D", "AveragePooling2D"):
            self._check_channels_last(layer, cfg)
            strides = cfg["strides"] if cfg["strides"] is not None else cfg["pool_size"]
            return add(
                name,
                _POOLS[cls],
                ins,
                pool_size=_scalar_or_pair(cfg["pool_size"]),
                strides=_scalar_or_pair(strides),
                padding=cfg["padding"],
            )
        if cls in ("GlobalAveragePooling2D", "GlobalMaxPooling2D"):
            self._check_channels_last(layer, cfg)
            return add(name, _POOLS[cls], ins, keepdims=bool(cfg.get("keepdims", False)))
        if cls == "ZeroPadding2D":
            self._check_channels_last(layer, cfg)
            (t, b), (left, r) = cfg["padding"]
            return add(name, "zero_padding", ins, padding=[[int(t), int(b)], [int(left), int(r)]])
        if cls == "Reshape":
            return add(name, "reshape", ins, target_shape=[int(d) for d in cfg["target_shape"]])
        if cls in _FOLDED:
            return add(name, _FOLDED[cls], ins)
        if cls == "Embedding":
            return add(
                name,
                "embedding",
                ins,
                input_dim=int(cfg["input_dim"]),
                output_dim=int(cfg["output_dim"]),
                **fields,
            )
        if cls == "UpSampling2D":
            self._check_channels_last(layer, cfg)
            return add(
                name,
                "upsample",
                ins,
                size=_scalar_or_pair(cfg["size"]),
                interpolation=cfg.get("interpolation", "nearest"),
            )
        if cls == "Rescaling":
            return add(name, "rescaling", ins)
        if cls == "Normalization":
            return add(name, "normalization", ins)
        return self._unsupported(name, cls, ins, out)

    def _relu(self, name: str, cfg: dict[str, Any], ins: list[str], out: Any) -> str:
        max_value = cfg.get("max_value")
        slope = float(cfg.get("negative_slope", 0.0) or 0.0)
        threshold = float(cfg.get("threshold", 0.0) or 0.0)
        if threshold != 0.0:
            return self._unsupported(name, f"ReLU(threshold={threshold})", ins, out)
        if max_value is None and slope == 0.0:
            return self.b.add(name, "relu", ins)
        if max_value is not None and float(max_value) == 6.0 and slope == 0.0:
            return self.b.add(name, "relu6", ins)
        if max_value is None:
            return self.b.add(name, "leaky_relu", ins, alpha=slope)
        return self._unsupported(
            name, f"ReLU(max_value={max_value}, negative_slope={slope})", ins, out
        )

    def _fused_activation(self, layer: Any, x: str, out: Any, is_output: bool) -> str:
        """A layer's own activation as a layer ``<name>_<kind>`` (none for linear / final
        softmax); the zoo's keras builders use the same names, so imports equal them."""
        fn = _activation_name(getattr(layer, "activation", None))
        kind = KERAS_ACTIVATIONS.get(fn, "?")
        if kind is None or (kind == "softmax" and is_output):
            return x
        name = self.b.unique(f"{x}_{kind if kind != '?' else fn}")
        if kind == "?":
            return self.b.placeholder(
                name, f"activation {fn}", [x], _per_sample_shape(out, f"layer {name!r}")
            )
        return self.b.add(name, kind, [x])

    @staticmethod
    def _sample_axis(axis: int, out: Any) -> int | None:
        """A Keras axis (counted with the batch) as a per-sample axis; None for the batch."""
        if axis < 0:
            return axis
        return axis - 1 if axis >= 1 else None

    def _check_channels_last(self, layer: Any, cfg: dict[str, Any]) -> None:
        if cfg.get("data_format", "channels_last") != "channels_last":
            raise ValueError(
                f"keras layer {layer.name!r}: data_format "
                f"{cfg['data_format']!r}; only channels_last models are supported"
            )

    def _unsupported(self, name: str, op: str, ins: list[str], out: Any) -> str:
        return self.b.placeholder(name, op, ins, _per_sample_shape(out, f"layer {name!r}"))


def from_keras(
    model: Any,
    *,
    batch: int = 1,
    strict: bool = True,
    document: bool = False,
    bytes_per_element: int = 4,
) -> Network | dict[str, Any]:
    """Import a built Keras 3 model.

    Parameters
    ----------
    model : keras.Model or str or os.PathLike
        A built functional or sequential model (nested models are flattened), or the path of a
        ``.keras`` / ``.h5`` file to load with ``keras.saving.load_model`` (Keras is imported
        by :func:`import_keras`, which picks an installed backend if none is configured).
    batch : int
        Mini-batch size of the returned network.
    strict : bool
        True: layers the importer cannot map raise :class:`UnsupportedOperatorError` listing
        each layer class and layer. False: they become zero-FLOP placeholders (kind
        ``opaque``, the layer's output shape) with an :class:`ImporterWarning`.
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.
    bytes_per_element : int
        Element size of the returned network (4: FP32).

    Returns
    -------
    Network or dict
        The network at ``batch`` (or its document); its name is the model's.

    Raises
    ------
    ValueError
        The model is not built, has unknown per-sample dimensions, or is channels first.
    UnsupportedOperatorError
        ``strict=True`` and some layers have no dnnmem kind.
    """
    if isinstance(model, (str, os.PathLike)):
        keras = import_keras()
        model = read_model_file(
            os.fspath(model),
            "a Keras model",
            lambda p: keras.saving.load_model(p, compile=False),
            zip_archive=os.fspath(model).lower().endswith(".keras"),
        )
    doc = _KerasImport(model, strict).run()
    return to_network(doc, batch, bytes_per_element, document)

"""The ONNX importer on models exported from torch.nn (tests/python/torch_models.py)."""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import pytest

import dnnmem
from dnnmem.importers import ImporterWarning, UnsupportedOperatorError, from_onnx, import_model

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

import torch_models  # noqa: E402  (tests/python is on sys.path under pytest's rootdir)


def export(module: Any, example: Any, path: Path) -> str:
    """torch.onnx.export of a module in training mode (eval mode folds BatchNorm into Conv)."""
    module.train()
    with warnings.catch_warnings():
        # Only around the exporter: the TorchScript exporter's own deprecation notices and the
        # buffers it drops (num_batches_tracked) change nothing in the graph we read.
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings(
            "ignore", message="ONNX Preprocess - Removing mutation", category=UserWarning
        )
        # nn.LSTM's shape checks on traced sizes: the trace is specialised to the example.
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        warnings.filterwarnings(
            "ignore",
            message="Exporting a model to ONNX with a batch_size other than 1",
            category=UserWarning,
        )
        torch.onnx.export(
            module,
            (example,),
            os.fspath(path),
            dynamo=False,
            opset_version=17,
            do_constant_folding=False,
        )
    return os.fspath(path)


def n_params(module: Any) -> int:
    return sum(p.numel() for p in module.parameters())


def test_tiny_cnn(tmp_path: Path) -> None:
    m = torch_models.tiny_cnn()
    net = from_onnx(export(m, torch.randn(1, 3, 32, 32), tmp_path / "tiny.onnx"), batch=8)
    assert net.trainable_params == n_params(m) == 5482
    assert net.params == 5482 + 2 * (16 + 32)  # + BN running mean / variance (torch buffers)
    df = net.layers.set_index("name")
    assert list(df["kind"]) == [
        "input",
        "conv2d",
        "batchnorm",
        "relu",
        "maxpool",
        "conv2d",
        "batchnorm",
        "relu",
        "maxpool",
        "global_avgpool",
        "flatten",
        "dense",
    ]
    assert df["output_shape"].iloc[0] == (32, 32, 3)  # NCHW input → channels last
    assert list(df.loc[df["kind"] == "conv2d", "params"]) == [3 * 3 * 3 * 16 + 16, 3 * 3 * 16 * 32]
    # conv1: 32·32·16 outputs × 27 MACs × 2 FLOPs, per sample; × batch 8.
    assert df.loc[df["kind"] == "conv2d", "fwd_flops"].iloc[0] == 8 * 2 * 32 * 32 * 16 * 27
    assert df["output_shape"].iloc[-1] == (10,)
    assert net.batch == 8


def test_resnet50_matches_the_zoo_exactly(tmp_path: Path) -> None:
    # Keras' ResNet50 (the zoo) written in torch.nn: stride on the 1×1, bias on every conv.
    m = torch_models.resnet50_torch(keras_v1=True)
    net = from_onnx(export(m, torch.randn(1, 3, 224, 224), tmp_path / "r50.onnx"), batch=32)
    zoo = dnnmem.network("resnet50", batch=32)
    assert net.trainable_params == zoo.trainable_params == n_params(m) == 25_583_592
    assert net.params == zoo.params == 25_636_712
    assert net.flops == zoo.flops
    assert net.num_steps == zoo.num_steps
    kinds = net.layers["kind"].value_counts()
    assert kinds["conv2d"] == 53 and kinds["batchnorm"] == 53 and kinds["add"] == 16


def test_resnet50_v15_differs_from_keras_as_torchvision_does(tmp_path: Path) -> None:
    m = torch_models.resnet50_torch()
    net = from_onnx(export(m, torch.randn(1, 3, 224, 224), tmp_path / "r50.onnx"))
    zoo = dnnmem.network("resnet50")
    # torchvision documents 25,557,032 parameters for resnet50 (v1.5, convs without bias).
    assert net.trainable_params == n_params(m) == 25_557_032
    # Keras' extra parameters are exactly its convolution biases.
    df = zoo.layers
    conv_bias = int(df.loc[df["kind"] == "conv2d", "output_shape"].map(lambda s: s[-1]).sum())
    assert zoo.trainable_params - net.trainable_params == conv_bias == 26_560
    # v1.5 strides on the 3×3, so the first 1×1 of a downsampling block runs at the higher
    # resolution: 4.089 GMACs per image, the "GFLOPS 4.09" torchvision's model card lists (a
    # MAC count), against 3.858 G for Keras' placement.
    assert round(int(net.layers["fwd_macs"].sum()) / 1e9, 3) == 4.089
    assert round(int(zoo.layers["fwd_macs"].sum()) / 1e9, 3) == 3.858


def test_transformer_encoder_block(tmp_path: Path) -> None:
    m = torch_models.encoder_block()
    ids = torch.randint(0, 100, (1, 16))
    net = from_onnx(export(m, ids, tmp_path / "enc.onnx"), batch=4)
    assert net.trainable_params == n_params(m) == 62_884
    df = net.layers.set_index("name")
    kinds = df["kind"].value_counts()
    assert kinds["dense"] == 7 and kinds["matmul"] == 2 and kinds["layernorm"] == 2
    assert kinds["embedding"] == 1 and kinds["gelu"] == 1  # Div → Erf → Add → Mul → Mul fused
    assert "tanh" not in kinds
    assert df.loc["input.1", "output_shape"] == (16,)
    assert df["kind"].iloc[0] == "input"
    # Linear on [N, T, d] exports as MatMul + Add: the Add is folded in as the bias.
    assert df.loc["q.MatMul", "params"] == 64 * 64 + 64
    # q·kᵀ per head: [4, 16, 16] × [4, 16, 16]: 4·16·16·16 MACs per sample, × 2 FLOPs × batch 4.
    assert df.loc["MatMul", "output_shape"] == (4, 16, 16)
    assert df.loc["MatMul", "fwd_flops"] == 4 * 2 * 4 * 16 * 16 * 16
    assert df["output_shape"].iloc[-1] == (16, 100)


class _Recurrent(torch.nn.Module):
    """Embedding → LSTM (batch_first, optionally bidirectional / 2 layers) → Linear."""

    def __init__(self, bidirectional: bool, layers: int) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(50, 8)
        self.lstm = torch.nn.LSTM(
            8, 16, num_layers=layers, batch_first=True, bidirectional=bidirectional
        )
        self.fc = torch.nn.Linear(16 * (1 + bidirectional), 5)

    def forward(self, ids: Any) -> Any:
        y, _ = self.lstm(self.emb(ids))
        return self.fc(y)


@pytest.mark.parametrize("bidirectional, layers", [(False, 1), (True, 1), (False, 2)])
def test_lstm_unrolls_into_cells(tmp_path: Path, bidirectional: bool, layers: int) -> None:
    m = _Recurrent(bidirectional, layers)
    net = from_onnx(export(m, torch.randint(0, 50, (1, 6)), tmp_path / "lstm.onnx"), batch=2)
    d, h, t = 1 + bidirectional, 16, 6
    # torch keeps b_ih and b_hh (8H per direction and layer); lstm_cell one bias (4H).
    assert net.trainable_params == n_params(m) - 4 * h * d * layers
    df = net.layers.set_index("name")
    cells = df[df.index.str.match(r"lstm\.LSTM(_1)?(\.fwd|\.bwd)?\.t\d+$")]
    assert len(cells) == t * d * layers
    # Every timestep of one direction shares its weights: 4 gates × ((8 + 16)·16 + 16) once.
    assert df.loc["lstm.LSTM.t0/i" if d == 1 else "lstm.LSTM.fwd.t0/i", "params"] == 24 * 16 + 16
    assert df["output_shape"].iloc[-1] == (t, 5)
    # Gate FCs: 4 per cell, (I + H)·H MACs; the second layer's input is d·H wide.
    gate_macs = 4 * h * ((8 + h) * t * d + (d * h + h) * t * d * (layers - 1))
    dense = df[(df["kind"] == "dense")]
    assert int(dense["fwd_macs"].sum()) == 2 * (gate_macs + t * d * h * 5)


class _Odd(torch.nn.Module):
    """Operators the importer does not translate: Pow (twice) and CumSum."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(8, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x: Any) -> Any:
        y = self.fc1(x).pow(2)
        y = torch.cumsum(y, dim=1).pow(3)
        return self.fc2(y)


def test_unsupported_ops_strict_lists_all_and_lenient_warns(tmp_path: Path) -> None:
    path = export(_Odd(), torch.randn(1, 8), tmp_path / "odd.onnx")
    with pytest.raises(UnsupportedOperatorError) as e:
        from_onnx(path)
    assert e.value.ops == {"Pow": ["Pow", "Pow_1"], "CumSum": ["CumSum"]}
    msg = str(e.value)
    assert msg.startswith(
        path + ": unsupported operators Pow (nodes: Pow, Pow_1); CumSum (nodes: CumSum)"
    )
    assert "strict=False" in msg
    with pytest.raises(dnnmem.NetworkError):  # one exception family for every network error
        from_onnx(path)
    with pytest.warns(ImporterWarning, match=r"Pow \(nodes: Pow, Pow_1\); CumSum"):
        net = from_onnx(path, strict=False)
    df = net.layers.set_index("name")
    assert list(df.loc[["Pow", "CumSum", "Pow_1"], "kind"]) == ["opaque"] * 3
    assert df.loc[["Pow", "CumSum", "Pow_1"], "fwd_flops"].sum() == 0
    assert df.loc["CumSum", "output_shape"] == (8,)
    assert net.trainable_params == 8 * 8 + 8 + 8 * 3 + 3


def test_model_proto_document_and_dispatch(tmp_path: Path) -> None:
    path = export(torch_models.tiny_cnn(), torch.randn(1, 3, 32, 32), tmp_path / "t.onnx")
    doc = from_onnx(onnx.load(path), document=True)
    assert isinstance(doc, dict) and doc["layers"][0]["shape"] == [32, 32, 3]
    assert dnnmem.load_network(doc).params == import_model(path).params
    with pytest.raises(TypeError, match="model must be a path or an onnx.ModelProto"):
        from_onnx(42)


def _graph_model(nodes: list[Any], inputs: list[Any], outputs: list[Any], inits: list[Any]) -> Any:
    from onnx import helper

    graph = helper.make_graph(nodes, "g", inputs, outputs, inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_image_operators_from_a_handwritten_graph() -> None:
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    def init(name: str, *shape: int) -> Any:
        return numpy_helper.from_array(np.ones(shape, np.float32), name)

    def const(name: str, values: list[Any], dtype: Any = np.float32) -> Any:
        return numpy_helper.from_array(np.array(values, dtype), name)

    nodes = [
        helper.make_node(
            "Conv", ["x", "w1", "b1"], ["y1"], name="conv", pads=[1, 1, 1, 1], strides=[2, 2]
        ),
        helper.make_node("Clip", ["y1", "lo", "hi"], ["y2"], name="clip"),
        helper.make_node("Resize", ["y2", "", "scales"], ["y3"], name="up", mode="nearest"),
        helper.make_node("Concat", ["y3", "x"], ["y4"], name="cat", axis=1),
        helper.make_node(
            "MaxPool", ["y4"], ["y5"], name="pool", kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1
        ),
        helper.make_node("Pad", ["y5", "pads"], ["y6"], name="pad"),
        helper.make_node("LeakyRelu", ["y6"], ["y7"], name="leaky", alpha=0.2),
        helper.make_node("GlobalAveragePool", ["y7"], ["y8"], name="gap"),
        helper.make_node("Flatten", ["y8"], ["y9"], name="flat"),
        helper.make_node("Gemm", ["y9", "wf", "bf"], ["y10"], name="fc", transB=1),
        helper.make_node("Softmax", ["y10"], ["out"], name="softmax"),
    ]
    inits = [
        init("w1", 4, 3, 3, 3),
        init("b1", 4),
        const("lo", 0.0),
        const("hi", 6.0),
        const("scales", [1, 1, 2, 2]),
        const("pads", [0, 0, 1, 2, 0, 0, 1, 2], np.int64),
        init("wf", 5, 7),
        init("bf", 5),
    ]
    model = _graph_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, ["N", 5])],
        inits,
    )
    net = from_onnx(model, batch=2)
    df = net.layers.set_index("name")
    assert net.name == "g"
    assert list(df["kind"]) == [
        "input",
        "conv2d",
        "relu6",
        "upsample",
        "concat",
        "maxpool",
        "zero_padding",
        "leaky_relu",
        "global_avgpool",
        "flatten",
        "dense",
        "softmax",
    ]
    shapes = dict(df["output_shape"])
    assert shapes["x"] == (8, 8, 3) and shapes["conv"] == (4, 4, 4)  # (8 + 2 − 3) // 2 + 1
    assert shapes["up"] == (8, 8, 4) and shapes["cat"] == (8, 8, 7)
    assert shapes["pool"] == (4, 4, 7)  # ceil_mode: ⌈(8 − 3) / 2⌉ + 1, floor would give 3
    assert shapes["pad"] == (6, 8, 7) and shapes["gap"] == (1, 1, 7) and shapes["fc"] == (5,)
    assert df.loc["conv", "params"] == 3 * 3 * 3 * 4 + 4 and df.loc["fc", "params"] == 7 * 5 + 5
    assert df.loc["conv", "fwd_flops"] == 2 * 2 * 4 * 4 * 4 * 27  # batch 2, 2 FLOPs per MAC
    assert net.trainable_params == 112 + 40


def test_dynamic_shapes_are_refused_with_the_input_named() -> None:
    from onnx import TensorProto, helper

    model = _graph_model(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "d"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "d"])],
        [],
    )
    with pytest.raises(
        ValueError,
        match=r"graph input 'x' needs a static shape after a batch "
        r"dimension, got \[None, None\]",
    ):
        from_onnx(model)


def _export_eval(module: Any, example: Any, path: Path) -> str:
    """torch.onnx.export in eval mode with constant folding (torch's defaults for deployment):
    each Conv + BatchNorm becomes one Conv whose weight and bias the exporter computed."""
    module.eval()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        torch.onnx.export(module, (example,), os.fspath(path), dynamo=False, opset_version=17)
    return os.fspath(path)


def test_batchnorm_folded_by_the_exporter_is_said(tmp_path: Path, capsys: Any) -> None:
    """Issue 26: an eval-mode export lost its BatchNorm layers without a word (the docs said it
    in a footnote). Now a FoldedBatchNormWarning, and `dnnmem import` prints one note line."""
    from dnnmem.cli import main
    from dnnmem.importers import FoldedBatchNormWarning

    m = torch_models.tiny_cnn()
    folded = _export_eval(m, torch.randn(1, 3, 32, 32), tmp_path / "folded.onnx")
    with pytest.warns(FoldedBatchNormWarning) as w:
        net = from_onnx(folded)
    (note,) = [str(x.message) for x in w if x.category is FoldedBatchNormWarning]
    assert note.startswith(
        f"{folded}: 2 of 2 convolutions have a weight and a bias that the exporter computed "
        f"(onnx::Conv_"
    )
    assert "this network has 2 batchnorm layers fewer than the model trains with" in note
    assert "batchnorm" not in set(net.layers["kind"])
    # The training-mode export of the same module: its BatchNorms are there, and no note.
    with warnings.catch_warnings():
        warnings.simplefilter("error", FoldedBatchNormWarning)
        trained = from_onnx(export(m, torch.randn(1, 3, 32, 32), tmp_path / "train.onnx"))
    assert list(trained.layers["kind"]).count("batchnorm") == 2
    # A network whose convolutions have biases of their own and no BatchNorm (VGG's): no note,
    # in eval mode too (nothing was computed: the weights keep their parameters' names).
    nn = torch.nn
    vgg_like = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FoldedBatchNormWarning)
        from_onnx(_export_eval(vgg_like, torch.randn(1, 3, 8, 8), tmp_path / "vgg.onnx"))
    # The command line: one line on stderr, no Python warning with its source line.
    code = main(["import", folded, "-o", str(tmp_path / "folded.json")])
    err = capsys.readouterr().err
    assert code == 0 and err == f"dnnmem: note: {note}\n"

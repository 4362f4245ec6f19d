"""dnnmem.importers.torch.from_torch: torch.nn models and Hugging Face transformers.

FLOPs are compared with ``torch.utils.flop_counter.FlopCounterMode`` on the same input: it
counts 2 FLOPs per multiply-accumulate of matrix products and convolutions only (mm, addmm,
bmm, convolution, attention), so the comparison is with 2 × our MACs (``fwd_macs``), not with
our point-wise FLOPs. It does not see inside CPU kernels that fuse a whole operator (the fused
attention of eval mode, ``aten.lstm``): attention models are compared in train mode (math
attention, bmm), LSTMs with the formula.
"""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

import torch_models  # noqa: E402  (tests/python is on sys.path under pytest's rootdir)

from dnnmem.importers._common import ImporterWarning, UnsupportedOperatorError  # noqa: E402
from dnnmem.importers.torch import from_torch  # noqa: E402

# torch.export warns about nn.LSTM's flat weight list being re-assigned while it traces.
LSTM_EXPORT_WARNING = "ignore:The tensor attributes self.*_flat_weights:UserWarning"


def counter_flops(module, *inputs) -> int:
    """FLOPs FlopCounterMode counts for one forward pass (2 per MAC, products only)."""
    from torch.utils.flop_counter import FlopCounterMode

    with torch.no_grad(), FlopCounterMode(display=False) as fc:
        module(*inputs)
    return int(fc.get_total_flops())


def torch_params(module) -> int:
    return sum(p.numel() for p in module.parameters())


def check_module_weights(net, module) -> None:
    """Each module holding parameters: our layer of that name holds exactly them as W, and its
    running statistics (batchnorm) as S."""
    layers = net.layers.set_index("name")
    for path, m in module.named_modules():
        own = sum(p.numel() for p in m.parameters(recurse=False))
        if not own:
            continue
        assert layers.loc[path, "weight_bytes"] == 4 * own, path
        stats = sum(
            b.numel()
            for n, b in m.named_buffers(recurse=False)
            if n in ("running_mean", "running_var")
        )
        assert layers.loc[path, "state_bytes"] == 4 * stats, path


def test_tiny_cnn_layer_by_layer():
    model = torch_models.tiny_cnn().eval()
    x = torch.randn(2, 3, 32, 32)
    net = from_torch(model, (x,))
    assert net.batch == 2
    table = net.layers[["name", "kind", "inputs", "output_shape"]].to_numpy().tolist()
    assert table == [
        ["input", "input", (), (32, 32, 3)],
        ["0", "conv2d", ("input",), (32, 32, 16)],
        ["1", "batchnorm", ("0",), (32, 32, 16)],
        ["2", "relu", ("1",), (32, 32, 16)],
        ["3", "maxpool", ("2",), (16, 16, 16)],
        ["4", "conv2d", ("3",), (16, 16, 32)],
        ["5", "batchnorm", ("4",), (16, 16, 32)],
        ["6", "relu", ("5",), (16, 16, 32)],
        ["7", "maxpool", ("6",), (8, 8, 32)],
        ["8", "global_avgpool", ("7",), (1, 1, 32)],
        ["8_as_32", "reshape", ("8",), (32,)],  # nn.Flatten: folded
        ["10", "dense", ("8_as_32",), (10,)],
    ]
    # 3·3·3·16+16 + 2·16 + 3·3·16·32 + 2·32 + 32·10+10
    assert net.trainable_params == torch_params(model) == 5482
    check_module_weights(net, model)
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, x) == 6_489_344


def test_resnet50_params_flops():
    model = torch_models.resnet50_torch().eval()
    x = torch.randn(2, 3, 224, 224)
    net = from_torch(model, (x,), batch=1)
    assert net.batch == 1
    # torchvision's published figures for resnet50: 25,557,032 parameters, 4.09 GFLOPS (MACs).
    assert net.trainable_params == torch_params(model) == 25_557_032
    check_module_weights(net, model)
    macs = int(net.layers["fwd_macs"].sum())
    assert round(macs / 1e9, 2) == 4.09
    assert 2 * 2 * macs == counter_flops(model, x)  # the counter ran at batch 2
    kinds = net.layers["kind"].value_counts()
    assert (kinds["conv2d"], kinds["batchnorm"], kinds["add"], kinds["relu"]) == (53, 53, 16, 49)


def test_ops_module():
    class Ops(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pw = nn.Conv2d(3, 8, 1)
            self.bn = nn.BatchNorm2d(8)
            self.dw = nn.Conv2d(8, 8, 3, padding=1, groups=8)
            self.gc = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2, bias=False)
            self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            y = nn.functional.relu6(self.bn(self.pw(x)))
            y = nn.functional.hardswish(self.dw(y))
            z = nn.functional.leaky_relu(self.gc(y), 0.2)
            y = torch.cat([y, z], dim=1)
            y = nn.functional.pad(y, (1, 1, 1, 1))
            y = self.pool(y)
            y = nn.functional.interpolate(y, scale_factor=2.0)
            y = nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
            return torch.softmax(self.fc(y) * 2.0, dim=-1)

    model = Ops().eval()
    x = torch.randn(2, 3, 16, 16)
    doc = from_torch(model, x, document=True)
    by = {d["name"]: d for d in doc["layers"]}
    assert by["dw"]["kind"] == "depthwise_conv2d" and by["dw"]["depth_multiplier"] == 1
    assert (by["gc"]["groups"], by["gc"]["dilation"], by["gc"]["padding"]) == (2, 2, 2)
    kinds = [d["kind"] for d in doc["layers"]]
    assert kinds == [
        "input",
        "conv2d",
        "batchnorm",
        "relu6",
        "depthwise_conv2d",
        "hard_swish",
        "conv2d",
        "leaky_relu",
        "concat",
        "zero_padding",
        "maxpool",
        "upsample",
        "global_avgpool",
        "reshape",
        "dense",
        "rescaling",
    ]  # final softmax: dropped
    cat = next(d for d in doc["layers"] if d["kind"] == "concat")
    assert cat["axis"] == 2  # torch's channel dim 1 → channels last
    pool = by["pool"]
    # ceil_mode: (18 − 3) / 2 + 1 = 8.5 → 9 windows, the 9th one padded at the bottom / right.
    assert pool["padding"] == [[0, 1], [0, 1]]
    net = from_torch(model, x)
    shapes = dict(zip(net.layers["kind"], net.layers["output_shape"]))
    assert (shapes["maxpool"], shapes["upsample"]) == ((9, 9, 16), (18, 18, 16))
    # 3·8+8 + 2·8 + 3·3·8+8 + 3·3·4·8 + 16·4+4
    assert net.trainable_params == torch_params(model) == 484
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, x)


def test_encoder_block_attention_and_names():
    model = torch_models.encoder_block().eval()
    ids = torch.randint(0, 100, (2, 16))
    net = from_torch(model, (ids,))
    layers = net.layers.set_index("name")
    assert layers.loc["ids", "kind"] == "input"
    assert layers.loc["embed", "output_shape"] == (16, 64)
    # q @ kᵀ per head: [4 heads, 16, 16] from [16, 64] projections (views folded).
    qk = layers[layers["kind"] == "matmul"]
    assert list(qk["output_shape"]) == [(4, 16, 16), (4, 16, 16)]
    assert qk["fwd_macs"].tolist() == [2 * 4 * 16 * 16 * 16] * 2
    assert net.trainable_params == torch_params(model) == 62_884
    check_module_weights(net, model)
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, ids)


def _same_counts_as_zoo(net, name: str, **options) -> None:
    """Parameters and forward MACs / FLOPs equal to the zoo's builder of the same model (batch
    1; the layer lists differ: the import keeps torch's slices and views)."""
    import dnnmem

    if name not in dnnmem.networks():
        pytest.skip(f"{name!r} is not in the zoo yet (dnnmem.networks())")
    zoo = dnnmem.network(name, **options)
    ours = net.with_batch(1)
    assert ours.trainable_params == zoo.trainable_params
    assert ours.layers["fwd_macs"].sum() == zoo.layers["fwd_macs"].sum()
    assert ours.flops.forward == zoo.flops.forward


def _transformers():
    return pytest.importorskip("transformers")


def test_bert_base_counts_and_sdpa():
    tr = _transformers()
    # train mode: attention runs as bmm, which the counter sees.
    model = tr.BertForSequenceClassification(tr.BertConfig()).train()
    ids = torch.randint(0, 1000, (2, 32))
    net = from_torch(model, (ids,))
    # bert-base-uncased without the pre-training heads: 109,482,240 (Devlin et al.: "110M"),
    # + the 2-label classifier 768·2 + 2.
    assert torch_params(model.bert) == 109_482_240
    assert net.trainable_params == torch_params(model) == 109_482_240 + 1538
    check_module_weights(net, model)
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, ids)
    layers = net.layers.set_index("name")
    p = "bert.encoder.layer.0.attention.self"
    # scaled_dot_product_attention → q·kᵀ, softmax, dropout (p = 0.1 in train mode), ·v
    assert [layers.loc[f"{p}.{s}", "kind"] for s in ("qk", "softmax", "dropout")] == [
        "matmul",
        "softmax",
        "dropout",
    ]
    assert layers.loc[p, "kind"] == "matmul"
    assert layers.loc[f"{p}.qk", "output_shape"] == (12, 32, 32)
    # Constant ids an embedding reads are inputs of the network (int64 buffers).
    assert layers.loc["bert.embeddings.position_ids", "kind"] == "input"
    assert layers.loc["bert.embeddings.token_type_ids", "output_shape"] == (32,)
    assert layers.loc["bert.pooler.select", "kind"] == "opaque"  # hidden_states[:, 0]
    _same_counts_as_zoo(net, "bert_base", seq_len=32)  # last: it may skip


def test_gpt2_small_counts_tied_head():
    tr = _transformers()
    model = tr.GPT2LMHeadModel(tr.GPT2Config(use_cache=False)).train()
    ids = torch.randint(0, 1000, (2, 32))
    net = from_torch(model, (ids,))
    # GPT-2 small: 124,439,808 parameters (the LM head is tied to wte).
    assert net.trainable_params == torch_params(model) == 124_439_808
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, ids)
    layers = net.layers.set_index("name")
    assert layers.loc["lm_head", "weight"] == "transformer.wte"
    assert layers.loc["lm_head", "output_shape"] == (32, 50257)
    # NewGELUActivation's eight ATen ops are one gelu layer.
    assert layers.loc["transformer.h.0.mlp.act", "kind"] == "gelu"
    assert (net.layers["kind"] == "gelu").sum() == 12
    assert (net.layers["kind"] == "rescaling").sum() == 0
    _same_counts_as_zoo(net, "gpt2", seq_len=32)  # last: it may skip


@pytest.mark.filterwarnings(LSTM_EXPORT_WARNING)
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_lstm_unrolled(layers, bidirectional):
    d, h, T, dirs = 8, 16, 6, 2 if bidirectional else 1

    class Tagger(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(50, d)
            self.lstm = nn.LSTM(
                d, h, num_layers=layers, batch_first=True, bidirectional=bidirectional
            )
            self.fc = nn.Linear(dirs * h, 5)

        def forward(self, ids):
            y, _ = self.lstm(self.emb(ids))
            return self.fc(y)

    model = Tagger()
    net = from_torch(model, torch.randint(0, 50, (2, T)))
    lt = net.layers.set_index("name")
    # torch keeps two biases per gate (b_ih, b_hh); lstm_cell has one: 4·h fewer parameters
    # per layer and direction, the only difference.
    assert net.trainable_params == torch_params(model) - 4 * h * layers * dirs
    # Every timestep of a layer reads the same four gate weights.
    assert (lt["weight"] == "lstm.l0/W_i").sum() == T
    assert lt.loc["lstm", "output_shape"] == (T, dirs * h)
    # MACs: gate FCs 4·h·(input + h) per step and direction, plus the output layer.
    inputs = [d] + [dirs * h] * (layers - 1)
    macs = sum(dirs * T * 4 * h * (i + h) for i in inputs) + T * dirs * h * 5
    assert net.layers["fwd_macs"].sum() == 2 * macs  # batch 2


def test_unsupported_ops_listed_then_placeholders():
    class Odd(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            y = torch.cumsum(self.fc(x), dim=-1)
            y = torch.erfinv(torch.cumsum(y, dim=-1).tanh())
            return self.fc(y)

    model = Odd()
    x = torch.randn(2, 8)
    with pytest.raises(UnsupportedOperatorError) as e:
        from_torch(model, x)
    assert e.value.ops == {"aten.cumsum": ["cumsum", "cumsum_1"], "aten.erfinv": ["erfinv"]}
    assert "aten.cumsum (nodes: cumsum, cumsum_1)" in str(e.value)
    with pytest.warns(ImporterWarning, match="aten.erfinv"):
        net = from_torch(model, x, strict=False)
    layers = net.layers.set_index("name")
    assert layers.loc["cumsum", "kind"] == "opaque" and layers.loc["cumsum", "fwd_flops"] == 0
    assert layers.loc["erfinv", "inputs"] == ("tanh",)
    assert layers.loc["fc_1", "weight"] == "fc"  # the module called twice shares its weights


@pytest.mark.filterwarnings("ignore:The tensor attributes self.*_flat_weights:UserWarning")
def test_gru_is_unsupported():
    gru = nn.GRU(4, 4, batch_first=True)
    with pytest.raises(UnsupportedOperatorError, match=r"aten\.gru"):
        from_torch(gru, torch.randn(2, 3, 4))


def test_pt2_file_and_pt_refused(tmp_path):
    model = torch_models.tiny_cnn().eval()
    ep = torch.export.export(model, (torch.randn(2, 3, 32, 32),))
    path = tmp_path / "tiny.pt2"
    torch.export.save(ep, str(path))
    net = from_torch(path, batch=4)
    assert (net.name, net.batch, net.trainable_params) == ("tiny", 4, 5482)
    with pytest.raises(ValueError, match="only .pt2 files"):
        from_torch(tmp_path / "tiny.pt")
    with pytest.raises(ValueError, match="example_inputs: required"):
        from_torch(model)
    assert math.isclose(
        net.flops.forward, from_torch(model, torch.randn(4, 3, 32, 32)).flops.forward
    )


def test_frozen_parameters_and_final_log_softmax():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3), nn.LogSoftmax(dim=-1))
    model[0].requires_grad_(False)
    net = from_torch(model, torch.randn(2, 4))
    layers = net.layers.set_index("name")
    assert not layers.loc["0", "trainable"] and layers.loc["2", "trainable"]
    assert (net.trainable_params, net.params) == (8 * 3 + 3, 4 * 8 + 8 + 8 * 3 + 3)
    assert list(layers.index) == ["input", "0", "1", "2"]  # log-softmax: the loss step's


def test_attention_mask_input_is_folded():
    tr = _transformers()
    config = tr.BertConfig(
        num_hidden_layers=2,
        hidden_size=64,
        num_attention_heads=4,
        intermediate_size=128,
        vocab_size=100,
    )
    model = tr.BertModel(config).eval()
    ids = torch.randint(0, 100, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    # The mask arithmetic (comparisons, expand) only feeds the attention mask, which is folded
    # into the softmax: those nodes are dropped, not reported as unsupported.
    net = from_torch(model, (ids, mask))
    assert "attention_mask" not in set(net.layers["name"])
    assert (net.layers["kind"] == "opaque").sum() == 1  # pooler.select only
    assert net.trainable_params == torch_params(model)


def test_vit_class_token_and_position_embedding():
    tr = _transformers()
    config = tr.ViTConfig(
        num_hidden_layers=2,
        hidden_size=64,
        num_attention_heads=4,
        intermediate_size=128,
        image_size=32,
        patch_size=8,
    )
    model = tr.ViTModel(config).train()
    x = torch.randn(2, 3, 32, 32)
    net = from_torch(model, x)
    layers = net.layers.set_index("name")
    # 4×4 patches of 64 channels, read as a [16, 64] sequence; the class token makes 17.
    assert layers.loc["embeddings.patch_embeddings.projection", "output_shape"] == (4, 4, 64)
    assert layers.loc["embeddings.cls_token", "kind"] == "class_token"
    assert layers.loc["embeddings.cls_token", "output_shape"] == (17, 64)
    assert layers.loc["embeddings.position_embeddings", "kind"] == "position_embedding"
    assert layers.loc["embeddings.position_embeddings", "params"] == 17 * 64
    assert net.trainable_params == torch_params(model)
    # ViT's attention (dropout 0) runs the fused CPU kernel even in train mode: the counter
    # misses its two products, 2 · heads · 17 · 17 · 16 MACs per layer and sample.
    attention = 2 * 2 * (2 * 4 * 17 * 17 * 16) * 2
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, x) + attention


def test_transformer_encoder_layer_time_major_internals():
    # nn.MultiheadAttention works time-major inside ([T, N, E], then [T, N·heads, E/heads]):
    # the batch axis is tracked through those views and transposes.
    model = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True).train()
    x = torch.randn(2, 10, 64)
    net = from_torch(model, x)
    assert net.trainable_params == torch_params(model) == 33_472
    layers = net.layers.set_index("name")
    assert layers.loc["self_attn.in_proj", "output_shape"] == (10, 192)  # q, k, v packed
    # Per head [T, E/heads]: q, k, v are selected from the packed projection (opaque copies).
    assert layers.loc["self_attn.scaled_dot_product_attention", "output_shape"] == (4, 10, 16)
    assert layers.loc["self_attn.out_proj", "inputs"] == (
        "self_attn.scaled_dot_product_attention_as_10x64",
    )
    assert layers.loc["linear1", "output_shape"] == (10, 128)
    assert 2 * net.layers["fwd_macs"].sum() == counter_flops(model, x)


@pytest.mark.filterwarnings(LSTM_EXPORT_WARNING)
def test_time_major_lstm():
    class TimeMajor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lstm = nn.LSTM(8, 16)

        def forward(self, x):  # x: [N, T, d]; the LSTM runs on [T, N, d]
            y, _ = self.lstm(x.transpose(0, 1))
            return y.transpose(0, 1)

    net = from_torch(TimeMajor(), torch.randn(2, 5, 8))
    layers = net.layers.set_index("name")
    assert layers.loc["lstm", "output_shape"] == (5, 16)
    assert (net.layers["kind"] == "lstm_cell").sum() == 0  # expanded: 5 steps of gate FCs
    assert (net.layers["weight"] == "lstm.l0/W_o").sum() == 5

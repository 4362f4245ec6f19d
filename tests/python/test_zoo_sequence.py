"""Built-in networks beyond ResNet-50 and the Transformer: GNMT, BERT-base, GPT-2, ViT-B/16,
ResNet-18 and AlexNet (``python/dnnmem/zoo/``, ``docs/networks.md``).

Parameter counts are hard-coded with their source, so they run without transformers; when
transformers is importable the four Hugging Face models are also built from their configs (on
the meta device: no weights allocated, nothing downloaded) and counted.

FLOP convention: ours = 2·MACs of the dense / conv / matmul layers + the point-wise FLOPs of
SPEC §2's table. Each test checks the MAC part exactly against a formula written here, and the
forward total within 2 % of a published figure or of the standard estimate
2·(parameters multiplied per token)·tokens + 4·layers·T²·d (QKᵀ and softmax·V, 2 FLOPs per MAC).
"""

from __future__ import annotations

import pytest

import dnnmem

# --- parameter counts -----------------------------------------------------------------------

# Published or framework counts (trainable parameters), with their source.
PUBLISHED_PARAMS = {
    # torchvision.models.resnet18 model card / docs table: "Params 11,689,512".
    "resnet18": 11_689_512,
    # torchvision.models.alexnet docs table: "Params 61,100,840".
    "alexnet": 61_100_840,
    # timm vit_base_patch16_224 (= transformers ViTForImageClassification(ViTConfig(
    # num_labels=1000))): 86,567,656.
    "vit_b16": 86_567_656,
    # transformers BertForSequenceClassification(BertConfig()): BertModel with pooler
    # 109,482,240 + classifier 768·2 + 2.
    "bert_base": 109_482_240 + 768 * 2 + 2,
    # transformers GPT2LMHeadModel(GPT2Config()) (lm_head tied to wte): 124,439,808.
    "gpt2": 124_439_808,
}
BERT_FOR_MASKED_LM = 109_514_298  # transformers BertForMaskedLM(BertConfig())
MLM_DECODER_BIAS = 30_522  # HF's vocab-sized decoder bias, which the format cannot write


@pytest.mark.parametrize("name", sorted(PUBLISHED_PARAMS))
def test_trainable_params_match_the_published_count(name):
    net = dnnmem.network(name)
    assert net.trainable_params == PUBLISHED_PARAMS[name]


def test_only_resnet18_has_state():
    # ResNet-18's 20 batchnorms hold running mean and variance, 2·C each, which torchvision's
    # parameters() leaves out: 2·(64 + 4·64 + 4·128 + 4·256 + 4·512 + 128 + 256 + 512) = 9,600.
    assert dnnmem.network("resnet18").params == 11_689_512 + 9_600
    for name in ("alexnet", "vit_b16", "bert_base", "gpt2", "gnmt"):
        net = dnnmem.network(name)
        assert net.params == net.trainable_params, name


def test_bert_mlm_head_lacks_only_the_decoder_bias():
    net = dnnmem.network("bert_base", head="mlm")
    assert net.trainable_params == BERT_FOR_MASKED_LM - MLM_DECODER_BIAS == 109_483_776


def test_bert_and_gpt2_params_do_not_depend_on_seq_len():
    # Position tables are embeddings over all max positions, as in HF.
    assert dnnmem.network("bert_base", seq_len=512).params == PUBLISHED_PARAMS["bert_base"]
    assert dnnmem.network("gpt2", seq_len=128).params == PUBLISHED_PARAMS["gpt2"]


@pytest.fixture(scope="module")
def hf_counts():
    """Parameter counts of the HF models built from their configs on the meta device."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    def count(model) -> int:
        return sum(p.numel() for p in model.parameters())

    with torch.device("meta"):
        return {
            "bert_base": count(
                transformers.BertForSequenceClassification(transformers.BertConfig())
            ),
            "bert_mlm": count(transformers.BertForMaskedLM(transformers.BertConfig())),
            "gpt2": count(transformers.GPT2LMHeadModel(transformers.GPT2Config())),
            "vit_b16": count(
                transformers.ViTForImageClassification(transformers.ViTConfig(num_labels=1000))
            ),
        }


@pytest.mark.parametrize("name", ["bert_base", "gpt2", "vit_b16"])
def test_params_equal_transformers(name, hf_counts):
    assert dnnmem.network(name).trainable_params == hf_counts[name]


def test_bert_mlm_params_equal_transformers_less_the_decoder_bias(hf_counts):
    net = dnnmem.network("bert_base", head="mlm")
    assert net.trainable_params == hf_counts["bert_mlm"] - MLM_DECODER_BIAS


# --- FLOPs ----------------------------------------------------------------------------------


def fwd_macs_per_sample(net) -> int:
    return int(net.layers["fwd_macs"].sum()) // net.batch


def encoder_macs(layers: int, T: int, d: int, d_ff: int) -> int:
    """q, k, v, o projections + QKᵀ and softmax·V + the two FFN dense layers, per sample."""
    return layers * (4 * T * d * d + 2 * T * T * d + 2 * T * d * d_ff)


def test_bert_macs_exact_and_flops_near_the_standard_estimate():
    for T in (128, 512):
        net = dnnmem.network("bert_base", seq_len=T)
        # encoder + pooler (d·d, one row) + classifier (d·2)
        assert fwd_macs_per_sample(net) == encoder_macs(12, T, 768, 3072) + 768 * 768 + 768 * 2
        per_token = 12 * (4 * (768 * 768 + 768) + 2 * 768 * 3072 + 3072 + 768 + 4 * 768)
        estimate = 2 * per_token * T + 4 * 12 * T * T * 768
        assert net.flops.forward == pytest.approx(estimate, rel=0.02)
    # T = 128: 11,174,217,216 MACs.
    assert fwd_macs_per_sample(dnnmem.network("bert_base")) == 11_174_217_216


def test_bert_mlm_head_macs():
    net = dnnmem.network("bert_base", head="mlm")
    T = 128
    assert fwd_macs_per_sample(net) == (
        encoder_macs(12, T, 768, 3072) + T * 768 * 768 + T * 768 * 30522
    )


def test_gpt2_macs_exact_and_flops_near_the_standard_estimate():
    for T in (1024, 128):
        net = dnnmem.network("gpt2", seq_len=T)
        lm_head = T * 768 * 50257
        assert fwd_macs_per_sample(net) == encoder_macs(12, T, 768, 4 * 768) + lm_head
        # 2·N·T + attention, N = every parameter but the position table (a lookup): the
        # blocks, ln_f, and wte, which the tied lm_head multiplies with every token.
        n_matmul = 124_439_808 - 1024 * 768
        estimate = 2 * n_matmul * T + 4 * 12 * T * T * 768
        assert net.flops.forward == pytest.approx(estimate, rel=0.02)
    assert fwd_macs_per_sample(dnnmem.network("gpt2")) == 145_824_153_600


def test_vit_macs_exact_and_near_timm():
    net = dnnmem.network("vit_b16")
    patch = 196 * 768 * (16 * 16 * 3)
    assert fwd_macs_per_sample(net) == patch + encoder_macs(12, 197, 768, 3072) + 768 * 1000
    assert fwd_macs_per_sample(net) == 17_563_828_224
    # timm's model card for vit_base_patch16_224: 17.6 GMACs.
    assert fwd_macs_per_sample(net) == pytest.approx(17.6e9, rel=0.02)
    assert net.flops.forward == pytest.approx(2 * 17.6e9, rel=0.02)


def test_class_token_selection_costs_one_add_per_token_element():
    df = dnnmem.network("vit_b16").layers.set_index("name")
    assert df.loc["cls_pool", "fwd_flops"] == 197 * 768
    assert df.loc["cls_tokens", "folded"]
    assert df.loc["head", "fwd_macs"] == 768 * 1000  # one row, as timm's head on the token
    assert df.loc["cls_token", "params"] == 768
    assert df.loc["pos_embed", "params"] == 197 * 768


def test_resnet18_macs_exact_and_near_he_et_al():
    net = dnnmem.network("resnet18")
    conv1 = 112 * 112 * 64 * 7 * 7 * 3
    layer1 = 4 * 56 * 56 * 64 * 9 * 64
    later = 0
    for side, c in ((28, 128), (14, 256), (7, 512)):
        first = side * side * c * 9 * (c // 2)  # the strided 3×3 reads c/2 channels
        rest = 3 * side * side * c * 9 * c
        downsample = side * side * c * (c // 2)
        later += first + rest + downsample
    fc = 512 * 1000
    assert fwd_macs_per_sample(net) == conv1 + layer1 + later + fc == 1_814_073_344
    # He et al. 2016, Table 1: ResNet-18 "1.8×10⁹" FLOPs (multiply-adds).
    assert fwd_macs_per_sample(net) == pytest.approx(1.8e9, rel=0.02)


def test_alexnet_macs_exact_and_near_torchvision():
    net = dnnmem.network("alexnet")
    convs = (
        55 * 55 * 64 * 11 * 11 * 3
        + 27 * 27 * 192 * 5 * 5 * 64
        + 13 * 13 * 384 * 9 * 192
        + 13 * 13 * 256 * 9 * 384
        + 13 * 13 * 256 * 9 * 256
    )
    fcs = 9216 * 4096 + 4096 * 4096 + 4096 * 1000
    assert fwd_macs_per_sample(net) == convs + fcs == 714_188_480
    # torchvision's alexnet docs table: 0.71 GFLOPS (multiply-adds).
    assert fwd_macs_per_sample(net) == pytest.approx(0.71e9, rel=0.02)


# --- GNMT -------------------------------------------------------------------------------------


def gnmt_params(T: int, H: int, L: int, V: int) -> int:
    lstm = lambda x: 4 * ((x + H) * H + H)  # noqa: E731 — four gate FCs on [x, h], one bias
    encoder = 2 * lstm(H) + lstm(2 * H) + (L - 2) * lstm(H)
    decoder = lstm(H) + (L - 1) * lstm(2 * H)
    return encoder + decoder + 2 * H * H + 2 * V * H + V * H  # attention, 2 embeddings, proj


def gnmt_macs(T: int, H: int, L: int, V: int) -> int:
    gates = lambda x: T * 4 * (x + H) * H  # noqa: E731 — one layer, all steps
    encoder = 2 * gates(H) + gates(2 * H) + (L - 2) * gates(H)
    decoder = gates(H) + (L - 1) * gates(2 * H)
    attention = T * H * H + T * (H * H + T * H + T * H)  # keys once; per step q, score, ctx
    return encoder + decoder + attention + T * H * V


def test_gnmt_params_and_macs():
    net = dnnmem.network("gnmt", batch=32)
    assert net.params == gnmt_params(50, 1024, 8, 32000) == 276_631_552
    assert fwd_macs_per_sample(net) == gnmt_macs(50, 1024, 8, 32000) == 10_556_416_000
    # Standard estimate: 2·(parameters multiplied per step)·T; the embedding tables are
    # lookups, the rest is read once per step (keys: once per source step).
    per_step = 276_631_552 - 2 * 32000 * 1024
    estimate = 2 * per_step * 50 + 4 * 50 * 50 * 1024
    assert net.flops.forward / 32 == pytest.approx(estimate, rel=0.02)


def test_small_gnmt_matches_the_formulas():
    net = dnnmem.network("gnmt", seq_len=3, hidden=8, layers=3, vocab=11)
    assert net.params == gnmt_params(3, 8, 3, 11)
    assert fwd_macs_per_sample(net) == gnmt_macs(3, 8, 3, 11)
    outputs = set(net.layers["name"]) - {i for ins in net.layers["inputs"] for i in ins}
    assert outputs == {"softmax_proj"}  # one loss step, on the logits
    assert net.layers.set_index("name").loc["softmax_proj", "output_shape"] == (3, 11)


def test_gnmt_shows_recurrent_weight_reuse():
    T = 50
    net = dnnmem.network("gnmt", batch=2)
    df = net.layers
    readers = df[df["weight"] != ""].groupby("weight").size()
    lstm_layers = (
        ["enc1f", "enc1b"] + [f"enc{l}" for l in range(2, 9)] + [f"dec{l}" for l in range(1, 9)]
    )
    for layer in lstm_layers:
        for gate in "ifgo":
            assert readers[f"{layer}/W_{gate}"] == T  # the same tensor, read by T steps
    assert readers["att_query"] == T and readers["att_keys"] == 1
    tensors = net.tensors.set_index("name")
    # Read once per forward step and once per backward step; dW accumulated over T steps.
    assert tensors.loc["W:enc3/W_i", "num_uses"] == 2 * T
    assert tensors.loc["dW:enc3/W_i", "num_uses"] == T
    assert tensors.loc["W:enc3/W_i", "bytes"] == 4 * ((1024 + 1024) * 1024 + 1024)


def test_gnmt_schedule_is_time_major():
    net = dnnmem.network("gnmt", seq_len=4, hidden=8, layers=3, vocab=11)
    df = net.layers.set_index("name")
    step = lambda name: df.loc[name, "fwd_step"]  # noqa: E731
    # The backward direction runs after every forward step, from T down to 1.
    assert step("enc1f_4") < step("enc1b_4") < step("enc1b_3") < step("enc1b_1")
    # Upper layers step by step: layer 3 at t = 1 before layer 2 at t = 2.
    assert step("enc3_1") < step("enc2_2")
    # Decoder: attention of step t between layer 1 and layer 2 of step t.
    assert step("dec1_2") < step("att_ctx2") < step("dec2_2") < step("dec1_3")


# --- registry and argument errors --------------------------------------------------------------


def test_registered():
    assert {"gnmt", "bert_base", "gpt2", "vit_b16", "resnet18", "alexnet"} <= set(
        dnnmem.zoo.networks()
    )


@pytest.mark.parametrize(
    "name, options, field",
    [
        ("bert_base", {"head": "nsp"}, "head"),
        ("bert_base", {"seq_len": 513}, "seq_len"),
        ("gpt2", {"seq_len": 1025}, "seq_len"),
        ("gnmt", {"layers": 1}, "layers"),
        ("gnmt", {"seq_len": 0}, "seq_len"),
        ("vit_b16", {"image_size": 200}, "image_size"),
        ("alexnet", {"input_shape": (227, 227, 3)}, "input_shape"),
    ],
)
def test_bad_options_name_the_argument(name, options, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        dnnmem.network(name, **options)

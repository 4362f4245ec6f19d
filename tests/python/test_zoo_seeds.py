"""Networks of the seed papers (docs/networks.md, "Networks of the seed papers").

Each network is checked against a figure published by its paper or computed by a framework,
with the source next to the number:

(a) trainable parameters exactly equal to the published / framework count;
(b) forward MACs (``Network.layers["fwd_macs"]``, per sample: conv, dense and matmul
    multiply-accumulates) pinned exactly, and within a stated tolerance of the published
    figure where one exists (papers and torchvision's "GFLOPS" column count multiply-adds);
(c) each network builds and ``dnnmem.estimate`` runs at the batch of the paper that uses it.
"""

from __future__ import annotations

import pytest

import dnnmem


def macs(net) -> int:
    """Forward multiply-accumulates per sample."""
    return int(net.layers["fwd_macs"].sum()) // net.batch


# name, builder options, trainable parameters, source of the count.
PUBLISHED_PARAMS = [
    # torchvision.models.googlenet docs table (pretrained layout, aux_logits=False): 6,624,904.
    ("googlenet", {"variant": "torchvision"}, 6_624_904),
    # torchvision.models.googlenet(aux_logits=True, weights=None): 13,004,888 (the pretrained
    # count + the two auxiliary heads, 3,188,968 + 3,191,016).
    ("googlenet", {"variant": "torchvision", "aux_logits": True}, 13_004_888),
    # Caffe Model Zoo bvlc_googlenet (deploy.prototxt, no auxiliary heads): 6,998,552 —
    # Szegedy et al. 2015 Table 1's layout with every bias (checked by hand below).
    ("googlenet", {}, 6_998_552),
    # timm inception_v4 (model card inception_v4.tf_in1k: "Params (M): 42.7"); exact count of
    # timm.create_model("inception_v4").parameters(): 42,679,816.
    ("inception_v4", {}, 42_679_816),
    # Iandola et al. 2016 Table 1, total of SqueezeNet (1.0); torchvision squeezenet1_0 docs
    # table: 1,248,424.
    ("squeezenet", {}, 1_248_424),
    # torchvision.models.squeezenet1_1 docs table: 1,235,496.
    ("squeezenet", {"version": "1.1"}, 1_235_496),
    # torchvision.models.resnext50_32x4d docs table: 25,028,904.
    ("resnext50_32x4d", {}, 25_028_904),
    # Keras' ResNeXt50 (keras_applications.resnext.ResNeXt50c32): the same weights, its grouped
    # kernels as depthwise ones with a multiplier (9 · width · c each, as 9 · c · width).
    ("resnext50c32", {}, 25_028_904),
    # torchvision.models.detection.ssd300_vgg16 docs table (COCO, 91 classes): 35,641,826.
    ("ssd300", {"num_classes": 91}, 35_641_826),
    # torch.nn.MultiheadAttention(512, 8): in_proj 3·512·512 + 3·512, out_proj 512·512 + 512
    # (cross-checked with torch below when it is installed).
    ("mha_block", {}, 1_050_624),
    # transformers BertModel(BertConfig(hidden_size=1024, num_hidden_layers=24,
    # num_attention_heads=16, intermediate_size=4096)) with pooler: 335,141,888; + classifier
    # 1024·2 + 2 (BertForSequenceClassification). Devlin et al.: "340M".
    ("bert_large", {}, 335_141_888 + 1024 * 2 + 2),
    # transformers BertModel for TinyBERT-4's config (4 layers, 312, 12 heads, FFN 1200) with
    # pooler: 14,350,248; + classifier 312·2 + 2. Jiao et al. 2020 Table 1: "14.5M".
    ("bert_tiny", {}, 14_350_248 + 312 * 2 + 2),
    # transformers T5ForConditionalGeneration for the t5-small / t5-large configs
    # (Raffel et al.: "60 million" / "770 million").
    ("t5_small", {}, 60_506_624),
    ("t5_large", {}, 737_668_096),
]


@pytest.mark.parametrize(
    "name, options, count",
    PUBLISHED_PARAMS,
    ids=[f"{n}-{'-'.join(map(str, o.values())) or 'default'}" for n, o, _ in PUBLISHED_PARAMS],
)
def test_trainable_params_equal_the_published_count(name, options, count):
    assert dnnmem.network(name, **options).trainable_params == count


# name, options, our exact MACs, published MACs, tolerance, source.
PUBLISHED_MACS = [
    # torchvision googlenet docs table: 1.50 GFLOPS (multiply-adds, 224×224).
    ("googlenet", {"variant": "torchvision"}, 1_498_376_192, 1.50e9, 0.01),
    # timm model card inception_v4.tf_in1k: 12.3 GMACs (299×299).
    ("inception_v4", {}, 12_253_974_624, 12.3e9, 0.01),
    # torchvision squeezenet1_0 / squeezenet1_1 docs table: 0.82 / 0.35 GFLOPS at 224×224.
    ("squeezenet", {"input_shape": (224, 224, 3)}, 818_924_576, 0.82e9, 0.01),
    ("squeezenet", {"version": "1.1", "input_shape": (224, 224, 3)}, 349_151_936, 0.35e9, 0.01),
    # Sermanet et al. 2014 Table 4: fast model, 2,810 M connections (multiply-adds).
    ("overfeat", {}, 2_801_403_904, 2810e6, 0.01),
    # torchvision resnext50_32x4d docs table: 4.23 GFLOPS; Xie et al. 2017 Table 1: 4.2×10⁹.
    ("resnext50_32x4d", {}, 4_230_479_872, 4.23e9, 0.01),
    ("resnext50c32", {}, 4_230_479_872, 4.23e9, 0.01),
    # torchvision ssd300_vgg16 docs table: 34.86 GFLOPS (91 classes, 300×300).
    ("ssd300", {"num_classes": 91}, 34_858_153_472, 34.86e9, 0.01),
]


@pytest.mark.parametrize("name, options, ours, published, tol", PUBLISHED_MACS)
def test_forward_macs_match_the_published_figure(name, options, ours, published, tol):
    net = dnnmem.network(name, **options)
    assert macs(net) == ours
    assert abs(ours / published - 1) < tol


def test_inception_v4_matches_openvino_tf_slim_figures():
    """OpenVINO's googlenet-v4-tf (the TF-slim graph: 1,001 classes, batch norm with β only):
    42.648 MParams, 24.584 GFLOPs. With 1,001 classes and γ removed (one per channel of every
    batch norm) ours are within 0.1 % of both (FLOPs = 2·MACs there)."""
    net = dnnmem.network("inception_v4", num_classes=1001)
    layers = net.layers
    gammas = int(
        layers.loc[layers["kind"] == "batchnorm", "output_shape"].map(lambda s: s[-1]).sum()
    )
    assert abs((net.trainable_params - gammas) / 42.648e6 - 1) < 0.001
    assert abs(2 * macs(net) / 24.584e9 - 1) < 0.005


# --- GoogLeNet against Szegedy et al. 2015, Table 1 ------------------------------------------

# Table 1: "params" (weights, in units of 1,024) and "ops" (multiply-adds, millions) per row.
GOOGLENET_TABLE1 = {
    "conv1": (2.7, 34),
    "conv2": (112, 360),
    "3a": (159, 128),
    "3b": (380, 304),
    "4a": (364, 73),
    "4b": (437, 88),
    "4c": (463, 100),
    "4d": (580, 119),
    "4e": (840, 170),
    "5a": (1072, 54),
    "5b": (1388, 71),
    "linear": (1000, 1),
}


def _googlenet_rows():
    layers = dnnmem.network("googlenet").layers

    def row(name: str) -> str | None:
        if name.startswith("inception_"):
            return name.split("_")[1]
        for prefix, key in (("conv1", "conv1"), ("conv2", "conv2"), ("loss3", "linear")):
            if name.startswith(prefix):
                return key
        return None

    layers = layers.assign(row=layers["name"].map(row))
    weighted = layers[layers["kind"].isin(["conv2d", "dense"])]
    # Weights only: a bias per output channel.
    weights = weighted["params"] - weighted["output_shape"].map(lambda s: s[-1])
    return (
        weights.groupby(weighted["row"]).sum() / 1024,
        layers.groupby("row")["fwd_macs"].sum() / 1e6,
    )


def test_googlenet_caffe_matches_table1_row_by_row():
    kweights, mmacs = _googlenet_rows()
    # Rows that match to rounding: 3a is 163,328 weights (159.5 K) and 128.05 M MACs, …
    for key in ("conv2", "3a", "3b", "4a", "4b", "4d", "4e", "5b", "linear"):
        assert abs(mmacs[key] - GOOGLENET_TABLE1[key][1]) <= max(
            1.0, 0.01 * GOOGLENET_TABLE1[key][1]
        )
    # The table's own slips: conv1 lists 2.7 K weights / 34 M ops for a 7×7×3×64 kernel
    # (9.2 K / 118 M on 112×112); 5a lists 54 M ops where its shapes give 51.1 M; 4c and 5a
    # list 463 K and 1,072 K weights where the shapes give 497.5 K and 1,018 K.
    assert kweights["conv1"] == 7 * 7 * 3 * 64 / 1024
    assert mmacs["conv1"] == 112 * 112 * 7 * 7 * 3 * 64 / 1e6
    # Sums without conv1: weights 6,817 K against the table's 6,795 K, MACs 1,465 M against
    # 1,468 M.
    table_k = sum(p for k, (p, _) in GOOGLENET_TABLE1.items() if k != "conv1")
    table_m = sum(m for k, (_, m) in GOOGLENET_TABLE1.items() if k != "conv1")
    assert abs(kweights.drop("conv1").sum() / table_k - 1) < 0.004
    assert abs(mmacs.drop("conv1").sum() / table_m - 1) < 0.004


def test_googlenet_caffe_params_by_hand():
    """bvlc_googlenet: every convolution and the classifier with a bias, 5×5 branches."""

    def conv(cin: int, cout: int, k: int) -> int:
        return k * k * cin * cout + cout

    modules = [
        (192, 64, 96, 128, 16, 32, 32),
        (256, 128, 128, 192, 32, 96, 64),
        (480, 192, 96, 208, 16, 48, 64),
        (512, 160, 112, 224, 24, 64, 64),
        (512, 128, 128, 256, 24, 64, 64),
        (512, 112, 144, 288, 32, 64, 64),
        (528, 256, 160, 320, 32, 128, 128),
        (832, 256, 160, 320, 32, 128, 128),
        (832, 384, 192, 384, 48, 128, 128),
    ]
    total = conv(3, 64, 7) + conv(64, 64, 1) + conv(64, 192, 3) + 1024 * 1000 + 1000
    for cin, n1, n3r, n3, n5r, n5, npool in modules:
        total += (
            conv(cin, n1, 1)
            + conv(cin, n3r, 1)
            + conv(n3r, n3, 3)
            + conv(cin, n5r, 1)
            + conv(n5r, n5, 5)
            + conv(cin, npool, 1)
        )
    assert total == 6_998_552 == dnnmem.network("googlenet").params
    # Auxiliary heads: 1×1 conv 128, dense 2048 → 1024, dense 1024 → 1000 each.
    aux = sum(conv(c, 128, 1) + 2048 * 1024 + 1024 + 1024 * 1000 + 1000 for c in (512, 528))
    assert dnnmem.network("googlenet", aux_logits=True).params == 6_998_552 + aux


def test_googlenet_variants_differ_as_documented():
    caffe = dnnmem.network("googlenet").layers
    tv = dnnmem.network("googlenet", variant="torchvision").layers
    assert set(caffe.loc[caffe["kind"] == "softmax", "name"]) == {"pool1_norm1", "conv2_norm2"}
    assert (tv["kind"] == "softmax").sum() == 0 and (caffe["kind"] == "batchnorm").sum() == 0
    # 57 convolutions each; torchvision's 3×3 "5×5" branch, Caffe's 5×5.
    assert (tv["kind"] == "conv2d").sum() == (caffe["kind"] == "conv2d").sum() == 57
    c, t = caffe.set_index("name"), tv.set_index("name")
    assert c.loc["inception_3a_5x5", "params"] == 5 * 5 * 16 * 32 + 32
    assert t.loc["inception3a_branch3_1_conv", "params"] == 3 * 3 * 16 * 32
    # Caffe's ceil-rounded pools: 112 → 56 → 28 → 14 → 7.
    for name, side in (
        ("pool1_3x3_s2", 56),
        ("pool2_3x3_s2", 28),
        ("pool3_3x3_s2", 14),
        ("pool4_3x3_s2", 7),
    ):
        assert c.loc[name, "output_shape"][:2] == (side, side)
    # Batch norm running statistics: state, not trainable (2·C per convolution).
    net = dnnmem.network("googlenet", variant="torchvision")
    assert net.params - net.trainable_params == 2 * int(
        tv.loc[tv["kind"] == "conv2d", "output_shape"].map(lambda s: s[-1]).sum()
    )


def test_googlenet_aux_heads_are_outputs_with_loss_steps():
    for variant, heads in (
        ("caffe", {"loss1_classifier", "loss2_classifier", "loss3_classifier"}),
        ("torchvision", {"aux1_fc2", "aux2_fc2", "fc"}),
    ):
        net = dnnmem.network("googlenet", variant=variant, aux_logits=True)
        steps = net.steps
        assert set(steps.loc[steps["phase"] == "loss", "layer"]) == heads


# --- by-hand counts of the single-path networks ----------------------------------------------


def test_overfeat_by_hand():
    """Sermanet et al. Table 1 (fast): shapes 56 → 28, 24 → 12, 12, 12, 12 → 6."""
    convs = [
        (56, 11, 3, 96),
        (24, 5, 96, 256),
        (12, 3, 256, 512),
        (12, 3, 512, 1024),
        (12, 3, 1024, 1024),
    ]
    fcs = [(6 * 6 * 1024, 3072), (3072, 4096), (4096, 1000)]
    params = sum(k * k * ci * co + co for _, k, ci, co in convs) + sum(i * o + o for i, o in fcs)
    mac = sum(s * s * k * k * ci * co for s, k, ci, co in convs) + sum(i * o for i, o in fcs)
    net = dnnmem.network("overfeat")
    assert net.params == params == 145_920_872
    assert macs(net) == mac == 2_801_403_904
    # Table 4: "145 M" parameters (fast model).
    assert abs(net.params / 145e6 - 1) < 0.01


def test_nin_by_hand():
    """nin_imagenet: 224 → conv1 54 → 27 → 13 → 6 (Caffe's ceil pools)."""
    layers = [
        (54, 11, 3, 96),
        (54, 1, 96, 96),
        (54, 1, 96, 96),
        (27, 5, 96, 256),
        (27, 1, 256, 256),
        (27, 1, 256, 256),
        (13, 3, 256, 384),
        (13, 1, 384, 384),
        (13, 1, 384, 384),
        (6, 3, 384, 1024),
        (6, 1, 1024, 1024),
        (6, 1, 1024, 1000),
    ]
    net = dnnmem.network("nin")
    assert net.params == sum(k * k * ci * co + co for _, k, ci, co in layers) == 7_595_176
    assert macs(net) == sum(s * s * k * k * ci * co for s, k, ci, co in layers)
    # Caffe Model Zoo: a 29 MB model file (FP32 weights): 29.0 MiB.
    assert round(net.params * 4 / 2**20) == 29


def test_squeezenet_input_sizes():
    """227×227 (the Caffe prototxt's crop) gives Table 1's 111×111×96 conv1 and 55 / 27 / 13
    after the pools; 224×224 gives torchvision's 109 / 54 / 27 / 13."""
    for side, sizes in ((227, (111, 55, 27, 13)), (224, (109, 54, 27, 13))):
        df = dnnmem.network("squeezenet", input_shape=(side, side, 3)).layers.set_index("name")
        got = tuple(df.loc[n, "output_shape"][0] for n in ("conv1", "pool1", "pool4", "pool8"))
        assert got == sizes
        assert df.loc["pool10", "output_shape"] == (1000,)
    # Parameters do not depend on the input size.
    assert dnnmem.network("squeezenet", input_shape=(224, 224, 3)).params == 1_248_424
    # Iandola et al. Table 1, "# parameter before pruning": conv1 14,208, fire2 11,920
    # (squeeze 96 → 16, expand 16 → 64 + 64, with biases), conv10 513,000.
    df = dnnmem.network("squeezenet").layers
    fire2 = df.loc[df["name"].str.startswith("fire2_"), "params"].sum()
    assert (df.loc[df["name"] == "conv1", "params"].item(), fire2) == (14_208, 11_920)
    assert df.loc[df["name"] == "conv10", "params"].item() == 513_000


# --- ResNeXt, SSD300, the PTB LSTM and the attention block -----------------------------------


def test_resnext_grouped_convolutions():
    df = dnnmem.network("resnext50_32x4d").layers.set_index("name")
    # 3×3 grouped convolution: 32 groups of (width/32 → width/32) channels, no bias.
    for p, width in (("layer1_0", 128), ("layer2_0", 256), ("layer3_0", 512), ("layer4_0", 1024)):
        assert df.loc[f"{p}_conv2", "params"] == 3 * 3 * (width // 32) * width
    # The stride sits on the 3×3 convolution (torchvision's v1.5): 56 → 28 there.
    assert df.loc["layer2_0_conv1", "output_shape"] == (56, 56, 256)
    assert df.loc["layer2_0_conv2", "output_shape"] == (28, 28, 256)
    assert df.loc["fc", "output_shape"] == (1000,)


def test_resnext_keras_grouped_convolutions_as_depthwise_and_sum():
    """Keras' block: depthwise convolution with multiplier c = width / 32, then the Lambda's
    sum over the c partial products of each output channel (an avgpool of window [1, c] over
    the folded reshape [H·W·width, c, 1]: c adds per output, one per element read)."""
    net = dnnmem.network("resnext50c32")
    df = net.layers.set_index("name")
    # Keras' documented ResNeXt50 total: 25,097,128 (the 68,224 batch-norm statistics of
    # resnext50_32x4d's 25,028,904 + 68,224 as well).
    assert net.params == 25_097_128
    for stack, width, hw in ((2, 128, 56), (3, 256, 28), (4, 512, 14), (5, 1024, 7)):
        c = width // 32
        p = f"conv{stack}_block1"
        # 56·56·128·4 = 28·28·256·8 = … = 1,605,632 partial products in every stack.
        assert df.loc[f"{p}_2_conv", "output_shape"] == (hw, hw, width * c)
        assert hw * hw * width * c == 1_605_632
        assert df.loc[f"{p}_2_conv", "params"] == 3 * 3 * width * c
        assert df.loc[f"{p}_2_reduce", "fwd_flops"] == 1_605_632
        assert df.loc[f"{p}_2_bn", "output_shape"] == (hw, hw, width)
        assert df.loc[f"{p}_0_conv", "output_shape"] == (hw, hw, 2 * width)
    assert df.loc["conv1_conv", "output_shape"] == (112, 112, 64)
    assert df.loc["pool1_pool", "output_shape"] == (56, 56, 64)
    assert df.loc["probs", "output_shape"] == (1000,)
    # The same network as torchvision's, but for the sums and their expanded operands.
    tv = dnnmem.network("resnext50_32x4d").layers
    assert (df["kind"] == "batchnorm").sum() == (tv["kind"] == "batchnorm").sum() == 53


def test_resnext_keras_sum_step_on_the_onsram_accelerator():
    """conv2_block1's sum at 2 B per element on the onsram preset, by hand: without
    management it reads the 1,605,632 partial products (3,211,264 B) and writes 56·56·128
    elements (802,816 B) at 32 GB/s: 125.44 µs; with every activation on chip it is its
    1,605,632 adds at 375 GFLOP/s: 4.28 µs."""
    net = dnnmem.network("resnext50c32", batch=1, bytes_per_element=2).fold_batchnorm()
    hw = dnnmem.hardware("onsram")
    none = dnnmem.estimate(net, hw, policy="inference + none").steps.set_index("layer")
    inf = dnnmem.estimate(net, hw, policy="inference + infinite-spm").steps.set_index("layer")
    s = "conv2_block1_2_reduce"
    assert (none.at[s, "bytes_in"], none.at[s, "bytes_out"]) == (3_211_264, 802_816)
    assert none.at[s, "time"] == pytest.approx((3_211_264 + 802_816) / 32e9, rel=1e-12)
    assert (inf.at[s, "bytes_in"], inf.at[s, "bytes_out"]) == (0, 0)
    assert inf.at[s, "time"] == pytest.approx(1_605_632 / 375e9, rel=1e-12)


def ssd_params(num_classes: int) -> int:
    """SSD300 by hand: VGG-16 convolutions, L2 scale, fc6 / fc7, extras, heads."""
    conv = lambda ci, co, k: k * k * ci * co + co  # noqa: E731
    vgg = [
        (3, 64),
        (64, 64),
        (64, 128),
        (128, 128),
        (128, 256),
        (256, 256),
        (256, 256),
        (256, 512),
        (512, 512),
        (512, 512),
        (512, 512),
        (512, 512),
        (512, 512),
    ]
    total = sum(conv(ci, co, 3) for ci, co in vgg) + 512
    total += conv(512, 1024, 3) + conv(1024, 1024, 1)
    total += (
        conv(1024, 256, 1)
        + conv(256, 512, 3)
        + conv(512, 128, 1)
        + conv(128, 256, 3)
        + 2 * (conv(256, 128, 1) + conv(128, 256, 3))
    )
    for channels, boxes in ((512, 4), (1024, 6), (512, 6), (256, 6), (256, 4), (256, 4)):
        total += conv(channels, boxes * 4, 3) + conv(channels, boxes * num_classes, 3)
    return total


def test_ssd300_by_hand_and_its_outputs():
    for k in (21, 81, 91):
        assert dnnmem.network("ssd300", num_classes=k).params == ssd_params(k)
    assert ssd_params(21) == 26_285_486 == 22_943_936 + 133_662 * 25
    net = dnnmem.network("ssd300")
    df = net.layers.set_index("name")
    # 8,732 default boxes: 38²·4 + 19²·6 + 10²·6 + 5²·6 + 3²·4 + 1²·4.
    assert df.loc["mbox_loc", "output_shape"] == (8732, 4)
    assert df.loc["mbox_conf", "output_shape"] == (8732, 21)
    steps = net.steps
    assert set(steps.loc[steps["phase"] == "loss", "layer"]) == {"mbox_loc", "mbox_conf"}
    # Feature-map sides of the paper's Figure 2.
    for name, side in (
        ("relu4_3", 38),
        ("relu7", 19),
        ("conv6_2", 10),
        ("conv7_2", 5),
        ("conv8_2", 3),
        ("conv9_2", 1),
    ):
        assert df.loc[name, "output_shape"][:2] == (side, side)
    # The L2Norm stand-in: 512 scale weights, no shift.
    assert df.loc["conv4_3_norm", "params"] == 512


def zaremba_params(units: int, layers: int = 2, vocab: int = 10000) -> int:
    return vocab * units + layers * 4 * (2 * units * units + units) + units * vocab + vocab


def test_ptb_lstm_sizes_match_the_published_counts():
    medium, large = dnnmem.network("ptb_lstm"), dnnmem.network("ptb_lstm", size="large")
    assert medium.params == zaremba_params(650) == 19_775_200
    assert large.params == zaremba_params(1500) == 66_022_000
    # Merity et al. 2018, Table 1: Zaremba et al. (2014) LSTM medium 20M, large 66M.
    assert round(medium.params / 1e6) == 20 and round(large.params / 1e6) == 66
    # Forward MACs per sample: T steps of 4 gate FCs on [x, h] per layer + the softmax.
    T, d = 35, 650
    assert macs(medium) == T * (2 * 4 * 2 * d * d + d * 10000) == 464_100_000


def test_ptb_lstm_shares_weights_over_steps():
    net = dnnmem.network("ptb_lstm", batch=20)
    readers = net.layers[net.layers["weight"] != ""].groupby("weight").size()
    for layer in ("lstm1", "lstm2"):
        for gate in "ifgo":
            assert readers[f"{layer}/W_{gate}"] == 35
    assert readers["embedding"] == 35
    df = net.layers.set_index("name")
    assert df.loc["softmax", "output_shape"] == (35, 10000)
    assert df.loc["emb_drop1", "kind"] == "dropout"
    small = dnnmem.network("ptb_lstm", size="small", seq_len=20).layers
    assert (small["kind"] == "dropout").sum() == 0


def test_mha_block_macs_and_torch_count():
    net = dnnmem.network("mha_block")
    T, d = 50, 512
    assert macs(net) == 4 * T * d * d + 2 * T * T * d == 54_988_800
    torch = pytest.importorskip("torch")
    with torch.device("meta"):
        mha = torch.nn.MultiheadAttention(512, 8)
    assert net.params == sum(p.numel() for p in mha.parameters())


# --- seed 001: BERT, T5, NCF, DLRM, Faster R-CNN ---------------------------------------------


@pytest.fixture(scope="module")
def hf_counts():
    """Parameter counts of the HF models built from their configs on the meta device (no
    weights allocated, nothing downloaded)."""
    torch = pytest.importorskip("torch")
    tf = pytest.importorskip("transformers")

    def count(model) -> int:
        return sum(p.numel() for p in model.parameters())

    t5 = dict(d_kv=64, vocab_size=32128)
    with torch.device("meta"):
        return {
            "bert_large": count(
                tf.BertForSequenceClassification(
                    tf.BertConfig(
                        hidden_size=1024,
                        num_hidden_layers=24,
                        num_attention_heads=16,
                        intermediate_size=4096,
                    )
                )
            ),
            "bert_tiny": count(
                tf.BertForSequenceClassification(
                    tf.BertConfig(
                        hidden_size=312,
                        num_hidden_layers=4,
                        num_attention_heads=12,
                        intermediate_size=1200,
                    )
                )
            ),
            "t5_small": count(
                tf.T5ForConditionalGeneration(
                    tf.T5Config(d_model=512, d_ff=2048, num_layers=6, num_heads=8, **t5)
                )
            ),
            "t5_large": count(
                tf.T5ForConditionalGeneration(
                    tf.T5Config(d_model=1024, d_ff=4096, num_layers=24, num_heads=16, **t5)
                )
            ),
        }


@pytest.mark.parametrize("name", ["bert_large", "bert_tiny", "t5_small", "t5_large"])
def test_params_equal_transformers(name, hf_counts):
    assert dnnmem.network(name).trainable_params == hf_counts[name]


def encoder_macs(layers: int, T: int, d: int, d_ff: int, inner: int | None = None) -> int:
    """q, k, v, o projections + QKᵀ and softmax·V + the two FFN dense layers, per sample."""
    inner = d if inner is None else inner
    return layers * (4 * T * d * inner + 2 * T * T * inner + 2 * T * d * d_ff)


def test_bert_sizes_macs():
    for name, (L, d, ff) in {"bert_large": (24, 1024, 4096), "bert_tiny": (4, 312, 1200)}.items():
        net = dnnmem.network(name)
        assert net.name == name
        # encoder + pooler (one row) + classifier
        assert macs(net) == encoder_macs(L, 128, d, ff) + d * d + d * 2


def t5_macs(L: int, S: int, T: int, d: int, ff: int, vocab: int = 32128) -> int:
    enc = encoder_macs(L, S, d, ff)
    # decoder self-attention, cross-attention (q, o on T tokens; k, v on S; T×S scores), FFN
    dec = L * (
        4 * T * d * d
        + 2 * T * T * d
        + 2 * T * d * d
        + 2 * S * d * d
        + 2 * T * S * d
        + 2 * T * d * ff
    )
    return enc + dec + T * d * vocab


def test_t5_macs_and_shared_embedding():
    small = dnnmem.network("t5_small", batch=2)
    assert macs(small) == t5_macs(6, 512, 128, 512, 2048)
    assert macs(dnnmem.network("t5_large")) == t5_macs(24, 512, 128, 1024, 4096)
    df = small.layers.set_index("name")
    # One table: the encoder and decoder lookups and the tied lm_head read `shared`.
    assert set(df.loc[["enc_emb", "dec_emb", "lm_head"], "weight"]) == {"shared"}
    assert df.loc["lm_head", "output_shape"] == (128, 32128)
    # The relative position bias: computed once per stack, added in every block.
    assert df.loc["enc_rel_bias", "params"] == 32 * 8
    readers = small.layers[small.layers["inputs"].map(lambda i: "enc_rel_bias_t" in i)]
    assert len(readers) == 6 and set(readers["kind"]) == {"add"}
    # RMS norm: a scale per channel, no shift.
    assert df.loc["enc1_sa_ln", "params"] == 512


def test_ncf_by_hand():
    net = dnnmem.network("ncf")
    users, items = 6040, 3706  # MovieLens-1M, He et al. 2017 Table 1
    dense = (64 * 32 + 32) + (32 * 16 + 16) + (16 * 8 + 8) + (16 + 1)
    assert net.params == (users + items) * (8 + 32) + dense == 392_601
    assert macs(net) == 64 * 32 + 32 * 16 + 16 * 8 + 16
    df = net.layers.set_index("name")
    assert df.loc["neumf_concat", "output_shape"] == (1, 16)
    mlperf = dnnmem.network(
        "ncf", users=138493, items=26744, factors=64, mlp_layers=(256, 256, 128, 64)
    )
    assert mlperf.params == (138493 + 26744) * (64 + 128) + (256 * 256 + 256) + (
        256 * 128 + 128
    ) + (128 * 64 + 64) + (128 + 1)


def test_dlrm_configs_by_hand():
    from dnnmem.zoo.recommenders import _TABLES

    def mlp(dims):
        return sum(i * o + o for i, o in zip(dims, dims[1:]))

    mlperf = dnnmem.network("dlrm")
    assert sum(_TABLES["mlperf"]) == 187_767_399
    assert (
        mlperf.params
        == 187_767_399 * 128 + mlp([13, 512, 256, 128]) + mlp([479, 1024, 1024, 512, 256, 1])
        == 24_036_595_969
    )
    # Desai & Shrivastava 2022 on MLPerf's DLRM: "25+Billion parameters", 100 GB of
    # embeddings (ours: 96.1 GB in FP32).
    assert 24e9 < mlperf.params < 25e9 + 1e9
    kaggle = dnnmem.network("dlrm", config="kaggle")
    assert (
        kaggle.params
        == sum(_TABLES["kaggle"]) * 16 + mlp([13, 512, 256, 64, 16]) + mlp([367, 512, 256, 1])
        == 540_677_217
    )
    df = mlperf.layers.set_index("name")
    # The interaction: 27 vectors, a full 27×27 product, 351 pairs kept, 128 + 351 = 479.
    assert df.loc["interact_in", "output_shape"] == (27, 128)
    assert df.loc["interact", "fwd_macs"] == 27 * 27 * 128
    assert df.loc["interact_tril", "output_shape"] == (351,)
    assert df.loc["top_in", "output_shape"] == (479,)
    assert df.loc["top5", "output_shape"] == (1,)


def test_dlrm_reads_only_the_gathered_rows():
    """One lookup per table per sample: the 96 GB of tables are not streamed in full."""
    net = dnnmem.network("dlrm", batch=8)
    result = dnnmem.estimate(net, capacity="24MiB")
    assert result.traffic_in < 1e9 < 4 * net.params


def test_faster_rcnn_against_vgg16():
    """The conv body and fc6 / fc7 are VGG-16's (the zoo's Keras VGG-16)."""
    vgg = dnnmem.network("vgg16").layers.set_index("name")
    frcnn = dnnmem.network("faster_rcnn")
    df = frcnn.layers.set_index("name")
    body = int(vgg.loc[vgg["kind"] == "conv2d", "params"].sum())
    assert body == 14_714_688
    assert int(df.loc[df.index.str.startswith("conv"), "params"].sum()) == body
    assert df.loc["fc6", "params"] + df.loc["fc7", "params"] == (
        vgg.loc["fc1", "params"] + vgg.loc["fc2", "params"]
    )
    rpn = 3 * 3 * 512 * 512 + 512 + 512 * 18 + 18 + 512 * 36 + 36
    heads = 4096 * 21 + 21 + 4096 * 84 + 84
    assert frcnn.params == body + rpn + 119_545_856 + heads == 137_078_239
    assert dnnmem.network("faster_rcnn", head="rpn").params == body + rpn
    # conv1_x and conv2_x frozen: 1,792 + 36,928 + 73,856 + 147,584.
    assert frcnn.params - frcnn.trainable_params == 260_160
    # 600×1000 → 38×63 at conv5_3; 9 anchors per position.
    assert df.loc["relu5_3", "output_shape"] == (38, 63, 512)
    assert df.loc["rpn_cls_score_flat", "output_shape"] == (38 * 63 * 9, 2)
    assert df.loc["cls_score", "output_shape"] == (128, 21)
    steps = frcnn.steps
    assert set(steps.loc[steps["phase"] == "loss", "layer"]) == {
        "rpn_cls_score",
        "rpn_bbox_pred",
        "cls_score",
        "bbox_pred",
    }


# --- every network at the batch of the paper that uses it ------------------------------------

# (name, options, batch, paper): cDMA (Rhu et al. 2018) Table II; MBS (Lym et al. 2019) §4.4:
# 32 per core for the deep CNNs; OnSRAM (Pal et al.): batch-1 inference (estimated here as a
# training iteration at batch 1: dnnmem has no inference scheduler yet).
PAPER_BATCHES = [
    ("overfeat", {}, 256, "cDMA Table II"),
    ("nin", {}, 128, "cDMA Table II"),
    ("squeezenet", {}, 512, "cDMA Table II"),
    ("googlenet", {"aux_logits": True}, 256, "cDMA Table II (Caffe training network)"),
    ("googlenet", {}, 1, "OnSRAM Table I"),
    ("inception_v4", {}, 32, "MBS §4.4"),
    ("inception_v4", {}, 1, "OnSRAM Table I"),
    ("squeezenet", {}, 1, "OnSRAM Table I"),
    ("resnext50_32x4d", {}, 1, "OnSRAM Table I (--resnext torchvision)"),
    ("resnext50c32", {}, 1, "OnSRAM Table I"),
    ("ssd300", {}, 1, "OnSRAM Table I"),
    ("ptb_lstm", {}, 1, "OnSRAM Table I"),
    ("ptb_lstm", {}, 20, "Zaremba et al. §4.1 (training minibatch)"),
    ("mha_block", {}, 1, "OnSRAM Table I"),
    # The interleaved-gradient paper (Table 3): 4 on the small NPU, 8 per large-NPU core.
    ("bert_large", {}, 8, "interleaved, large NPU"),
    ("bert_tiny", {}, 4, "interleaved, small NPU"),
    ("t5_large", {}, 8, "interleaved, large NPU"),
    ("t5_small", {}, 4, "interleaved, small NPU"),
    ("ncf", {}, 8, "interleaved"),
    ("ncf", {}, 256, "He et al. 2017 (the authors' code)"),
    ("dlrm", {}, 8, "interleaved"),
    ("faster_rcnn", {}, 8, "interleaved"),
    ("faster_rcnn", {"head": "rpn"}, 4, "interleaved"),
    ("googlenet", {}, 8, "interleaved"),
]


@pytest.mark.parametrize("name, options, batch, paper", PAPER_BATCHES)
def test_estimate_runs_at_the_paper_batch(name, options, batch, paper):
    net = dnnmem.network(name, batch=batch, **options)
    result = dnnmem.estimate(net, capacity="24MiB")
    assert result.time > 0
    # Every weight tensor read whole (all but embedding tables, which are read only at the
    # gathered rows) is loaded at least once per iteration.
    t = net.tensors
    whole = t[(t["role"] == "weight") & (t["first_full_use"] >= 0)]
    assert result.traffic_in >= int(whole["bytes"].sum()) > 0


def test_registered():
    assert {
        "googlenet",
        "inception_v4",
        "squeezenet",
        "nin",
        "overfeat",
        "resnext50_32x4d",
        "resnext50c32",
        "ssd300",
        "ptb_lstm",
        "mha_block",
        "bert_large",
        "bert_tiny",
        "t5_small",
        "t5_large",
        "ncf",
        "dlrm",
        "faster_rcnn",
    } <= set(dnnmem.zoo.networks())


@pytest.mark.parametrize(
    "name, options, field",
    [
        ("googlenet", {"variant": "keras"}, "variant"),
        ("googlenet", {"aux_logits": True, "input_shape": (256, 256, 3)}, "input_shape"),
        ("squeezenet", {"version": "1.2"}, "version"),
        ("squeezenet", {"input_shape": (224, 200, 3)}, "input_shape"),
        ("overfeat", {"input_shape": (224, 224, 3)}, "input_shape"),
        ("ptb_lstm", {"size": "huge"}, "size"),
        ("ptb_lstm", {"seq_len": 0}, "seq_len"),
        ("mha_block", {"d_model": 500}, "d_model"),
        ("t5_small", {"src_len": 0}, "src_len"),
        ("ncf", {"mlp_layers": (63, 32)}, "mlp_layers"),
        ("dlrm", {"config": "avazu"}, "config"),
        ("faster_rcnn", {"head": "mask"}, "head"),
    ],
)
def test_bad_options_name_the_argument(name, options, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        dnnmem.network(name, **options)

"""The darknet importer against darknet's own figures for the cfg files in tests/data/darknet."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import dnnmem
from dnnmem.importers import UnsupportedOperatorError, from_darknet, import_model
from dnnmem.importers.darknet import parse_cfg

# darknet's own cfg files, kept in the repository (origin and licence: tests/data/README.md).
DATA = Path(__file__).resolve().parents[1] / "data" / "darknet"


def cfg(name: str) -> str:
    return os.fspath(DATA / f"{name}.cfg")


def conv_flops(net: dnnmem.Network) -> int:
    """2·MACs of the convolutions only, at batch 1: what darknet prints as BFLOPs per conv."""
    df = net.layers
    return int(df.loc[df["kind"] == "conv2d", "fwd_flops"].sum())


def outputs(net: dnnmem.Network) -> list[str]:
    df = net.layers
    consumed = {i for ins in df["inputs"] for i in ins}
    return [n for n in df["name"] if n not in consumed]


def test_yolov4_counts_match_darknet() -> None:
    net = from_darknet(cfg("yolov4"))  # [net] width = height = 608
    # darknet numbers layers 0 … 161 for yolov4.cfg (its printout ends "161 yolo").
    assert len(parse_cfg(cfg("yolov4"))) - 1 == 162
    # 64,363,101 parameters is the figure commonly reported for YOLOv4 (e.g. the AlexeyAB
    # darknet model zoo / paper comparisons): conv weights + biases (β) + BN scales (γ); the
    # weights file also stores the rolling mean and variance, our non-trainable state.
    assert net.trainable_params == 64_363_101
    df = net.layers
    bn = df.loc[df["kind"] == "batchnorm", "output_shape"].map(lambda s: s[-1]).sum()
    assert net.params == 64_363_101 + 2 * bn == 64_429_405
    # AlexeyAB's darknet prints "Total BFLOPS 128.459" for yolov4.cfg at 608×608. It sums
    # 2·MACs per convolution, 1 per shortcut output element and size² per maxpool output
    # element (its per-layer lines: "0 conv 32 3 x 3/ 1 608 x 608 x 3 -> ... 0.639 BF").
    assert conv_flops(net) == 128_389_482_496  # conv only: 0.054 % below
    assert df.loc[df["name"] == "conv_0", "fwd_flops"].item() == 638_779_392
    shortcut = int(df.loc[df["kind"] == "add", "output_shape"].map(np.prod).sum())
    maxpool = int(df.loc[df["kind"] == "maxpool", "fwd_flops"].sum())
    assert round((conv_flops(net) + shortcut + maxpool) / 1e9, 3) == 128.459
    assert abs(conv_flops(net) / 128.459e9 - 1) < 0.01
    # Three YOLO heads: the convolutions feeding them are the network outputs (one loss each).
    assert outputs(net) == ["conv_138", "conv_149", "conv_160"]
    assert df.loc[df["name"] == "conv_160", "output_shape"].item() == (19, 19, 255)
    # The cfg's 110 [convolutional] sections, 72 with activation=mish and 35 with leaky.
    assert (df["kind"] == "conv2d").sum() == 110
    assert (df["kind"] == "mish").sum() == 72 and (df["kind"] == "leaky_relu").sum() == 35


@pytest.mark.parametrize("size, bflops", [(416, 65.86), (608, 140.69)])
def test_yolov3_counts_match_darknet(size: int, bflops: float) -> None:
    net = from_darknet(cfg("yolov3"), input_shape=(size, size, 3))
    assert len(parse_cfg(cfg("yolov3"))) - 1 == 107  # darknet: layers 0 … 106
    # 61,949,149: the parameter count commonly reported for YOLOv3 (independent of input size).
    assert net.trainable_params == 61_949_149
    # pjreddie.com/darknet/yolo/ table: YOLOv3-416 65.86 Bn, YOLOv3-608 140.69 Bn (conv 2·MACs).
    assert round(conv_flops(net) / 1e9, 2) == bflops
    assert outputs(net) == ["conv_81", "conv_93", "conv_105"]
    s = size // 32
    assert net.layers.set_index("name").loc["conv_81", "output_shape"] == (s, s, 255)


def test_resnet50_darknet_has_no_projection_shortcuts() -> None:
    net = from_darknet(cfg("resnet50"))  # [net] 256×256
    df = net.layers
    # pjreddie.com/darknet/imagenet/: ResNet-50, 9.74 Bn ops at 256×256, weights file 87 MB.
    assert round(conv_flops(net) / 1e9, 2) == 9.74
    # darknet's resnet50.cfg adds the block input directly (no 1×1 projection convolutions:
    # darknet's shortcut adds the first min(C) channels, sampling every s-th pixel), so it has
    # 50 convolutions (stem, 16 blocks × 3, the 1×1 classifier) where Keras has 53 (with the 4
    # projections) and a dense layer, and fewer parameters than the 25.6 M of the Caffe/Keras
    # ResNet-50: conv weights + 4 per BN filter + the classifier's bias.
    assert (df["kind"] == "conv2d").sum() == 50
    assert net.params == 22_825_896
    assert 87 * 2**20 - 2**20 < net.params * 4 < 87 * 2**20 + 2**20  # the 87 MB weights file
    resample = df[df["kind"] == "opaque"]
    assert list(resample["name"]) == [
        "shortcut_5_resample",
        "shortcut_17_resample",
        "shortcut_33_resample",
        "shortcut_57_resample",
    ]
    assert resample["fwd_flops"].sum() == 0
    # The final [softmax] is the loss step's (SPEC §2): the 1×1 classifier conv is the output.
    assert outputs(net) == ["conv_67"]
    assert df.set_index("name").loc["conv_67", "output_shape"] == (1, 1, 1000)


def write(tmp_path: Path, text: str, name: str = "net.cfg") -> str:
    p = tmp_path / name
    p.write_text(text)
    return os.fspath(p)


NET = "[net]\nheight=8\nwidth=8\nchannels=3\n"


def test_conv_padding_groups_and_maxpool_semantics(tmp_path: Path) -> None:
    doc_net = from_darknet(
        write(
            tmp_path,
            NET
            + """
[convolutional]
batch_normalize=1
filters=8
size=3
stride=2
pad=1
activation=leaky
[convolutional]
filters=8
groups=4
size=3
stride=1
pad=0
activation=swish
[maxpool]
size=2
stride=2
[maxpool]
size=3
stride=1
""",
        ),
        batch=2,
    )
    df = doc_net.layers.set_index("name")
    # pad=1: size//2 = 1 on each side: (8 + 2 - 3) // 2 + 1 = 4.
    assert df.loc["conv_0", "output_shape"] == (4, 4, 8)
    assert df.loc["conv_0", "params"] == 3 * 3 * 3 * 8  # no bias: the BN has β
    assert df.loc["conv_0_bn", "params"] == 4 * 8  # γ, β + rolling mean, variance
    assert df.loc["conv_0_leaky", "kind"] == "leaky_relu"
    # pad=0, groups 4: 4 - 3 + 1 = 2; weights 3·3·(8/4)·8 + 8 biases.
    assert df.loc["conv_1", "output_shape"] == (2, 2, 8)
    assert df.loc["conv_1", "params"] == 3 * 3 * 2 * 8 + 8
    assert df.loc["conv_1_swish", "kind"] == "swish"
    # darknet maxpool pads size-1 in total: (2 + 1 - 2) // 2 + 1 = 1; (1 + 2 - 3) + 1 = 1.
    assert df.loc["maxpool_2", "output_shape"] == (1, 1, 8)
    assert df.loc["maxpool_3", "output_shape"] == (1, 1, 8)
    assert doc_net.batch == 2


def test_route_shortcut_upsample_and_group_slice(tmp_path: Path) -> None:
    doc = from_darknet(
        write(
            tmp_path,
            NET
            + """
[convolutional]
filters=4
size=1
activation=mish
[convolutional]
filters=4
size=1
activation=linear
[shortcut]
from=-2
activation=linear
[route]
layers=-1,0
[route]
layers=-1
groups=2
group_id=1
[upsample]
stride=2
[connected]
output=5
activation=logistic
[softmax]
""",
        ),
        document=True,
    )
    by = {l["name"]: l for l in doc["layers"]}
    assert by["shortcut_2"]["kind"] == "add"
    assert by["shortcut_2"]["inputs"] == ["conv_1", "conv_0_mish"]
    assert by["route_3"] == {
        "name": "route_3",
        "kind": "concat",
        "inputs": ["shortcut_2", "conv_0_mish"],
        "meta": {"darknet_index": 3},
    }
    assert by["route_4_group1"]["kind"] == "opaque" and by["route_4_group1"]["shape"] == [8, 8, 4]
    assert by["upsample_5"]["size"] == 2
    assert by["connected_6"]["units"] == 5
    net = dnnmem.load_network(doc)
    df = net.layers.set_index("name")
    assert df.loc["upsample_5", "output_shape"] == (16, 16, 4)
    assert df.loc["connected_6", "params"] == 16 * 16 * 4 * 5 + 5
    assert df.loc["connected_6_logistic", "kind"] == "sigmoid"
    assert "softmax_7" not in df.index  # last: applied by the loss step


def test_se_attention_reorg_and_local_avgpool(tmp_path: Path) -> None:
    net = from_darknet(
        write(
            tmp_path,
            NET
            + """
[convolutional]
filters=4
size=1
activation=relu
[avgpool]
[convolutional]
filters=4
size=1
activation=logistic
[scale_channels]
from=-3
[sam]
from=-4
[reorg]
stride=2
[local_avgpool]
size=3
stride=1
""",
        )
    )
    df = net.layers.set_index("name")
    assert df.loc["scale_channels_3", "kind"] == "multiply"
    assert df.loc["scale_channels_3", "inputs"] == ("conv_0_relu", "conv_2_logistic")
    assert df.loc["scale_channels_3", "output_shape"] == (8, 8, 4)
    assert df.loc["sam_4", "inputs"] == ("conv_0_relu", "scale_channels_3")
    assert df.loc["reorg_5", "output_shape"] == (4, 4, 16) and df.loc["reorg_5", "folded"]
    assert df.loc["avgpool_6", "kind"] == "avgpool"
    assert df.loc["avgpool_6", "output_shape"] == (4, 4, 16)


def test_unsupported_sections_strict_and_not(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        NET
        + """
[convolutional]
filters=4
size=1
activation=selu
[crnn]
output=4
[local]
filters=2
[crnn]
output=4
""",
    )
    with pytest.raises(UnsupportedOperatorError) as e:
        from_darknet(path)
    msg = str(e.value)
    assert "activation=selu (nodes: conv_0_selu)" in msg
    assert "[crnn] (nodes: crnn_1, crnn_3)" in msg and "[local] (nodes: local_2)" in msg
    assert isinstance(e.value, dnnmem.NetworkError) and isinstance(e.value, ValueError)
    assert e.value.ops == {
        "activation=selu": ["conv_0_selu"],
        "[crnn]": ["crnn_1", "crnn_3"],
        "[local]": ["local_2"],
    }
    with pytest.warns(dnnmem.importers.ImporterWarning, match=r"\[crnn\] \(nodes: crnn_1"):
        net = from_darknet(path, strict=False)
    df = net.layers.set_index("name")
    assert (df.loc[["conv_0_selu", "crnn_1", "local_2", "crnn_3"], "kind"] == "opaque").all()
    assert df.loc["crnn_3", "fwd_flops"] == 0


@pytest.mark.parametrize(
    "text, needle",
    [
        ("[convolutional]\nfilters=2\n", "starts with a [net]"),
        (NET + "filters=3\n[convolutional]\nfilters=x\n", "'filters': must be an integer, got 'x'"),
        (  # was "layer -3 (absolute -3) is not before layer 0"
            NET + "[route]\nlayers=-3\n",
            "'layers': -3 counts 3 layers back from layer 0, past the first (darknet numbers "
            "the layers after [net] from 0); the first layer has none to use",
        ),
        (  # was "layer -5 (absolute -4) is not before layer 1"
            NET + "[convolutional]\nfilters=2\n[route]\nlayers=-5\n",
            "'layers': -5 counts 5 layers back from layer 1, past the first (darknet numbers "
            "the layers after [net] from 0); it can only use layer 0 (-1 counted back)",
        ),
        (
            NET + "[convolutional]\nfilters=2\n[maxpool]\n[route]\nlayers=2\n",
            "'layers': layer 2 is not before this one, layer 2 (darknet numbers the layers "
            "after [net] from 0); it can use layers 0 to 1 (-1 to -2 counted back)",
        ),
        ("size=3\n[net]\n", "comes before the first [section]"),
    ],
)
def test_malformed_cfgs_name_file_line_and_key(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as e:
        from_darknet(path)
    assert needle in str(e.value) and path in str(e.value)


def test_import_model_dispatches_on_extension(tmp_path: Path) -> None:
    path = write(
        tmp_path, NET + "[convolutional]\nfilters=2\nsize=1\nactivation=relu\n", "tiny.CFG"
    )
    net = import_model(path, batch=4)
    assert net.name == "tiny" and net.params == 3 * 2 + 2
    with pytest.raises(ValueError, match=r"no importer for this file extension \(known: .cfg"):
        import_model(write(tmp_path, "", "x.txt"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert import_model(path, document=True)["layers"][1]["kind"] == "conv2d"

"""The keras.applications CNNs of the zoo (docs/networks.md, "CNNs (keras.applications)").

(a) Parameter counts equal Keras' own, hard-coded so that they are checked without Keras.
    Source of every count: ``keras.applications.<Model>(weights=None).count_params()``
    (trainable: the sizes of ``model.trainable_weights``) with Keras 3.15.1,
    ``KERAS_BACKEND=torch``, ``include_top=True``, default input size.
(b) Forward multiply-accumulates within 2% of a published figure. Our forward FLOPs count a
    MAC as 2 FLOPs (``ops_per_mac``) plus the point-wise work of the other kinds, so the
    comparison is made on MACs (``Network.layers["fwd_macs"]``, batch 1), which come only from
    convolutions, depthwise convolutions and dense layers. Papers that write "FLOPs" for
    these CNNs (He et al., Tan & Le) count multiply-adds, as torchvision's "GFLOPS" column
    does; each figure's source is written next to it.
(c) With Keras importable: the layer list equals Keras' model.layers layer for layer — names,
    kinds, per-sample output shapes, inputs, parameters per layer, and creation order (the
    file order) — after the documented differences of ``_expected_layers``.
"""

from __future__ import annotations

import math
import os

import pytest

import dnnmem

NETWORKS = [
    "mobilenet_v1",
    "mobilenet_v2",
    "efficientnet_b0",
    "densenet121",
    "inception_v3",
    "resnet50",
    "resnet101",
    "vgg16",
]

# (all parameters, trainable parameters): Keras 3.15.1, weights=None, count_params() and
# model.trainable_weights (command in the module docstring).
KERAS_PARAMS = {
    "mobilenet_v1": (4_253_864, 4_231_976),  # keras.applications.MobileNet()
    "mobilenet_v2": (3_538_984, 3_504_872),  # keras.applications.MobileNetV2()
    "efficientnet_b0": (5_330_571, 5_288_548),  # keras.applications.EfficientNetB0()
    "densenet121": (8_062_504, 7_978_856),  # keras.applications.DenseNet121()
    "inception_v3": (23_851_784, 23_817_352),  # keras.applications.InceptionV3()
    "resnet50": (25_636_712, 25_583_592),  # keras.applications.ResNet50()
    "resnet101": (44_707_176, 44_601_832),  # keras.applications.ResNet101()
    "vgg16": (138_357_544, 138_357_544),  # keras.applications.VGG16()
}

# Published forward multiply-accumulates per image (one MAC = one multiply-add), and source.
PUBLISHED_MACS = {
    # Howard et al. 2017, "MobileNets", Table 8: 1.0 MobileNet-224, 569 million mult-adds.
    "mobilenet_v1": 569e6,
    # Sandler et al. 2018, "MobileNetV2", Table 4: MobileNetV2 (1.0, 224), 300M MAdds.
    "mobilenet_v2": 300e6,
    # Tan & Le 2019, "EfficientNet", Table 2: EfficientNet-B0, 0.39B FLOPS (multiply-adds).
    "efficientnet_b0": 0.39e9,
    # torchvision.models documentation, densenet121: 2.83 GFLOPS (multiply-adds, 224×224).
    "densenet121": 2.83e9,
    # torchvision.models documentation, inception_v3: 5.71 GFLOPS (multiply-adds, 299×299).
    # Szegedy et al. 2016 give only "5 billion multiply-adds" (abstract), a rounded figure
    # 12.5% below the network they describe; it is not used here (docs/networks.md).
    "inception_v3": 5.71e9,
    # He et al. 2016, "Deep Residual Learning", Table 1: 3.8×10^9 FLOPs (multiply-adds).
    "resnet50": 3.8e9,
    # He et al. 2016, Table 1: ResNet-101, 7.6×10^9 FLOPs (multiply-adds).
    "resnet101": 7.6e9,
    # torchvision.models documentation, vgg16: 15.47 GFLOPS (multiply-adds, 224×224); the
    # VGG paper gives no operation count.
    "vgg16": 15.47e9,
}

# Our exact forward MACs per image (pinned so that a change to a builder or to the MAC rules
# shows up), each within 2% of PUBLISHED_MACS.
OUR_MACS = {
    "mobilenet_v1": 568_740_352,
    "mobilenet_v2": 300_774_272,
    "efficientnet_b0": 385_814_752,
    "densenet121": 2_834_161_664,
    "inception_v3": 5_713_216_096,
    "resnet50": 3_857_973_248,
    "resnet101": 7_570_194_432,
    "vgg16": 15_470_264_320,
}

# Layers in the file (Keras' model.layers count in the comment).
OUR_LAYERS = {
    "mobilenet_v1": 90,  # Keras 91: the softmax Activation `predictions` is omitted
    "mobilenet_v2": 156,  # Keras 156
    "efficientnet_b0": 272,  # Keras 240 + 32 split SE activations
    "densenet121": 429,  # Keras 429
    "inception_v3": 313,  # Keras 313
    "resnet50": 177,  # Keras 177
    "resnet101": 347,  # Keras 347
    "vgg16": 38,  # Keras 23 + 15 split ReLUs
}


@pytest.fixture(scope="module")
def nets():
    return {name: dnnmem.network(name) for name in NETWORKS}


def test_every_network_is_built_in():
    assert set(NETWORKS) <= set(dnnmem.zoo.networks())


@pytest.mark.parametrize("name", NETWORKS)
def test_parameters_equal_keras(nets, name):
    net = nets[name]
    assert (net.params, net.trainable_params) == KERAS_PARAMS[name]
    assert len(net.layers) == OUR_LAYERS[name]


@pytest.mark.parametrize("name", NETWORKS)
def test_forward_macs_match_published_figure(nets, name):
    layers = nets[name].layers
    macs = int(layers["fwd_macs"].sum())
    assert macs == OUR_MACS[name]
    assert abs(macs / PUBLISHED_MACS[name] - 1) < 0.02
    # MACs come only from the kinds that multiply by weights.
    with_macs = set(layers.loc[layers["fwd_macs"] > 0, "kind"])
    assert with_macs <= {"conv2d", "depthwise_conv2d", "dense"}
    # Forward FLOPs = 2 per MAC + the point-wise work of the other kinds.
    assert nets[name].flops.forward > 2 * macs


def test_vgg16_macs_by_hand(nets):
    """VGG-16's MACs from its shapes: 3×3 convolutions H·W·9·C_in·C_out, then the FCs."""
    convs = [
        (224, 3, 64),
        (224, 64, 64),
        (112, 64, 128),
        (112, 128, 128),
        (56, 128, 256),
        (56, 256, 256),
        (56, 256, 256),
        (28, 256, 512),
        (28, 512, 512),
        (28, 512, 512),
        (14, 512, 512),
        (14, 512, 512),
        (14, 512, 512),
    ]
    macs = sum(h * h * 9 * c_in * c_out for h, c_in, c_out in convs)
    macs += 7 * 7 * 512 * 4096 + 4096 * 4096 + 4096 * 1000
    assert macs == OUR_MACS["vgg16"] == int(nets["vgg16"].layers["fwd_macs"].sum())


def test_mobilenet_v1_output_is_the_folded_reshape(nets):
    """Keras' softmax `predictions` is omitted: the network output is reshape_2, folded, so
    the loss step reads the logits tensor of conv_preds."""
    layers = nets["mobilenet_v1"].layers.set_index("name")
    assert "predictions" not in layers.index
    assert layers.loc["reshape_2", "folded"]
    assert layers.loc["reshape_2", "output_shape"] == (1000,)
    steps = nets["mobilenet_v1"].steps
    assert list(steps.loc[steps["phase"] == "loss", "layer"]) == ["conv_preds"]


def test_resnet50_is_resnet_of_depth_50():
    """ResNet-101 differs from ResNet-50 only in conv4's 23 blocks (6 in ResNet-50)."""
    r50 = dnnmem.zoo.network_document("resnet50")["layers"]
    r101 = dnnmem.zoo.network_document("resnet101")["layers"]
    assert len(r101) - len(r50) == 17 * 10  # 17 more blocks of 10 layers
    names50 = [layer["name"] for layer in r50]
    names101 = [layer["name"] for layer in r101]
    assert [n for n in names101 if not n.startswith("conv4_block")] == [
        n for n in names50 if not n.startswith("conv4_block")
    ]


@pytest.mark.parametrize("name", NETWORKS)
def test_options_change_classes_and_input(name):
    doc = dnnmem.zoo.network_document(name, num_classes=10, input_shape=(256, 256, 3))
    net = dnnmem.load_network(doc)
    assert net.layers["output_shape"].iloc[-1] == (10,)
    assert net.layers["output_shape"].iloc[0] == (256, 256, 3)


# --- (c) layer for layer against Keras --------------------------------------------------------

_KERAS_MODELS = {
    "mobilenet_v1": "MobileNet",
    "mobilenet_v2": "MobileNetV2",
    "efficientnet_b0": "EfficientNetB0",
    "densenet121": "DenseNet121",
    "inception_v3": "InceptionV3",
    "resnet50": "ResNet50",
    "resnet101": "ResNet101",
    "vgg16": "VGG16",
}

# Keras class name -> our kind (ReLU and Activation are resolved in _kind).
_KINDS = {
    "InputLayer": "input",
    "Conv2D": "conv2d",
    "DepthwiseConv2D": "depthwise_conv2d",
    "Dense": "dense",
    "BatchNormalization": "batchnorm",
    "Add": "add",
    "Multiply": "multiply",
    "Concatenate": "concat",
    "MaxPooling2D": "maxpool",
    "AveragePooling2D": "avgpool",
    "GlobalAveragePooling2D": "global_avgpool",
    "ZeroPadding2D": "zero_padding",
    "Reshape": "reshape",
    "Flatten": "flatten",
    "Dropout": "dropout",
    "Rescaling": "rescaling",
    "Normalization": "normalization",
}
_ACTIVATIONS = {
    "relu": "relu",
    "silu": "swish",
    "swish": "swish",
    "sigmoid": "sigmoid",
    "softmax": None,
}  # softmax: dropped, the loss step applies it

# Documented renames (ours -> Keras 3): ResNet keeps Keras 2's input name, which
# the reference values (test_reference_schedule.py) pin for ResNet-50.
_RENAMED = {"resnet50": {"input_1": "input_layer"}, "resnet101": {"input_1": "input_layer"}}


def _kind(layer) -> str | None:
    cls = type(layer).__name__
    if cls == "ReLU":
        return "relu6" if layer.max_value == 6 else "relu"
    if cls == "Activation":
        return _ACTIVATIONS[layer.get_config()["activation"]]
    return _KINDS[cls]


def _fused_activation(layer) -> str | None:
    """The kind of an activation Keras fuses into a Conv2D / Dense, if any (not softmax)."""
    act = (
        layer.get_config().get("activation")
        if type(layer).__name__ in ("Conv2D", "Dense")
        else None
    )
    return None if act in (None, "linear") else _ACTIVATIONS[act]


@pytest.fixture(scope="module")
def keras_models():
    """Each Keras model once, in a fresh session (automatic names as in our files), with the
    order in which its layers were called: Keras' creation order, which model.layers (sorted
    by depth) does not keep."""
    os.environ.setdefault("KERAS_BACKEND", "torch")
    keras = pytest.importorskip("keras")
    if keras.backend.backend() != "torch":
        pytest.skip("the Keras comparison runs with KERAS_BACKEND=torch")
    from keras.src.layers.layer import Layer

    original = Layer.__call__
    called: list = []

    def recording_call(self, *args, **kwargs):
        called.append(self)
        return original(self, *args, **kwargs)

    models = {}
    Layer.__call__ = recording_call
    try:
        for name, cls in _KERAS_MODELS.items():
            keras.backend.clear_session()
            called.clear()
            model = getattr(keras.applications, cls)(weights=None)
            members = {id(layer) for layer in model.layers}
            order, seen = [], set()
            for layer in called:
                if id(layer) in members and id(layer) not in seen:
                    seen.add(id(layer))
                    order.append(layer)
            inputs = [layer for layer in model.layers if type(layer).__name__ == "InputLayer"]
            models[name] = (model, inputs + order)
    finally:
        Layer.__call__ = original
        keras.backend.clear_session()
    return models


def _expected_layers(layers_in_creation_order) -> list[tuple]:
    """(name, kind, per-sample shape, inputs, parameters) of our file, from Keras' layers.

    Documented differences: (1) an activation Keras fuses into a Conv2D / Dense (VGG16's
    ReLUs, EfficientNet's SE swish and sigmoid) is a layer of its own, ``<layer>_<kind>``, right
    after it, and its consumers read it; (2) a softmax (``Activation`` layer or a Dense's
    activation) is dropped: the loss step applies it.
    """
    rows, renamed = [], {}
    for layer in layers_in_creation_order:
        kind = _kind(layer)
        if kind is None:
            continue
        name = layer.name
        if layer._inbound_nodes and layer._inbound_nodes[0].parent_nodes:
            inputs = tuple(
                renamed.get(n.operation.name, n.operation.name)
                for n in layer._inbound_nodes[0].parent_nodes
            )
        else:
            inputs = ()
        shape = tuple(layer.output.shape[1:])
        rows.append((name, kind, shape, inputs, layer.count_params()))
        act = _fused_activation(layer)
        if act is not None:
            renamed[name] = f"{name}_{act}"
            rows.append((f"{name}_{act}", act, shape, (name,), 0))
    return rows


@pytest.mark.parametrize("name", NETWORKS)
def test_layers_match_keras(nets, keras_models, name):
    model, in_creation_order = keras_models[name]
    assert model.count_params() == KERAS_PARAMS[name][0]
    assert sum(math.prod(w.shape) for w in model.trainable_weights) == KERAS_PARAMS[name][1]

    expected = _expected_layers(in_creation_order)
    rename = _RENAMED.get(name, {})
    ours = [
        (
            rename.get(r.name, r.name),
            r.kind,
            tuple(r.output_shape),
            tuple(rename.get(i, i) for i in r.inputs),
            int(r.params),
        )
        for r in nets[name].layers.itertuples()
    ]
    assert len(ours) == len(expected)
    for got, want in zip(ours, expected):
        assert got == want

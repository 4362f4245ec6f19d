"""dnnmem.importers.keras.from_keras on keras.applications and small hand-written models."""

from __future__ import annotations

import math
import os

import pytest

os.environ.setdefault("KERAS_BACKEND", "torch")  # the only backend installed here
keras = pytest.importorskip("keras")

import dnnmem  # noqa: E402
from dnnmem.importers._common import ImporterWarning, UnsupportedOperatorError  # noqa: E402
from dnnmem.importers.keras import from_keras  # noqa: E402

# Everything one layer table shows of a network (the step columns fix the schedule order too).
COLUMNS = [
    "name",
    "kind",
    "class",
    "inputs",
    "output_shape",
    "output_bytes",
    "weight_bytes",
    "state_bytes",
    "params",
    "fwd_flops",
    "bwd_dx_flops",
    "bwd_dw_flops",
    "fwd_step",
    "bwd_step",
]


def check_weight_split(net: dnnmem.Network, model) -> None:
    """Per Keras layer: our W is its trainable weights, our S its non-trainable ones."""
    layers = net.layers.set_index("name")
    for layer in model.layers:
        if not layer.weights:
            continue
        trainable = sum(math.prod(w.shape) for w in layer.trainable_weights)
        frozen = sum(math.prod(w.shape) for w in layer.non_trainable_weights)
        row = layers.loc[layer.name]
        assert row["params"] == layer.count_params() == trainable + frozen, layer.name
        assert row["weight_bytes"] == 4 * trainable, layer.name
        assert row["state_bytes"] == 4 * frozen, layer.name


def rename_input(df, old: str, new: str):
    df = df.copy()
    df["name"] = df["name"].replace({old: new})
    df["inputs"] = df["inputs"].map(lambda t: tuple(new if x == old else x for x in t))
    return df


def test_resnet50_equals_the_zoo():
    model = build("ResNet50")
    net = from_keras(model, batch=2)
    assert net.params == model.count_params() == 25_636_712  # Keras' published count
    assert net.trainable_params == 25_583_592
    check_weight_split(net, model)
    zoo = dnnmem.network("resnet50", batch=2)
    # Keras 3 names the input "input_layer" (Keras 2, which the zoo follows: "input_1").
    ours = rename_input(net.layers[COLUMNS], model.layers[0].name, "input_1")
    assert ours.equals(zoo.layers[COLUMNS])
    assert net.flops == zoo.flops


def _compare_with_zoo(net: dnnmem.Network, model, name: str) -> None:
    """The imported network is the zoo's builder, layer for layer (names, order, shapes,
    counts, schedule), up to the input's name and the names of fused activations."""
    if name not in dnnmem.networks():
        pytest.skip(f"{name!r} is not in the zoo yet (dnnmem.networks())")
    zoo = dnnmem.network(name)
    ours = rename_input(net.layers[COLUMNS], model.layers[0].name, zoo.layers["name"][0])
    # Fused activations are `<layer>_<kind>` in both.
    assert ours.equals(zoo.layers[COLUMNS])
    assert (net.params, net.trainable_params, net.flops) == (
        zoo.params,
        zoo.trainable_params,
        zoo.flops,
    )


def build(app: str):
    """A keras.applications model, with fresh automatic names (``global_average_pooling2d``,
    not ``_1`` after another test built one)."""
    keras.backend.clear_session()
    return getattr(keras.applications, app)(weights=None)


def test_mobilenet_v2_counts_and_zoo():
    model = build("MobileNetV2")
    net = from_keras(model)
    assert net.params == model.count_params() == 3_538_984  # keras.io/api/applications table
    check_weight_split(net, model)
    kinds = net.layers["kind"].value_counts()
    assert kinds["relu6"] == 35 and kinds["depthwise_conv2d"] == 17 and kinds["add"] == 10
    _compare_with_zoo(net, model, "mobilenet_v2")


def test_vgg16_counts_and_zoo():
    model = build("VGG16")
    net = from_keras(model)
    assert net.params == model.count_params() == 138_357_544  # keras.io/api/applications
    check_weight_split(net, model)
    layers = net.layers.set_index("name")
    # Fused ReLUs become layers of their own; the final fused softmax is the loss step's.
    assert layers.loc["block1_conv1_relu", "kind"] == "relu"
    assert layers.loc["block1_conv1_relu", "inputs"] == ("block1_conv1",)
    assert layers.loc["fc2_relu", "kind"] == "relu"
    assert "predictions_softmax" not in layers.index
    assert list(net.layers["name"])[-1] == "predictions"
    assert (net.layers["kind"] == "relu").sum() == 13 + 2
    _compare_with_zoo(net, model, "vgg16")


@pytest.mark.parametrize(
    "app,zoo_name,params",
    [
        # keras.io/api/applications: EfficientNetB0 5.3M, DenseNet121 8.1M, InceptionV3 23.9M.
        ("EfficientNetB0", "efficientnet_b0", 5_330_571),  # Rescaling, Normalization, SE multiply
        ("DenseNet121", "densenet121", 8_062_504),  # Concatenate(axis=3) → axis 2
        ("InceptionV3", "inception_v3", 23_851_784),  # AveragePooling2D, branches
    ],
)
def test_more_applications(app, zoo_name, params):
    model = build(app)
    net = from_keras(model)
    assert net.params == model.count_params() == params
    check_weight_split(net, model)
    _compare_with_zoo(net, model, zoo_name)


def test_sequential_nested_shared_and_frozen():
    inner = keras.Sequential(
        [keras.Input((8,)), keras.layers.Dense(4, activation="tanh", name="inner_fc")], name="inner"
    )
    shared = keras.layers.Dense(4, use_bias=False, name="shared_fc")
    a = keras.Input((8,), name="a")
    b = keras.Input((4,), name="b")
    x = inner(a)  # nested model: flattened
    y = keras.layers.Add(name="sum")([shared(x), shared(b)])  # one layer called twice
    frozen = keras.layers.Dense(3, name="frozen_fc", trainable=False)
    out = keras.layers.Activation("softmax", name="probs")(frozen(y))
    model = keras.Model([a, b], out, name="toy")
    doc = from_keras(model, document=True)
    layers = {d["name"]: d for d in doc["layers"]}
    assert list(layers) == [
        "a",
        "b",
        "inner_fc",
        "inner_fc_tanh",
        "shared_fc",
        "shared_fc_1",
        "sum",
        "frozen_fc",
    ]  # final softmax dropped
    assert layers["inner_fc"]["inputs"] == ["a"]
    assert layers["inner_fc_tanh"]["kind"] == "tanh"
    assert layers["shared_fc"]["inputs"] == ["inner_fc_tanh"]
    assert layers["shared_fc_1"] == {
        "name": "shared_fc_1",
        "kind": "dense",
        "inputs": ["b"],
        "units": 4,
        "use_bias": False,
        "weights": "shared_fc",
    }
    assert layers["frozen_fc"]["trainable"] is False
    # A nested model's final softmax is a network output too: dropped.
    head = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(2, name="head_fc"),
            keras.layers.Softmax(name="head_sm"),
        ],
        name="head",
    )
    wrapped = keras.Model(b, head(b), name="wrapped")
    assert [d["name"] for d in from_keras(wrapped, document=True)["layers"]] == ["b", "head_fc"]
    net = from_keras(model)
    # 8·4+4 (inner) + 4·4 (shared, once) + 4·3+3 (frozen) = 36 + 16 + 15
    assert net.params == model.count_params() == 67
    assert net.trainable_params == 52
    assert net.layers.set_index("name").loc["frozen_fc", "trainable"] == False  # noqa: E712


def test_layer_mappings():
    x = keras.Input((16, 16, 3), name="img")
    y = keras.layers.SeparableConv2D(8, 3, padding="same", activation="relu", name="sep")(x)
    y = keras.layers.ReLU(max_value=6.0, name="r6")(y)
    y = keras.layers.LeakyReLU(negative_slope=0.2, name="leaky")(y)
    y = keras.layers.Conv2D(8, 3, dilation_rate=2, groups=2, padding="same", name="gconv")(y)
    y = keras.layers.AveragePooling2D(2, name="avg")(y)
    y = keras.layers.UpSampling2D(2, name="up")(y)
    z = keras.layers.Concatenate(name="cat")([y, y])
    z = keras.layers.Flatten(name="flat")(z)
    z = keras.layers.Dropout(0.5, name="drop")(z)
    z = keras.layers.Dense(10, activation="swish", name="fc")(z)
    z = keras.ops.tanh(z)  # a keras.ops function in the graph
    model = keras.Model(x, z)
    doc = from_keras(model, document=True)
    by = {d["name"]: d for d in doc["layers"]}
    assert by["sep_depthwise"]["kind"] == "depthwise_conv2d"
    assert by["sep"] == {
        "name": "sep",
        "kind": "conv2d",
        "inputs": ["sep_depthwise"],
        "filters": 8,
        "kernel_size": 1,
        "use_bias": True,
    }
    assert [by[n]["kind"] for n in ("sep_relu", "r6", "leaky", "fc_swish")] == [
        "relu",
        "relu6",
        "leaky_relu",
        "swish",
    ]
    assert by["leaky"]["alpha"] == pytest.approx(0.2)
    assert (by["gconv"]["groups"], by["gconv"]["dilation"]) == (2, 2)
    assert by["drop"]["rate"] == 0.5 and by["cat"]["axis"] == -1
    assert doc["layers"][-1]["kind"] == "tanh" and doc["layers"][-1]["inputs"] == ["fc_swish"]
    net = from_keras(model)
    layers = net.layers.set_index("name")
    # depthwise 3·3·3 + pointwise 3·8 + 8 = 59 = Keras' count for the one SeparableConv2D
    assert layers.loc["sep_depthwise", "params"] + layers.loc["sep", "params"] == 59
    assert layers.loc["gconv", "params"] == 3 * 3 * 4 * 8 + 8
    assert layers.loc["fc", "output_shape"] == (10,)
    assert net.params == model.count_params()


def test_unsupported_layers_listed_or_placeholders():
    x = keras.Input((8, 8, 4), name="x")
    y = keras.layers.Conv2D(4, 3, padding="same", activation="elu", name="c")(x)
    y = keras.layers.Cropping2D(1, name="crop1")(y)
    y = keras.layers.Cropping2D(1, name="crop2")(y)
    y = keras.layers.GlobalAveragePooling2D(name="gap")(y)
    model = keras.Model(x, y, name="odd")
    with pytest.raises(UnsupportedOperatorError) as e:
        from_keras(model)
    assert e.value.ops == {"activation elu": ["c_elu"], "Cropping2D": ["crop1", "crop2"]}
    assert "Cropping2D (nodes: crop1, crop2)" in str(e.value)
    with pytest.warns(ImporterWarning, match="Cropping2D"):
        net = from_keras(model, strict=False)
    layers = net.layers.set_index("name")
    assert layers.loc["crop1", "kind"] == "opaque"
    assert layers.loc["crop1", "output_shape"] == (6, 6, 4)
    assert layers.loc["crop2", "fwd_flops"] == 0
    assert layers.loc["gap", "output_shape"] == (4,)


def test_unbuilt_and_unknown_shapes_are_refused():
    with pytest.raises(ValueError, match="not built"):
        from_keras(keras.Sequential([keras.layers.Dense(3)], name="lazy"))
    x = keras.Input((None, 3), name="seq")
    model = keras.Model(x, keras.layers.Dense(2)(x))
    with pytest.raises(ValueError, match="input 'seq'.*unknown"):
        from_keras(model)

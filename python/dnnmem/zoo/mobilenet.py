"""MobileNet v1 and v2 as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._keras import same_output, stride2_padding

__all__ = ["mobilenet_v1", "mobilenet_v2"]

# (pointwise filters, stride) of depthwise-separable blocks 1 ... 13 (Howard et al. 2017,
# Table 1; Keras' mobilenet.py).
_V1_BLOCKS = [
    (64, 1),
    (128, 2),
    (128, 1),
    (256, 2),
    (256, 1),
    (512, 2),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (512, 1),
    (1024, 2),
    (1024, 1),
]

# (output filters, stride, expansion) of inverted residual blocks 0 ... 16 (Sandler et al.
# 2018, Table 2; Keras' mobilenet_v2.py calls _inverted_res_block with these).
_V2_BLOCKS = (
    [(16, 1, 1)]
    + [(24, 2, 6), (24, 1, 6)]
    + [(32, 2, 6)]
    + [(32, 1, 6)] * 2
    + [(64, 2, 6)]
    + [(64, 1, 6)] * 3
    + [(96, 1, 6)] * 3
    + [(160, 2, 6)]
    + [(160, 1, 6)] * 2
    + [(320, 1, 6)]
)

MOBILENET_V1_DROPOUT = 1e-3  # keras.applications.MobileNet's default `dropout`


def mobilenet_v1(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """MobileNet v1 (alpha 1.0, depth multiplier 1) exactly as ``keras.applications.MobileNet``
    builds it.

    Follows Keras' ``keras/applications/mobilenet.py`` layer by layer, with Keras' layer
    names and creation order (the file order breaks ties in the schedule, SPEC §3):

    - ``input_layer``; ``conv1`` (3×3, 32 filters, stride 2, same, no bias), ``conv1_bn``,
      ``conv1_relu`` (ReLU(max_value=6): ``relu6``);
    - depthwise-separable blocks ``i`` = 1 … 13: for stride 2 ``conv_pad_i`` (zero padding
      ((0, 1), (0, 1)), folded) and a "valid" depthwise convolution, else "same";
      ``conv_dw_i`` (3×3 depthwise, no bias), ``conv_dw_i_bn``, ``conv_dw_i_relu`` (relu6),
      ``conv_pw_i`` (1×1, no bias), ``conv_pw_i_bn``, ``conv_pw_i_relu`` (relu6);
    - ``global_average_pooling2d`` (keepdims: [1, 1, 1024]), ``dropout`` (rate 0.001),
      ``conv_preds`` (1×1 convolution with bias, ``num_classes`` filters), ``reshape_2``
      (to [num_classes], folded).

    Keras' last layer, ``predictions`` (an ``Activation('softmax')`` after ``reshape_2``), is
    omitted: the loss step applies the softmax (SPEC §2), so the network output is the logits
    of ``conv_preds`` seen through the folded ``reshape_2``. With the defaults: 90 layers
    (Keras has 91 with ``predictions``), 4,253,864 parameters of which 4,231,976 trainable.

    Parameters
    ----------
    num_classes : int
        Filters of ``conv_preds``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "mobilenet_v1", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("input_layer", input_shape)
    x = add(
        "conv1", "conv2d", [x], filters=32, kernel_size=3, strides=2, padding="same", use_bias=False
    )
    x = add("conv1_bn", "batchnorm", [x])
    x = add("conv1_relu", "relu6", [x])
    for i, (filters, stride) in enumerate(_V1_BLOCKS, start=1):
        if stride == 2:
            x = add(f"conv_pad_{i}", "zero_padding", [x], padding=[[0, 1], [0, 1]])
        x = add(
            f"conv_dw_{i}",
            "depthwise_conv2d",
            [x],
            kernel_size=3,
            strides=stride,
            padding="same" if stride == 1 else "valid",
            use_bias=False,
        )
        x = add(f"conv_dw_{i}_bn", "batchnorm", [x])
        x = add(f"conv_dw_{i}_relu", "relu6", [x])
        x = add(
            f"conv_pw_{i}",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=1,
            padding="same",
            use_bias=False,
        )
        x = add(f"conv_pw_{i}_bn", "batchnorm", [x])
        x = add(f"conv_pw_{i}_relu", "relu6", [x])
    x = add("global_average_pooling2d", "global_avgpool", [x], keepdims=True)
    x = add("dropout", "dropout", [x], rate=MOBILENET_V1_DROPOUT)
    x = add("conv_preds", "conv2d", [x], filters=num_classes, kernel_size=1, padding="same")
    add("reshape_2", "reshape", [x], target_shape=[num_classes])
    return net.document("mobilenet_v1")


def mobilenet_v2(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """MobileNet v2 (alpha 1.0) exactly as ``keras.applications.MobileNetV2`` builds it.

    Follows Keras' ``keras/applications/mobilenet_v2.py`` layer by layer, with Keras' layer
    names and creation order (the file order breaks ties in the schedule, SPEC §3):

    - ``input_layer``; ``Conv1`` (3×3, 32 filters, stride 2, same, no bias), ``bn_Conv1``,
      ``Conv1_relu`` (ReLU(6.0): ``relu6``);
    - inverted residual blocks 0 … 16 with prefix ``expanded_conv_`` (block 0, which has no
      expansion) or ``block_i_``: ``expand`` (1×1, expansion·C_in filters, no bias),
      ``expand_BN``, ``expand_relu`` (relu6); for stride 2 ``pad`` (Keras' ``correct_pad``:
      ((0, 1), (0, 1)) on even sizes, folded) and a "valid" depthwise, else "same";
      ``depthwise`` (3×3, no bias), ``depthwise_BN``, ``depthwise_relu`` (relu6), ``project``
      (1×1, no bias), ``project_BN``, and ``add`` (block input first) when the block keeps
      its shape;
    - ``Conv_1`` (1×1, 1280 filters, no bias), ``Conv_1_bn``, ``out_relu`` (relu6),
      ``global_average_pooling2d``, ``predictions`` (dense, ``num_classes`` units).

    The softmax of ``predictions`` is not a layer: the loss step applies it (SPEC §2), so the
    network output is the logits. With the defaults: 156 layers (as Keras counts them),
    3,538,984 parameters of which 3,504,872 trainable.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "mobilenet_v2", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("input_layer", input_shape)
    x = add(
        "Conv1", "conv2d", [x], filters=32, kernel_size=3, strides=2, padding="same", use_bias=False
    )
    x = add("bn_Conv1", "batchnorm", [x])
    x = add("Conv1_relu", "relu6", [x])
    size: tuple[int, ...] = (same_output(input_shape[0], 2), same_output(input_shape[1], 2))
    channels = 32
    for block_id, (filters, stride, expansion) in enumerate(_V2_BLOCKS):
        inputs = y = x
        if block_id:
            p = f"block_{block_id}_"
            y = add(
                f"{p}expand",
                "conv2d",
                [y],
                filters=expansion * channels,
                kernel_size=1,
                padding="same",
                use_bias=False,
            )
            y = add(f"{p}expand_BN", "batchnorm", [y])
            y = add(f"{p}expand_relu", "relu6", [y])
        else:
            p = "expanded_conv_"
        if stride == 2:
            y, size = stride2_padding(net, f"{p}pad", y, size, 3)
        y = add(
            f"{p}depthwise",
            "depthwise_conv2d",
            [y],
            kernel_size=3,
            strides=stride,
            padding="same" if stride == 1 else "valid",
            use_bias=False,
        )
        y = add(f"{p}depthwise_BN", "batchnorm", [y])
        y = add(f"{p}depthwise_relu", "relu6", [y])
        y = add(
            f"{p}project",
            "conv2d",
            [y],
            filters=filters,
            kernel_size=1,
            padding="same",
            use_bias=False,
        )
        y = add(f"{p}project_BN", "batchnorm", [y])
        if channels == filters and stride == 1:
            y = add(f"{p}add", "add", [inputs, y])
        x, channels = y, filters
    x = add("Conv_1", "conv2d", [x], filters=1280, kernel_size=1, use_bias=False)
    x = add("Conv_1_bn", "batchnorm", [x])
    x = add("out_relu", "relu6", [x])
    x = add("global_average_pooling2d", "global_avgpool", [x])
    add("predictions", "dense", [x], units=num_classes)
    return net.document("mobilenet_v2")

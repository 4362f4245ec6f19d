"""EfficientNet-B0 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._keras import stride2_padding

__all__ = ["efficientnet_b0"]

# Stages of EfficientNet-B0 (Tan & Le 2019, Table 1; Keras' DEFAULT_BLOCKS_ARGS):
# (kernel size, repeats, filters in, filters out, expand ratio, stride); SE ratio 0.25 and
# identity skip everywhere.
_B0_STAGES = [
    (3, 1, 32, 16, 1, 1),
    (3, 2, 16, 24, 6, 2),
    (5, 2, 24, 40, 6, 2),
    (3, 3, 40, 80, 6, 2),
    (5, 3, 80, 112, 6, 1),
    (5, 4, 112, 192, 6, 2),
    (3, 1, 192, 320, 6, 1),
]
SE_RATIO = 0.25
DROPOUT_RATE = 0.2  # EfficientNetB0's dropout_rate (before predictions)
DROP_CONNECT_RATE = 0.2  # EfficientNet's drop_connect_rate (stochastic depth, per block)


def efficientnet_b0(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """EfficientNet-B0 exactly as ``keras.applications.EfficientNetB0`` builds it.

    Follows Keras' ``keras/applications/efficientnet.py`` (width and depth coefficients 1.0,
    swish activation) layer by layer, with Keras' layer names and creation order (the file
    order breaks ties in the schedule, SPEC §3):

    - ``input_layer``; ``rescaling`` (×1/255), ``normalization`` (per channel: mean,
      variance and count are non-trainable state, 2C + 1 = 7 parameters); ``stem_conv_pad``
      (``correct_pad``, folded), ``stem_conv`` (3×3, 32 filters, stride 2, valid, no bias),
      ``stem_bn``, ``stem_activation`` (``swish``: Keras' swish / silu);
    - MBConv blocks ``block{stage}{letter}_`` (``block1a_`` … ``block7a_``, 16 in all):
      ``expand_conv`` (1×1, no bias), ``expand_bn``, ``expand_activation`` (unless the
      expand ratio is 1); for stride 2 ``dwconv_pad`` (``correct_pad``, folded) and a "valid"
      depthwise, else "same"; ``dwconv`` (no bias), ``bn``, ``activation``; squeeze-excite
      ``se_squeeze`` (global average), ``se_reshape`` (to [1, 1, C], folded), ``se_reduce``
      (1×1 with bias, max(1, C_in/4) filters) and ``se_reduce_swish``, ``se_expand`` (1×1 with
      bias, C filters) and ``se_expand_sigmoid``, ``se_excite`` (multiply, broadcasting the
      [1, 1, C] gate); ``project_conv`` (1×1, no bias), ``project_bn``; when the block keeps its
      shape, ``drop`` (dropout, rate 0.2·b/16 for the b-th block counted from 0) and ``add``
      (block output first);
    - ``top_conv`` (1×1, 1280 filters, no bias), ``top_bn``, ``top_activation``, ``avg_pool``,
      ``top_dropout`` (rate 0.2), ``predictions`` (dense, ``num_classes`` units).

    Differences from Keras, all by design: Keras fuses the activations of ``se_reduce``
    (swish) and ``se_expand`` (sigmoid) into those Conv2D layers; here each is a layer of its
    own (an activation is a step with its own traffic, ``docs/network-format.md``), named
    ``<conv>_swish`` / ``<conv>_sigmoid`` and created right after its convolution. Keras'
    per-block dropout drops whole samples (noise_shape (N, 1, 1, 1)); the ``dropout`` kind's
    counts do not depend on the mask's shape. The softmax of ``predictions`` is not a layer
    (the loss step applies it, SPEC §2). With the defaults: 272 layers (Keras' 240 plus 32
    split activations), 5,330,571 parameters of which 5,288,548 trainable.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "efficientnet_b0", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("input_layer", input_shape)
    x = add("rescaling", "rescaling", [x], scale=1.0 / 255.0, offset=0.0)
    x = add("normalization", "normalization", [x])
    x, size = stride2_padding(net, "stem_conv_pad", x, tuple(input_shape[:2]), 3)
    x = add(
        "stem_conv",
        "conv2d",
        [x],
        filters=32,
        kernel_size=3,
        strides=2,
        padding="valid",
        use_bias=False,
    )
    x = add("stem_bn", "batchnorm", [x])
    x = add("stem_activation", "swish", [x])

    blocks = sum(stage[1] for stage in _B0_STAGES)
    b = 0
    for i, (kernel, repeats, f_in, f_out, expand, stride) in enumerate(_B0_STAGES):
        for j in range(repeats):
            if j > 0:
                stride, f_in = 1, f_out
            p = f"block{i + 1}{chr(j + 97)}_"
            inputs = x
            filters = f_in * expand
            if expand != 1:
                x = add(
                    f"{p}expand_conv",
                    "conv2d",
                    [x],
                    filters=filters,
                    kernel_size=1,
                    padding="same",
                    use_bias=False,
                )
                x = add(f"{p}expand_bn", "batchnorm", [x])
                x = add(f"{p}expand_activation", "swish", [x])
            if stride == 2:
                x, size = stride2_padding(net, f"{p}dwconv_pad", x, size, kernel)
            x = add(
                f"{p}dwconv",
                "depthwise_conv2d",
                [x],
                kernel_size=kernel,
                strides=stride,
                padding="same" if stride == 1 else "valid",
                use_bias=False,
            )
            x = add(f"{p}bn", "batchnorm", [x])
            x = add(f"{p}activation", "swish", [x])

            se = add(f"{p}se_squeeze", "global_avgpool", [x])
            se = add(f"{p}se_reshape", "reshape", [se], target_shape=[1, 1, filters])
            se = add(
                f"{p}se_reduce",
                "conv2d",
                [se],
                filters=max(1, int(f_in * SE_RATIO)),
                kernel_size=1,
                padding="same",
            )
            se = add(f"{p}se_reduce_swish", "swish", [se])
            se = add(
                f"{p}se_expand", "conv2d", [se], filters=filters, kernel_size=1, padding="same"
            )
            se = add(f"{p}se_expand_sigmoid", "sigmoid", [se])
            x = add(f"{p}se_excite", "multiply", [x, se])

            x = add(
                f"{p}project_conv",
                "conv2d",
                [x],
                filters=f_out,
                kernel_size=1,
                padding="same",
                use_bias=False,
            )
            x = add(f"{p}project_bn", "batchnorm", [x])
            if stride == 1 and f_in == f_out:
                drop_rate = DROP_CONNECT_RATE * b / blocks
                if drop_rate > 0:
                    x = add(f"{p}drop", "dropout", [x], rate=drop_rate)
                x = add(f"{p}add", "add", [x, inputs])
            b += 1

    x = add("top_conv", "conv2d", [x], filters=1280, kernel_size=1, padding="same", use_bias=False)
    x = add("top_bn", "batchnorm", [x])
    x = add("top_activation", "swish", [x])
    x = add("avg_pool", "global_avgpool", [x])
    x = add("top_dropout", "dropout", [x], rate=DROPOUT_RATE)
    add("predictions", "dense", [x], units=num_classes)
    return net.document("efficientnet_b0")

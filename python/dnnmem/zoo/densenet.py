"""DenseNet-121 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["densenet121"]

_BLOCKS = {121: (6, 12, 24, 16)}  # dense layers per dense block (Huang et al. 2017, Table 1)
GROWTH_RATE = 32
REDUCTION = 0.5  # compression of the transition layers


def densenet121(num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)) -> dict:
    """DenseNet-121 exactly as ``keras.applications.DenseNet121`` builds it.

    Follows Keras' ``keras/applications/densenet.py`` layer by layer, with Keras' layer names
    and creation order (the file order breaks ties in the schedule, SPEC §3):

    - ``input_layer``; ``zero_padding2d`` (3 on each side, folded), ``conv1_conv`` (7×7, 64
      filters, stride 2, valid, no bias), ``conv1_bn``, ``conv1_relu``, ``zero_padding2d_1``
      (1 on each side, folded), ``pool1`` (max 3×3, stride 2);
    - dense blocks ``conv2`` … ``conv5`` of 6 / 12 / 24 / 16 conv blocks ``{block}_block{i}_``:
      ``0_bn``, ``0_relu``, ``1_conv`` (1×1, 128 filters, no bias), ``1_bn``, ``1_relu``,
      ``2_conv`` (3×3 same, 32 filters, no bias), ``concat`` (block input first, then the 32
      new channels);
    - transitions ``pool2`` … ``pool4`` after the first three dense blocks: ``_bn``,
      ``_relu``, ``_conv`` (1×1, half the channels, no bias), ``_pool`` (average 2×2, stride 2);
    - ``bn``, ``relu``, ``avg_pool`` (global average), ``predictions`` (dense,
      ``num_classes`` units).

    The two zero paddings keep Keras' automatic names (those of a fresh Keras session). The
    softmax of ``predictions`` is not a layer (the loss step applies it, SPEC §2), so the
    network output is the logits. With the defaults: 429 layers (as Keras counts them),
    8,062,504 parameters of which 7,978,856 trainable.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "densenet121", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("input_layer", input_shape)
    x = add("zero_padding2d", "zero_padding", [x], padding=[[3, 3], [3, 3]])
    x = add(
        "conv1_conv",
        "conv2d",
        [x],
        filters=64,
        kernel_size=7,
        strides=2,
        padding="valid",
        use_bias=False,
    )
    x = add("conv1_bn", "batchnorm", [x])
    x = add("conv1_relu", "relu", [x])
    x = add("zero_padding2d_1", "zero_padding", [x], padding=[[1, 1], [1, 1]])
    x = add("pool1", "maxpool", [x], pool_size=3, strides=2)
    channels = 64
    blocks = _BLOCKS[121]
    for stage, n in enumerate(blocks, start=2):
        for i in range(1, n + 1):
            p = f"conv{stage}_block{i}_"
            y = add(f"{p}0_bn", "batchnorm", [x])
            y = add(f"{p}0_relu", "relu", [y])
            y = add(
                f"{p}1_conv", "conv2d", [y], filters=4 * GROWTH_RATE, kernel_size=1, use_bias=False
            )
            y = add(f"{p}1_bn", "batchnorm", [y])
            y = add(f"{p}1_relu", "relu", [y])
            y = add(
                f"{p}2_conv",
                "conv2d",
                [y],
                filters=GROWTH_RATE,
                kernel_size=3,
                padding="same",
                use_bias=False,
            )
            x = add(f"{p}concat", "concat", [x, y])
            channels += GROWTH_RATE
        if stage < 1 + len(blocks):
            p = f"pool{stage}_"
            x = add(f"{p}bn", "batchnorm", [x])
            x = add(f"{p}relu", "relu", [x])
            channels = int(channels * REDUCTION)
            x = add(f"{p}conv", "conv2d", [x], filters=channels, kernel_size=1, use_bias=False)
            x = add(f"{p}pool", "avgpool", [x], pool_size=2, strides=2)
    x = add("bn", "batchnorm", [x])
    x = add("relu", "relu", [x])
    x = add("avg_pool", "global_avgpool", [x])
    add("predictions", "dense", [x], units=num_classes)
    return net.document("densenet121")

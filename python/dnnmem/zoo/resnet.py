"""ResNet-50 and ResNet-101 as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["resnet50", "resnet101"]

# Bottleneck blocks per stage conv2 ... conv5 (He et al. 2016, Table 1; Keras' stack_fn).
_BLOCKS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3)}


def resnet50(num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)) -> dict:
    """ResNet-50 v1 exactly as ``keras.applications.ResNet50`` builds it.

    Follows Keras' ``keras/applications/resnet.py`` (``ResNet50(include_top=True)``) layer by
    layer, with Keras' layer names and creation order (the file order breaks ties in the
    schedule, SPEC §3), as the reference values (``tests/python/test_reference_schedule.py``) pin it:

    - ``input_1``; stem ``conv1_pad`` (zero padding 3, folded), ``conv1_conv`` (7×7, stride 2,
      valid), ``conv1_bn``, ``conv1_relu``, ``pool1_pad`` (zero padding 1, folded),
      ``pool1_pool`` (max 3×3, stride 2, valid).
    - Stages ``conv2`` … ``conv5`` with 64 / 128 / 256 / 512 filters and 3 / 4 / 6 / 3
      bottleneck blocks; the first block of a stage strides by 2 (conv2: 1), on its 1×1
      convolutions (``_0_conv`` and ``_1_conv``, the v1 / Caffe placement), and has a projection
      shortcut ``_0_conv`` / ``_0_bn`` created before the main branch. A block is
      ``_1_conv`` (1×1) ``_1_bn`` ``_1_relu`` ``_2_conv`` (3×3 same) ``_2_bn`` ``_2_relu``
      ``_3_conv`` (1×1, 4·filters) ``_3_bn`` ``_add`` (shortcut first) ``_out`` (relu).
    - ``avg_pool`` (global average) and ``predictions`` (dense, ``num_classes`` units).

    Every convolution and the dense layer has a bias (Keras' default, although a batchnorm
    follows each convolution). Batchnorm has γ, β (trainable) and moving mean and variance
    (non-trainable); its epsilon is not written (it changes no count). The final softmax of
    ``predictions`` is not a layer: the loss step applies it (SPEC §2), so the network output is
    the logits. With the defaults: 177 layers (as Keras counts them), 25,636,712 parameters of
    which 25,583,592 trainable.

    The input is named ``input_1`` (Keras 2's automatic name; Keras 3 names it
    ``input_layer``), as the reference values pin it.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "resnet50", "layers": [...]}``.
    """
    return _resnet(50, num_classes, input_shape)


def resnet101(num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)) -> dict:
    """ResNet-101 v1 exactly as ``keras.applications.ResNet101`` builds it.

    The same network as :func:`resnet50` (same stem, block, names, creation order and head)
    with 3 / 4 / 23 / 3 bottleneck blocks in stages ``conv2`` … ``conv5`` (He et al. 2016,
    Table 1). With the defaults: 347 layers (as Keras counts them), 44,707,176 parameters
    (``keras.applications.ResNet101(weights=None).count_params()``, Keras 3.15) of which
    44,601,832 trainable. The input is named ``input_1`` like ResNet-50's.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "resnet101", "layers": [...]}``.
    """
    return _resnet(101, num_classes, input_shape)


def _resnet(depth: int, num_classes: int, input_shape: tuple[int, int, int]) -> dict:
    """ResNet v1 of ``depth`` (a key of ``_BLOCKS``) as Keras' ``resnet.py`` builds it."""
    net = Layers()
    add = net.add
    net.input("input_1", input_shape)
    x = add("conv1_pad", "zero_padding", ["input_1"], padding=[[3, 3], [3, 3]])
    x = add("conv1_conv", "conv2d", [x], filters=64, kernel_size=7, strides=2, padding="valid")
    x = add("conv1_bn", "batchnorm", [x])
    x = add("conv1_relu", "relu", [x])
    x = add("pool1_pad", "zero_padding", [x], padding=[[1, 1], [1, 1]])
    x = add("pool1_pool", "maxpool", [x], pool_size=3, strides=2, padding="valid")

    stages = zip((2, 3, 4, 5), (64, 128, 256, 512), _BLOCKS[depth], (1, 2, 2, 2))
    for stage, filters, blocks, first_stride in stages:
        for b in range(1, blocks + 1):
            p = f"conv{stage}_block{b}"
            s = first_stride if b == 1 else 1
            if b == 1:
                shortcut = add(
                    f"{p}_0_conv", "conv2d", [x], filters=4 * filters, kernel_size=1, strides=s
                )
                shortcut = add(f"{p}_0_bn", "batchnorm", [shortcut])
            else:
                shortcut = x
            y = add(f"{p}_1_conv", "conv2d", [x], filters=filters, kernel_size=1, strides=s)
            y = add(f"{p}_1_bn", "batchnorm", [y])
            y = add(f"{p}_1_relu", "relu", [y])
            y = add(f"{p}_2_conv", "conv2d", [y], filters=filters, kernel_size=3, padding="same")
            y = add(f"{p}_2_bn", "batchnorm", [y])
            y = add(f"{p}_2_relu", "relu", [y])
            y = add(f"{p}_3_conv", "conv2d", [y], filters=4 * filters, kernel_size=1)
            y = add(f"{p}_3_bn", "batchnorm", [y])
            y = add(f"{p}_add", "add", [shortcut, y])
            x = add(f"{p}_out", "relu", [y])

    x = add("avg_pool", "global_avgpool", [x])
    add("predictions", "dense", [x], units=num_classes)
    return net.document(f"resnet{depth}")

"""ResNeXt-50 (32×4d) as torchvision builds it (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["resnext50_32x4d", "resnext50c32"]


def resnext50_32x4d(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """ResNeXt-50 32×4d (Xie et al. 2017, "Aggregated Residual Transformations for Deep
    Neural Networks", Table 1) exactly as ``torchvision.models.resnext50_32x4d`` builds it.

    torchvision's module names with dots as underscores, in its creation order, channels last:

    - ``image``; stem ``conv1`` (7×7 / 2, 64, pad 3, no bias), ``bn1``, ``relu``, ``maxpool``
      (3×3 / 2, pad 1);
    - ``layer1`` … ``layer4`` with 3 / 4 / 6 / 3 bottleneck blocks of width 128 / 256 / 512 /
      1024 (cardinality 32 × 4 channels per group at the first stage, doubling) and output
      256 / 512 / 1024 / 2048 channels; a block ``layerS_B`` is ``_conv1`` (1×1, width),
      ``_bn1``, ``_relu1``, ``_conv2`` (3×3 grouped convolution, 32 groups, stride 2 in the
      first block of layers 2–4: torchvision's v1.5 placement), ``_bn2``, ``_relu2``,
      ``_conv3`` (1×1, output channels), ``_bn3``, then in the first block of each layer the
      projection ``_downsample_0`` (1×1 conv, stride as ``_conv2``) and ``_downsample_1``
      (batch norm), ``_add``, ``_relu3`` (torchvision reuses one ReLU module per block; here
      each use is a layer);
    - ``avgpool`` (global average) and ``fc`` (dense, ``num_classes``, with bias).

    Convolutions have no bias; batch norm has γ, β and running statistics (state, which
    torchvision's parameter count leaves out). With the defaults: 25,028,904 trainable
    parameters (torchvision's documented count) and 4,230,479,872 forward MACs
    (torchvision's table: 4.23 GFLOPS, multiply-adds; Xie et al. Table 1: 4.2×10⁹ FLOPs).

    Parameters
    ----------
    num_classes : int
        Units of ``fc``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document ``{"name": "resnext50_32x4d", "layers": [...]}``.
    """
    groups, base_width = 32, 4
    net = Layers()
    add = net.add
    net.input("image", input_shape)
    x = add(
        "conv1",
        "conv2d",
        ["image"],
        filters=64,
        kernel_size=7,
        strides=2,
        padding=3,
        use_bias=False,
    )
    x = add("bn1", "batchnorm", [x])
    x = add("relu", "relu", [x])
    x = add("maxpool", "maxpool", [x], pool_size=3, strides=2, padding=1)
    for stage, (planes, blocks) in enumerate(zip((64, 128, 256, 512), (3, 4, 6, 3)), start=1):
        width = planes * base_width // 64 * groups
        for block in range(blocks):
            p = f"layer{stage}_{block}"
            stride = 2 if stage > 1 and block == 0 else 1
            y = add(f"{p}_conv1", "conv2d", [x], filters=width, kernel_size=1, use_bias=False)
            y = add(f"{p}_bn1", "batchnorm", [y])
            y = add(f"{p}_relu1", "relu", [y])
            y = add(
                f"{p}_conv2",
                "conv2d",
                [y],
                filters=width,
                kernel_size=3,
                strides=stride,
                padding=1,
                groups=groups,
                use_bias=False,
            )
            y = add(f"{p}_bn2", "batchnorm", [y])
            y = add(f"{p}_relu2", "relu", [y])
            y = add(f"{p}_conv3", "conv2d", [y], filters=4 * planes, kernel_size=1, use_bias=False)
            y = add(f"{p}_bn3", "batchnorm", [y])
            shortcut = x
            if block == 0:
                shortcut = add(
                    f"{p}_downsample_0",
                    "conv2d",
                    [x],
                    filters=4 * planes,
                    kernel_size=1,
                    strides=stride,
                    use_bias=False,
                )
                shortcut = add(f"{p}_downsample_1", "batchnorm", [shortcut])
            y = add(f"{p}_add", "add", [y, shortcut])
            x = add(f"{p}_relu3", "relu", [y])
    x = add("avgpool", "global_avgpool", [x])
    add("fc", "dense", [x], units=num_classes)
    return net.document("resnext50_32x4d")


# keras_applications/resnext.py (ResNeXt50c32's stack_fn): filters of the bottleneck layer and
# blocks of stacks conv2 ... conv5 of ResNeXt50c32 (cardinality 32).
_KERAS_STACKS = ((128, 3), (256, 4), (512, 6), (1024, 3))


def resnext50c32(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """ResNeXt-50 32×4d as Keras builds it: ``keras_applications.resnext.ResNeXt50c32``
    (``keras_applications/resnext.py``, added with Keras' ResNet variants in 2018; TensorFlow 2's
    ``tf.keras`` ``applications/resnet.py`` carries the same block, ``block3``): the ResNeXt of the
    Keras / TensorFlow ecosystem.

    The same network as :func:`resnext50_32x4d` (same weights, same multiply-accumulates),
    with the grouped 3×3 convolution written the way Keras writes it, which has no grouped
    convolution layer: a depthwise convolution with ``depth_multiplier`` c = width / 32
    (4, 8, 16, 32 in stacks conv2 … conv5) whose output holds c partial products for every
    output channel (width · c channels), reshaped to [H, W, 32, c, c] and summed over the last
    axis by a ``Lambda`` (``sum(x[..., i] for i in range(c))``: c adds per output element,
    Python's ``sum`` starting from 0), then reshaped back to [H, W, width]. Layer by layer,
    Keras' names and creation order:

    - ``input_1``; stem ``conv1_pad`` (zero padding 3, folded), ``conv1_conv`` (7×7 / 2, 64,
      valid, no bias), ``conv1_bn``, ``conv1_relu``, ``pool1_pad`` (zero padding 1, folded),
      ``pool1_pool`` (max 3×3 / 2, valid);
    - stacks ``conv2`` … ``conv5`` of 3 / 4 / 6 / 3 blocks with widths 128 / 256 / 512 /
      1024; a block ``convS_blockB`` is, in the first block of a stack, the projection
      ``_0_conv`` (1×1, 2·width, stride as the depthwise convolution) and ``_0_bn``; then
      ``_1_conv`` (1×1, width), ``_1_bn``, ``_1_relu``, ``_2_pad`` (zero padding 1, folded),
      ``_2_conv`` (3×3 depthwise, multiplier c, stride 2 in the first block of conv3 …
      conv5, valid), ``_2_group`` (the Reshape, folded), ``_2_reduce`` (the Lambda),
      ``_2_ungroup`` (the Reshape back, folded), ``_2_bn``, ``_2_relu``, ``_3_conv`` (1×1,
      2·width), ``_3_bn``, ``_add`` (shortcut first), ``_out`` (relu);
    - ``avg_pool`` (global average) and ``probs`` (dense, ``num_classes`` units, with bias).

    dnnmem has no reduction over an axis, so ``_2_reduce`` is an ``avgpool`` of window
    [1, c] over the depthwise output seen (folded reshape) as [H·W·width, c, 1]: it reads
    the width · c channels once, writes width channels, and counts one add per element read,
    the Lambda's c adds per output (a mean is the sum scaled by 1/c, which changes no count).
    The strided slices ``x[..., i]`` are not steps: the sum reads its operand once.

    No layer has a bias but ``probs``. With the defaults: 25,028,904 trainable parameters
    (as :func:`resnext50_32x4d`, whose grouped 3×3 kernels hold as many weights as these
    depthwise ones: 9 · width · c) plus 68,224 batch-norm statistics, Keras' documented
    25,097,128 in all; 4,230,479,872 multiply-accumulates (as torchvision's) plus the
    Lambdas' adds.

    Parameters
    ----------
    num_classes : int
        Units of ``probs``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document ``{"name": "resnext50c32", "layers": [...]}``.
    """
    groups = 32
    net = Layers()
    add = net.add
    x = net.input("input_1", input_shape)
    x = add("conv1_pad", "zero_padding", [x], padding=[[3, 3], [3, 3]])
    x = add("conv1_conv", "conv2d", [x], filters=64, kernel_size=7, strides=2, use_bias=False)
    x = add("conv1_bn", "batchnorm", [x])
    x = add("conv1_relu", "relu", [x])
    x = add("pool1_pad", "zero_padding", [x], padding=[[1, 1], [1, 1]])
    x = add("pool1_pool", "maxpool", [x], pool_size=3, strides=2)
    size = [(input_shape[0] + 6 - 7) // 2 + 1, (input_shape[1] + 6 - 7) // 2 + 1]
    size = [(n + 2 - 3) // 2 + 1 for n in size]
    for stack, (width, blocks) in enumerate(_KERAS_STACKS, start=2):
        c = width // groups
        for block in range(1, blocks + 1):
            p = f"conv{stack}_block{block}"
            stride = 2 if stack > 2 and block == 1 else 1
            shortcut = x
            if block == 1:
                shortcut = add(
                    f"{p}_0_conv",
                    "conv2d",
                    [x],
                    filters=2 * width,
                    kernel_size=1,
                    strides=stride,
                    use_bias=False,
                )
                shortcut = add(f"{p}_0_bn", "batchnorm", [shortcut])
            y = add(f"{p}_1_conv", "conv2d", [x], filters=width, kernel_size=1, use_bias=False)
            y = add(f"{p}_1_bn", "batchnorm", [y])
            y = add(f"{p}_1_relu", "relu", [y])
            y = add(f"{p}_2_pad", "zero_padding", [y], padding=[[1, 1], [1, 1]])
            y = add(
                f"{p}_2_conv",
                "depthwise_conv2d",
                [y],
                kernel_size=3,
                strides=stride,
                depth_multiplier=c,
                use_bias=False,
            )
            size = [(n + 2 - 3) // stride + 1 for n in size]
            y = add(f"{p}_2_group", "reshape", [y], target_shape=[size[0] * size[1] * width, c, 1])
            y = add(f"{p}_2_reduce", "avgpool", [y], pool_size=[1, c], strides=[1, c])
            y = add(f"{p}_2_ungroup", "reshape", [y], target_shape=[size[0], size[1], width])
            y = add(f"{p}_2_bn", "batchnorm", [y])
            y = add(f"{p}_2_relu", "relu", [y])
            y = add(f"{p}_3_conv", "conv2d", [y], filters=2 * width, kernel_size=1, use_bias=False)
            y = add(f"{p}_3_bn", "batchnorm", [y])
            y = add(f"{p}_add", "add", [shortcut, y])
            x = add(f"{p}_out", "relu", [y])
    x = add("avg_pool", "global_avgpool", [x])
    add("probs", "dense", [x], units=num_classes)
    return net.document("resnext50c32")

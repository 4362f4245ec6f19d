"""ResNeXt-50 (32×4d) as torchvision builds it (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["resnext50_32x4d"]


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

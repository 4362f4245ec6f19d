"""ResNet-18 and AlexNet as torchvision builds them, channels last (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["resnet18", "alexnet"]


def resnet18(num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)) -> dict:
    """ResNet-18 (He et al. 2016) exactly as ``torchvision.models.resnet18`` builds it.

    torchvision's module names with dots as underscores, in its creation order (which the
    file order follows; it breaks ties in the schedule, SPEC §3), channels last:

    - ``image``; stem ``conv1`` (7×7, 64, stride 2, padding 3, no bias), ``bn1``, ``relu``,
      ``maxpool`` (3×3, stride 2, padding 1);
    - ``layer1`` … ``layer4`` with 64 / 128 / 256 / 512 channels, two BasicBlocks each;
      a block ``layerS_B`` is ``_conv1`` (3×3, stride 2 in the first block of layers 2–4),
      ``_bn1``, ``_relu1``, ``_conv2`` (3×3), ``_bn2``, then (first block of layers 2–4)
      the projection shortcut ``_downsample_0`` (1×1 conv, stride 2, no bias) and
      ``_downsample_1`` (batchnorm), ``_add`` and ``_relu2`` (torchvision reuses one ReLU
      module per block; here each use is a layer);
    - ``avgpool`` (global average) and ``fc`` (dense, ``num_classes`` units, with bias): the
      logits (SPEC §2).

    Convolutions have no bias (torchvision); batchnorm has γ, β (trainable) and running mean
    and variance (state, not counted by torchvision's ``parameters()``). With the defaults:
    11,689,512 trainable parameters (torchvision's count) + 9,600 of batchnorm state, and
    1,814,073,344 forward MACs of the convolutions and ``fc`` (He et al. Table 1:
    "1.8×10⁹ FLOPs", counted as multiply-adds).

    Parameters
    ----------
    num_classes : int
        Units of ``fc``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document ``{"name": "resnet18", "layers": [...]}``.
    """
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
    for stage, channels in enumerate((64, 128, 256, 512), start=1):
        for block in range(2):
            p = f"layer{stage}_{block}"
            stride = 2 if stage > 1 and block == 0 else 1
            y = add(
                f"{p}_conv1",
                "conv2d",
                [x],
                filters=channels,
                kernel_size=3,
                strides=stride,
                padding=1,
                use_bias=False,
            )
            y = add(f"{p}_bn1", "batchnorm", [y])
            y = add(f"{p}_relu1", "relu", [y])
            y = add(
                f"{p}_conv2",
                "conv2d",
                [y],
                filters=channels,
                kernel_size=3,
                padding=1,
                use_bias=False,
            )
            y = add(f"{p}_bn2", "batchnorm", [y])
            shortcut = x
            if stride != 1:
                shortcut = add(
                    f"{p}_downsample_0",
                    "conv2d",
                    [x],
                    filters=channels,
                    kernel_size=1,
                    strides=stride,
                    use_bias=False,
                )
                shortcut = add(f"{p}_downsample_1", "batchnorm", [shortcut])
            y = add(f"{p}_add", "add", [y, shortcut])
            x = add(f"{p}_relu2", "relu", [y])
    x = add("avgpool", "global_avgpool", [x])
    add("fc", "dense", [x], units=num_classes)
    return net.document("resnet18")


def alexnet(
    num_classes: int = 1000, dropout: float = 0.5, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """AlexNet as ``torchvision.models.alexnet`` builds it (not the 2012 paper's network).

    torchvision's variant (after Krizhevsky's "One weird trick", 2014): a single tower, 64 /
    192 / 384 / 256 / 256 filters and no local response normalization, where the 2012 paper
    (Krizhevsky et al.) split 96 / 256 / 384 / 384 / 256 filters over two GPUs with grouped
    convolutions and used LRN. Layers (torchvision's ``features.N`` / ``classifier.N``
    indices), channels last:

    - ``image``; ``features_0`` conv 11×11, 64, stride 4, padding 2 → 55×55; ``features_1``
      relu; ``features_2`` maxpool 3, stride 2 → 27×27; ``features_3`` conv 5×5, 192, pad 2;
      ``features_4`` relu; ``features_5`` maxpool → 13×13; ``features_6`` conv 3×3, 384;
      ``features_7`` relu; ``features_8`` conv 3×3, 256; ``features_9`` relu;
      ``features_10`` conv 3×3, 256; ``features_11`` relu; ``features_12`` maxpool → 6×6;
    - ``avgpool``: torchvision's ``AdaptiveAvgPool2d((6, 6))`` is the identity on a 6×6 map
      (224×224 input), written as a folded ``identity``; ``flatten`` (folded; H, W, C order,
      where torchvision flattens C, H, W: the same parameters and FLOPs);
    - ``classifier_0`` dropout, ``classifier_1`` dense 4096, ``classifier_2`` relu,
      ``classifier_3`` dropout, ``classifier_4`` dense 4096, ``classifier_5`` relu,
      ``classifier_6`` dense ``num_classes`` (the logits).

    Every layer with weights has a bias. With the defaults: 61,100,840 parameters
    (torchvision's count) and 714,188,480 forward MACs of the convolutions and dense layers
    (torchvision's table: 0.71 GFLOPS, counted as multiply-adds).

    Parameters
    ----------
    num_classes : int
        Units of ``classifier_6``.
    dropout : float
        Rate of the two dropout layers (torchvision's default 0.5).
    input_shape : tuple of int
        Per-sample image shape (height, width, channels); the identity ``avgpool`` needs the
        feature map to be 6×6, i.e. a 224×224 input (others are refused).

    Returns
    -------
    dict
        The network document ``{"name": "alexnet", "layers": [...]}``.
    """
    if tuple(input_shape[:2]) != (224, 224):
        raise ValueError(
            "input_shape: alexnet models AdaptiveAvgPool2d((6, 6)) as the identity,"
            f" which needs a 224×224 image, got {tuple(input_shape)}"
        )
    net = Layers()
    add = net.add
    net.input("image", input_shape)
    convs = [
        (64, 11, 4, 2, True),
        (192, 5, 1, 2, True),
        (384, 3, 1, 1, False),
        (256, 3, 1, 1, False),
        (256, 3, 1, 1, True),
    ]  # filters, kernel, stride, pad, pool
    x, i = "image", 0
    for filters, kernel, stride, pad, pool in convs:
        x = add(
            f"features_{i}",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=kernel,
            strides=stride,
            padding=pad,
        )
        x = add(f"features_{i + 1}", "relu", [x])
        i += 2
        if pool:
            x = add(f"features_{i}", "maxpool", [x], pool_size=3, strides=2)
            i += 1
    x = add("avgpool", "identity", [x])
    x = add("flatten", "flatten", [x])
    x = add("classifier_0", "dropout", [x], rate=dropout)
    x = add("classifier_1", "dense", [x], units=4096)
    x = add("classifier_2", "relu", [x])
    x = add("classifier_3", "dropout", [x], rate=dropout)
    x = add("classifier_4", "dense", [x], units=4096)
    x = add("classifier_5", "relu", [x])
    add("classifier_6", "dense", [x], units=num_classes)
    return net.document("alexnet")

"""Network-in-Network and OverFeat as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._caffe import ceil_pool_padding

__all__ = ["nin", "overfeat"]


def nin(
    num_classes: int = 1000, dropout: float = 0.5, input_shape: tuple[int, int, int] = (224, 224, 3)
) -> dict:
    """Network in Network (Lin, Chen & Yan 2014) for ImageNet, as the Caffe Model Zoo's
    ``nin_imagenet`` prototxt (the authors' ImageNet model, "NIN-Imagenet") builds it.

    Caffe's layer names (``-`` as ``_``), channels last:

    - ``data`` (224×224×3, the prototxt's crop); ``conv1`` (11×11 / 4, 96) ``relu0``,
      ``cccp1`` (1×1, 96) ``relu1``, ``cccp2`` (1×1, 96) ``relu2``, ``pool0`` (max 3×3 / 2);
    - ``conv2`` (5×5 pad 2, 256) ``relu3``, ``cccp3`` (1×1, 256) ``relu5``, ``cccp4`` ``relu6``,
      ``pool2``;
    - ``conv3`` (3×3 pad 1, 384) ``relu7``, ``cccp5`` ``relu8``, ``cccp6`` ``relu9``,
      ``pool3``, ``drop`` (dropout 0.5);
    - ``conv4_1024`` (3×3 pad 1, 1024) ``relu10``, ``cccp7_1024`` (1×1, 1024) ``relu11``,
      ``cccp8_1024`` (1×1, ``num_classes``) ``relu12``, ``pool4`` (average over the 6×6 map:
      global average): the logits.

    Every convolution has a bias; no normalisation. Caffe's pools round up
    (``ceil_pool_padding``): 54 → 27 → 13 → 6. With the defaults: 7,595,176 parameters and
    1,100,188,800 forward MACs. Published: the NiN paper gives no ImageNet count; the Model
    Zoo lists the model at 29 MB of FP32 weights (7,595,176 × 4 B = 30.4 MB = 29.0 MiB).

    Parameters
    ----------
    num_classes : int
        Filters of ``cccp8_1024``.
    dropout : float
        Rate of ``drop``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last; square.

    Returns
    -------
    dict
        The network document ``{"name": "nin", "layers": [...]}``.
    """
    if input_shape[0] != input_shape[1]:
        raise ValueError(f"input_shape: must be square, got {tuple(input_shape)}")
    net = Layers()
    add = net.add
    relu = iter(f"relu{i}" for i in (0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12))

    def conv(name: str, x: str, filters: int, kernel: int, strides: int = 1, pad: int = 0) -> str:
        y = add(
            name, "conv2d", [x], filters=filters, kernel_size=kernel, strides=strides, padding=pad
        )
        return add(next(relu), "relu", [y])

    def pool(name: str, x: str, size: int) -> tuple[str, int]:
        x = add(name, "maxpool", [x], pool_size=3, strides=2, padding=ceil_pool_padding(size, 3, 2))
        return x, -(-(size - 3) // 2) + 1

    x = net.input("data", input_shape)
    x = conv("conv1", x, 96, 11, 4)
    x = conv("cccp2", conv("cccp1", x, 96, 1), 96, 1)
    x, size = pool("pool0", x, (input_shape[0] - 11) // 4 + 1)
    x = conv("conv2", x, 256, 5, 1, 2)
    x = conv("cccp4", conv("cccp3", x, 256, 1), 256, 1)
    x, size = pool("pool2", x, size)
    x = conv("conv3", x, 384, 3, 1, 1)
    x = conv("cccp6", conv("cccp5", x, 384, 1), 384, 1)
    x, size = pool("pool3", x, size)
    x = add("drop", "dropout", [x], rate=dropout)
    x = conv("conv4_1024", x, 1024, 3, 1, 1)
    x = conv("cccp8_1024", conv("cccp7_1024", x, 1024, 1), num_classes, 1)
    add("pool4", "global_avgpool", [x])
    return net.document("nin")


def overfeat(
    num_classes: int = 1000, dropout: float = 0.5, input_shape: tuple[int, int, int] = (231, 231, 3)
) -> dict:
    """OverFeat's "fast" model (Sermanet et al. 2014, "OverFeat: Integrated Recognition,
    Localization and Detection using Convolutional Networks", Table 1).

    Layers (names ``conv1`` … ``fc8`` after the paper's layer numbers), channels last:

    - ``image`` (231×231×3, Table 1's input); ``conv1`` (11×11 / 4, 96) → 56×56, ``relu1``,
      ``pool1`` (max 2×2 / 2) → 28×28;
    - ``conv2`` (5×5, 256, no padding) → 24×24, ``relu2``, ``pool2`` → 12×12;
    - ``conv3`` (3×3 pad 1, 512), ``relu3``; ``conv4`` (3×3 pad 1, 1024), ``relu4``;
      ``conv5`` (3×3 pad 1, 1024), ``relu5``, ``pool5`` → 6×6;
    - ``flatten``; ``fc6`` (dense 3072), ``relu6``, ``drop6``; ``fc7`` (dense 4096), ``relu7``,
      ``drop7``; ``fc8`` (dense ``num_classes``): the logits.

    Every layer has a bias. Assumptions: the paper's "dropout with a rate of 0.5 in the
    classifier layers (6th and 7th)" is written after each layer's ReLU (Caffe's AlexNet
    placement); no contrast normalisation (the paper has none); the layers 6–8 are dense, as
    in training (the paper runs them as 1×1 convolutions only for multi-scale inference).
    With the defaults: 145,920,872 parameters and 2,801,403,904 forward MACs — Table 4 of
    the paper: 145 M parameters and 2,810 M connections for the fast model.

    Parameters
    ----------
    num_classes : int
        Units of ``fc8``.
    dropout : float
        Rate of ``drop6`` and ``drop7``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels); the dense ``fc6`` needs a 6×6 map,
        i.e. 231×231 (others are refused).

    Returns
    -------
    dict
        The network document ``{"name": "overfeat", "layers": [...]}``.
    """
    if tuple(input_shape[:2]) != (231, 231):
        raise ValueError(
            "input_shape: overfeat's dense fc6 reads a 6×6 map, which needs a "
            f"231×231 image, got {tuple(input_shape)}"
        )
    net = Layers()
    add = net.add
    x = net.input("image", input_shape)
    convs = [
        (96, 11, 4, 0, True),
        (256, 5, 1, 0, True),
        (512, 3, 1, 1, False),
        (1024, 3, 1, 1, False),
        (1024, 3, 1, 1, True),
    ]  # filters, kernel, stride, pad, pool
    for i, (filters, kernel, stride, pad, pooled) in enumerate(convs, start=1):
        x = add(
            f"conv{i}",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=kernel,
            strides=stride,
            padding=pad,
        )
        x = add(f"relu{i}", "relu", [x])
        if pooled:
            x = add(f"pool{i}", "maxpool", [x], pool_size=2, strides=2)
    x = add("flatten", "flatten", [x])
    for i, units in ((6, 3072), (7, 4096)):
        x = add(f"fc{i}", "dense", [x], units=units)
        x = add(f"relu{i}", "relu", [x])
        x = add(f"drop{i}", "dropout", [x], rate=dropout)
    add("fc8", "dense", [x], units=num_classes)
    return net.document("overfeat")

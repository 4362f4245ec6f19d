"""SqueezeNet 1.0 and 1.1 as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._caffe import ceil_pool_padding

__all__ = ["squeezenet"]

# Fire modules: (name, squeeze 1×1, expand 1×1 = expand 3×3); a max pool follows those in
# _POOL_AFTER. SqueezeNet 1.0: Iandola et al. 2016, Table 1; 1.1: the authors' Caffe model
# (SqueezeNet_v1.1 in their repository), which torchvision's squeezenet1_1 copies.
_FIRES = [
    ("fire2", 16, 64),
    ("fire3", 16, 64),
    ("fire4", 32, 128),
    ("fire5", 32, 128),
    ("fire6", 48, 192),
    ("fire7", 48, 192),
    ("fire8", 64, 256),
    ("fire9", 64, 256),
]
_POOL_AFTER = {"1.0": ("conv1", "fire4", "fire8"), "1.1": ("conv1", "fire3", "fire5")}
_POOL_NAMES = {"1.0": ("pool1", "pool4", "pool8"), "1.1": ("pool1", "pool3", "pool5")}


def squeezenet(
    version: str = "1.0", num_classes: int = 1000, input_shape: tuple[int, int, int] = (227, 227, 3)
) -> dict:
    """SqueezeNet (Iandola et al. 2016, "SqueezeNet: AlexNet-level accuracy with 50x fewer
    parameters and <0.5MB model size") as the authors' Caffe models build it.

    Caffe's layer names with ``/`` as ``_``, channels last:

    - ``data``; ``conv1`` (1.0: 7×7 / 2, 96 filters; 1.1: 3×3 / 2, 64), ``relu_conv1``,
      ``pool1`` (max 3×3 / 2);
    - fire modules ``fire2`` … ``fire9``: ``_squeeze1x1`` (1×1, s filters) + ``_relu_squeeze1x1``,
      then ``_expand1x1`` (1×1, e) + ``_relu_expand1x1`` and ``_expand3x3`` (3×3 pad 1, e) +
      ``_relu_expand3x3``, ``_concat`` (2e channels); (s, e) = (16, 64), (16, 64), (32, 128),
      (32, 128), (48, 192), (48, 192), (64, 256), (64, 256); max pools 3×3 / 2 after fire4
      and fire8 (1.0: ``pool4``, ``pool8``) or after fire3 and fire5 (1.1: ``pool3``,
      ``pool5``);
    - ``drop9`` (dropout 0.5), ``conv10`` (1×1, ``num_classes``), ``relu_conv10``, ``pool10``
      (global average): the logits (the ReLU before the average is the paper's).

    Every convolution has a bias; no batch norm. Caffe's pools round up
    (``ceil_pool_padding``). The default input is 227×227, the crop of the authors' Caffe
    ``train_val.prototxt`` and the size that gives Table 1's 111×111 conv1 output
    (Table 1 writes the input as 224×224); torchvision feeds 224×224 (``input_shape``).

    Parameters (both input sizes): 1.0 — 1,248,424 (Table 1's total; torchvision's
    ``squeezenet1_0``); 1.1 — 1,235,496 (torchvision's ``squeezenet1_1``). Forward MACs at
    224×224: 1.0 — 818,924,576 and 1.1 — 349,151,936 (torchvision's table: 0.82 and 0.35
    GFLOPS, multiply-adds); at 227×227: 1.0 — 832,667,936 and 1.1 — 387,747,520.

    Parameters
    ----------
    version : str
        ``"1.0"`` (the paper's network) or ``"1.1"``.
    num_classes : int
        Filters of ``conv10``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last; square.

    Returns
    -------
    dict
        The network document ``{"name": "squeezenet", "layers": [...]}``.
    """
    if version not in _POOL_AFTER:
        raise ValueError(f"version: must be '1.0' or '1.1', got {version!r}")
    if input_shape[0] != input_shape[1]:
        raise ValueError(f"input_shape: must be square, got {tuple(input_shape)}")
    net = Layers()
    add = net.add
    pools = dict(zip(_POOL_AFTER[version], _POOL_NAMES[version]))

    def pool(after: str, x: str, size: int) -> tuple[str, int]:
        if after not in pools:
            return x, size
        x = add(
            pools[after],
            "maxpool",
            [x],
            pool_size=3,
            strides=2,
            padding=ceil_pool_padding(size, 3, 2),
        )
        return x, -(-(size - 3) // 2) + 1

    x = net.input("data", input_shape)
    kernel, filters = (7, 96) if version == "1.0" else (3, 64)
    x = add("conv1", "conv2d", [x], filters=filters, kernel_size=kernel, strides=2)
    x = add("relu_conv1", "relu", [x])
    x, size = pool("conv1", x, (input_shape[0] - kernel) // 2 + 1)
    for name, s, e in _FIRES:
        y = add(f"{name}_squeeze1x1", "conv2d", [x], filters=s, kernel_size=1)
        y = add(f"{name}_relu_squeeze1x1", "relu", [y])
        e1 = add(f"{name}_expand1x1", "conv2d", [y], filters=e, kernel_size=1)
        e1 = add(f"{name}_relu_expand1x1", "relu", [e1])
        e3 = add(f"{name}_expand3x3", "conv2d", [y], filters=e, kernel_size=3, padding=1)
        e3 = add(f"{name}_relu_expand3x3", "relu", [e3])
        x = add(f"{name}_concat", "concat", [e1, e3])
        x, size = pool(name, x, size)
    x = add("drop9", "dropout", [x], rate=0.5)
    x = add("conv10", "conv2d", [x], filters=num_classes, kernel_size=1)
    x = add("relu_conv10", "relu", [x])
    add("pool10", "global_avgpool", [x])
    return net.document("squeezenet")

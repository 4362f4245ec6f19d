"""GoogLeNet (Inception v1) as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._caffe import ceil_pool_padding, lrn

__all__ = ["googlenet"]

# Inception modules of Szegedy et al. 2015, Table 1: name, #1×1, #3×3 reduce, #3×3,
# #5×5 reduce, #5×5, pool proj. torchvision's GoogLeNet uses the same filter counts.
_MODULES = [
    ("3a", 64, 96, 128, 16, 32, 32),
    ("3b", 128, 128, 192, 32, 96, 64),
    ("4a", 192, 96, 208, 16, 48, 64),
    ("4b", 160, 112, 224, 24, 64, 64),
    ("4c", 128, 128, 256, 24, 64, 64),
    ("4d", 112, 144, 288, 32, 64, 64),
    ("4e", 256, 160, 320, 32, 128, 128),
    ("5a", 256, 160, 320, 32, 128, 128),
    ("5b", 384, 192, 384, 48, 128, 128),
]


def googlenet(
    variant: str = "caffe",
    aux_logits: bool = False,
    num_classes: int = 1000,
    input_shape: tuple[int, int, int] = (224, 224, 3),
) -> dict:
    """GoogLeNet (Szegedy et al. 2015, "Going Deeper with Convolutions", Table 1, Figure 3).

    Two variants, because the papers that use GoogLeNet train the original one (Caffe's
    ``bvlc_googlenet``) while the parameter count everyone quotes today is torchvision's:

    ``variant="caffe"`` (default) — the paper's network as Caffe's ``bvlc_googlenet``
    prototxt builds it (the Caffe Model Zoo model the cDMA paper trains; OnSRAM cites the
    paper). Caffe's layer names with ``/`` as ``_``:

    - ``conv1_7x7_s2`` (7×7, 64, stride 2, pad 3), ``conv1_relu_7x7``, ``pool1_3x3_s2`` (max
      3×3 / 2), ``pool1_norm1`` (LRN), ``conv2_3x3_reduce`` (1×1, 64) + relu, ``conv2_3x3``
      (3×3, 192) + relu, ``conv2_norm2`` (LRN), ``pool2_3x3_s2``;
    - nine inception modules ``inception_{3a…5b}``: branches ``_1x1``; ``_3x3_reduce`` →
      ``_3x3`` (pad 1); ``_5x5_reduce`` → ``_5x5`` (pad 2); ``_pool`` (max 3×3 / 1, pad 1) →
      ``_pool_proj`` (1×1); every convolution followed by its ReLU ``_relu_<conv>``;
      ``_output`` concatenates the four; ``pool3_3x3_s2`` after 3b, ``pool4_3x3_s2`` after 4e;
    - ``pool5_7x7_s1`` (global average), ``pool5_drop_7x7_s1`` (dropout 0.4),
      ``loss3_classifier`` (dense, ``num_classes``): the logits.

    Every convolution and dense layer has a bias; no batch norm. Caffe pools round up
    (``ceil_pool_padding``): 112 → 56 → 28 → 14 → 7. The two LRN layers are channel softmaxes
    (``_caffe.lrn``: same shape, no weights, fewer FLOPs than LRN). With the defaults:
    6,998,552 parameters and 1,582,671,872 forward MACs. Szegedy et al.'s Table 1 sums to
    6,798 K parameters (weights only, in units of 1,024; its conv1 row, 2.7 K, does not match
    a 7×7×3×64 kernel, 9.2 K) and 1,502 M multiply-adds (its conv1 row, 34 M, is not the
    118 M of that kernel on a 112×112 output); without conv1 ours are within 0.4 % of both
    sums (``tests/python/test_zoo_seeds.py``).

    ``variant="torchvision"`` — exactly ``torchvision.models.googlenet(aux_logits=False)``
    (the pretrained model's layout): every convolution is torchvision's ``BasicConv2d``
    (conv without bias, batch norm, ReLU), no LRN, torchvision's known 3×3 kernel in the
    "5×5" branch (``branch3``), a 2×2 ``maxpool4``, dropout 0.2, torchvision's module names
    (dots as underscores: ``conv1_conv``, ``conv1_bn``, ``conv1_relu``, ``maxpool1``, …,
    ``inception3a_branch2_1_conv`` …, ``avgpool``, ``dropout``, ``fc``). With the defaults:
    6,624,904 trainable parameters (torchvision's documented count) + 14,560 of batch-norm
    running statistics; 1,498,376,192 forward MACs (torchvision's table: 1.50 GFLOPS, counted
    as multiply-adds).

    ``aux_logits=True`` adds the two auxiliary classifiers of the paper's training network
    (on the outputs of 4a and 4d): average pool 5×5 / 3 (torchvision: adaptive to 4×4, the
    same at 224×224), 1×1 conv 128 (+ ReLU; torchvision: + batch norm), dense 1024 + ReLU,
    dropout 0.7, dense ``num_classes``. Each is a network output with its own loss step, as
    in training (the paper weights their losses by 0.3; the weight changes no count). Caffe:
    +6,379,728 parameters; torchvision: +6,379,984 (13,004,888 in all, as
    ``torchvision.models.googlenet(aux_logits=True)`` counts them).

    The input is 224×224×3 (the paper's). The softmax of the classifiers is the loss step's
    (SPEC §2).

    Parameters
    ----------
    variant : str
        ``"caffe"`` or ``"torchvision"`` (above).
    aux_logits : bool
        Add the two auxiliary classifiers (training network).
    num_classes : int
        Units of the classifiers.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last; square.

    Returns
    -------
    dict
        The network document ``{"name": "googlenet", "layers": [...]}``.
    """
    if variant not in ("caffe", "torchvision"):
        raise ValueError(f"variant: must be 'caffe' or 'torchvision', got {variant!r}")
    if input_shape[0] != input_shape[1]:
        raise ValueError(f"input_shape: must be square, got {tuple(input_shape)}")
    net = Layers()
    add = net.add
    tv = variant == "torchvision"

    def conv(name: str, x: str, filters: int, kernel: int, strides: int = 1, pad: int = 0) -> str:
        if tv:
            y = add(
                f"{name}_conv",
                "conv2d",
                [x],
                filters=filters,
                kernel_size=kernel,
                strides=strides,
                padding=pad,
                use_bias=False,
            )
            y = add(f"{name}_bn", "batchnorm", [y])
            return add(f"{name}_relu", "relu", [y])
        # Caffe names a convolution "<group>/<what>" and its ReLU "<group>/relu_<what>".
        group, what = name.split("/")
        y = add(
            f"{group}_{what}",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=kernel,
            strides=strides,
            padding=pad,
        )
        return add(f"{group}_relu_{what}", "relu", [y])

    def pool(name: str, x: str, size: int, kernel: int, stride: int, pad: int = 0) -> str:
        return add(
            name,
            "maxpool",
            [x],
            pool_size=kernel,
            strides=stride,
            padding=ceil_pool_padding(size, kernel, stride, pad),
        )

    size = input_shape[0]
    x = net.input("image" if tv else "data", input_shape)
    x = conv("conv1" if tv else "conv1/7x7_s2", x, 64, 7, 2, 3)
    size = (size + 6 - 7) // 2 + 1
    x = pool("maxpool1" if tv else "pool1_3x3_s2", x, size, 3, 2)
    size = _pooled(size, 3, 2)
    if not tv:
        x = lrn(net, "pool1_norm1", x)
    x = conv("conv2" if tv else "conv2/3x3_reduce", x, 64, 1)
    x = conv("conv3" if tv else "conv2/3x3", x, 192, 3, 1, 1)
    if not tv:
        x = lrn(net, "conv2_norm2", x)
    x = pool("maxpool2" if tv else "pool2_3x3_s2", x, size, 3, 2)
    size = _pooled(size, 3, 2)

    for name, n1, n3r, n3, n5r, n5, npool in _MODULES:
        if name == "4a":
            x = pool("maxpool3" if tv else "pool3_3x3_s2", x, size, 3, 2)
            size = _pooled(size, 3, 2)
        elif name == "5a":
            kernel = 2 if tv else 3
            x = pool("maxpool4" if tv else "pool4_3x3_s2", x, size, kernel, 2)
            size = _pooled(size, kernel, 2)
        if tv:
            p = f"inception{name}"
            b1 = conv(f"{p}_branch1", x, n1, 1)
            b2 = conv(f"{p}_branch2_1", conv(f"{p}_branch2_0", x, n3r, 1), n3, 3, 1, 1)
            # torchvision's "5x5" branch has a 3×3 kernel (a known bug kept for its weights).
            b3 = conv(f"{p}_branch3_1", conv(f"{p}_branch3_0", x, n5r, 1), n5, 3, 1, 1)
            b4 = conv(f"{p}_branch4_1", pool(f"{p}_branch4_0", x, size, 3, 1, 1), npool, 1)
            x = add(f"{p}_cat", "concat", [b1, b2, b3, b4])
        else:
            p = f"inception_{name}"
            b1 = conv(f"{p}/1x1", x, n1, 1)
            b2 = conv(f"{p}/3x3", conv(f"{p}/3x3_reduce", x, n3r, 1), n3, 3, 1, 1)
            b3 = conv(f"{p}/5x5", conv(f"{p}/5x5_reduce", x, n5r, 1), n5, 5, 1, 2)
            b4 = conv(f"{p}/pool_proj", pool(f"{p}_pool", x, size, 3, 1, 1), npool, 1)
            x = add(f"{p}_output", "concat", [b1, b2, b3, b4])
        if aux_logits and name in ("4a", "4d"):
            _aux(net, "aux1" if name == "4a" else "aux2", x, size, num_classes, tv)

    if tv:
        x = add("avgpool", "global_avgpool", [x])
        x = add("dropout", "dropout", [x], rate=0.2)
        add("fc", "dense", [x], units=num_classes)
    else:
        x = add("pool5_7x7_s1", "global_avgpool", [x])
        x = add("pool5_drop_7x7_s1", "dropout", [x], rate=0.4)
        add("loss3_classifier", "dense", [x], units=num_classes)
    return net.document("googlenet")


def _pooled(size: int, kernel: int, stride: int) -> int:
    """Spatial size after a ceil-rounded pooling without padding (Caffe, ``ceil_mode``)."""
    return -(-(size - kernel) // stride) + 1


def _aux(net: Layers, name: str, x: str, size: int, num_classes: int, tv: bool) -> None:
    """An auxiliary classifier on ``x`` (a ``size``×``size`` map): Caffe's ``loss1_*`` /
    ``loss2_*`` layers or torchvision's ``aux1_*`` / ``aux2_*`` modules."""
    add = net.add
    p = name if tv else ("loss1" if name == "aux1" else "loss2")
    # 14×14 → 4×4: Caffe's average pool 5×5 / 3; torchvision's AdaptiveAvgPool2d((4, 4)),
    # which on 14×14 has windows 4 or 5 wide (written as the 5×5 / 3 pool: same output).
    y = add(f"{p}_avgpool" if tv else f"{p}_ave_pool", "avgpool", [x], pool_size=5, strides=3)
    if size != 14:
        raise ValueError(
            f"input_shape: aux_logits needs a 224×224 image (a 14×14 map at the "
            f"auxiliary classifiers), got a {size}×{size} map"
        )
    if tv:
        y = add(f"{p}_conv_conv", "conv2d", [y], filters=128, kernel_size=1, use_bias=False)
        y = add(f"{p}_conv_bn", "batchnorm", [y])
        y = add(f"{p}_conv_relu", "relu", [y])
    else:
        y = add(f"{p}_conv", "conv2d", [y], filters=128, kernel_size=1)
        y = add(f"{p}_relu_conv", "relu", [y])
    y = add(f"{p}_flatten", "flatten", [y])
    y = add(f"{p}_fc1" if tv else f"{p}_fc", "dense", [y], units=1024)
    y = add(f"{p}_relu_fc1" if tv else f"{p}_relu_fc", "relu", [y])
    y = add(f"{p}_dropout" if tv else f"{p}_drop_fc", "dropout", [y], rate=0.7)
    add(f"{p}_fc2" if tv else f"{p}_classifier", "dense", [y], units=num_classes)

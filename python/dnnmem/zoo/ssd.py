"""SSD300 with its VGG-16 backbone as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers
from ._caffe import ceil_pool_padding

__all__ = ["ssd300"]

# Source feature maps of the heads: (layer, channels, side at 300×300, default boxes per
# location) — Liu et al. 2016, Figure 2 and §3 ("4 default boxes" on conv4_3, conv10_2 and
# conv11_2; 6 elsewhere): 8,732 boxes in all.
_SOURCES = [
    ("conv4_3_norm", 512, 38, 4),
    ("fc7", 1024, 19, 6),
    ("conv6_2", 512, 10, 6),
    ("conv7_2", 256, 5, 6),
    ("conv8_2", 256, 3, 4),
    ("conv9_2", 256, 1, 4),
]


def ssd300(num_classes: int = 21) -> dict:
    """SSD300 (Liu et al. 2016, "SSD: Single Shot MultiBox Detector", Figure 2, §3) with the
    paper's VGG-16 backbone, as the authors' Caffe model (and torchvision's
    ``ssd300_vgg16``) builds it, for training.

    Layers (the Caffe model's names), channels last, 300×300×3 input ``data``:

    - VGG-16 ``conv1_1`` … ``conv5_3`` (3×3 pad 1, with bias, each followed by
      ``relu<name>``), max pools ``pool1`` … ``pool4`` 2×2 / 2 (``pool3`` rounds up,
      75 → 38, as Caffe and torchvision's ``ceil_mode``), ``pool5`` 3×3 / 1 pad 1;
    - ``fc6`` (3×3 conv, 1024, dilation 6, pad 6) + ``relu6``, ``fc7`` (1×1, 1024) + ``relu7``:
      the paper's sub-sampled, à-trous fc6 / fc7;
    - extra layers ``conv6_1`` (1×1, 256), ``conv6_2`` (3×3 / 2 pad 1, 512) → 10×10;
      ``conv7_1`` (128), ``conv7_2`` (3×3 / 2 pad 1, 256) → 5×5; ``conv8_1`` (128),
      ``conv8_2`` (3×3 valid, 256) → 3×3; ``conv9_1`` (128), ``conv9_2`` → 1×1; each + ReLU
      (the paper's conv8_2 … conv11_2; Caffe numbers them 6 … 9);
    - ``conv4_3_norm``: the L2 normalisation of conv4_3 with a learned per-channel scale
      (512 weights), written as a ``layernorm`` with ``center: false`` (γ only: the same
      weights and output; it normalises by the standard deviation over channels where L2Norm
      divides by the norm);
    - the head, on six source maps (conv4_3_norm, fc7, conv6_2, conv7_2, conv8_2, conv9_2
      with 4, 6, 6, 6, 4, 4 default boxes per location): per source ``<src>_mbox_loc``
      (3×3 pad 1, boxes·4) and ``<src>_mbox_conf`` (3×3 pad 1, boxes·``num_classes``), each
      reshaped (folded) to [boxes at the source, 4] / [.., num_classes]; ``mbox_loc``
      ([8732, 4]) and ``mbox_conf`` ([8732, num_classes]) concatenate them over the boxes.
      These two are the network outputs.

    Assumptions: the training losses are the format's loss step on each output (softmax
    cross-entropy); SSD's smooth-L1 localisation loss, hard-negative mining and box matching
    are not layers (they are the loss's work, and read only these two tensors); prior-box
    generation has no weights and no data-dependent work. ``num_classes`` counts the
    background: 21 for PASCAL VOC (the paper's main results, the default), 81 for COCO in the
    paper, 91 in torchvision (COCO's category ids).

    Parameters: 22,943,936 in the backbone, L2 scale and extra layers, plus the head's
    133,662·(4 + num_classes): 26,285,486 with 21 classes; 35,641,826 with 91 — exactly
    torchvision's ``ssd300_vgg16`` count. Forward MACs with 21 classes: 31,373,537,792; with
    91: 34,858,153,472 (torchvision's table: 34.86 GFLOPS, multiply-adds).

    Parameters
    ----------
    num_classes : int
        Classes including the background.

    Returns
    -------
    dict
        The network document ``{"name": "ssd300", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("data", (300, 300, 3))
    side = 300
    stages = [(1, 64, 2), (2, 128, 2), (3, 256, 3), (4, 512, 3), (5, 512, 3)]
    for stage, filters, convs in stages:
        for i in range(1, convs + 1):
            x = add(f"conv{stage}_{i}", "conv2d", [x], filters=filters, kernel_size=3, padding=1)
            x = add(f"relu{stage}_{i}", "relu", [x])
        if stage == 4:
            conv4_3 = x
        if stage < 5:
            # pool3 rounds up (75 → 38); the others halve an even side.
            x = add(
                f"pool{stage}",
                "maxpool",
                [x],
                pool_size=2,
                strides=2,
                padding=ceil_pool_padding(side, 2, 2),
            )
            side = -(-side // 2)
    x = add("pool5", "maxpool", [x], pool_size=3, strides=1, padding=1)
    x = add("fc6", "conv2d", [x], filters=1024, kernel_size=3, padding=6, dilation=6)
    x = add("relu6", "relu", [x])
    x = add("fc7", "conv2d", [x], filters=1024, kernel_size=1)
    fc7 = add("relu7", "relu", [x])
    sources = {"fc7": fc7}
    x = fc7
    for stage, (mid, out, stride, pad) in enumerate(
        [(256, 512, 2, 1), (128, 256, 2, 1), (128, 256, 1, 0), (128, 256, 1, 0)], start=6
    ):
        x = add(f"conv{stage}_1", "conv2d", [x], filters=mid, kernel_size=1)
        x = add(f"conv{stage}_1_relu", "relu", [x])
        x = add(
            f"conv{stage}_2", "conv2d", [x], filters=out, kernel_size=3, strides=stride, padding=pad
        )
        x = sources[f"conv{stage}_2"] = add(f"conv{stage}_2_relu", "relu", [x])
    sources["conv4_3_norm"] = add("conv4_3_norm", "layernorm", [conv4_3], center=False)

    locs, confs = [], []
    for name, _, size, boxes in _SOURCES:
        src = sources[name]
        loc = add(f"{name}_mbox_loc", "conv2d", [src], filters=boxes * 4, kernel_size=3, padding=1)
        locs.append(
            add(f"{name}_mbox_loc_flat", "reshape", [loc], target_shape=[size * size * boxes, 4])
        )
        conf = add(
            f"{name}_mbox_conf",
            "conv2d",
            [src],
            filters=boxes * num_classes,
            kernel_size=3,
            padding=1,
        )
        confs.append(
            add(
                f"{name}_mbox_conf_flat",
                "reshape",
                [conf],
                target_shape=[size * size * boxes, num_classes],
            )
        )
    add("mbox_loc", "concat", locs, axis=-2)
    add("mbox_conf", "concat", confs, axis=-2)
    return net.document("ssd300")

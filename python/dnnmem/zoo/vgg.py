"""VGG-16 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["vgg16"]

# (3×3 convolutions, filters) of blocks 1 ... 5 (Simonyan & Zisserman 2015, Table 1, column D).
_VGG16_BLOCKS = [(2, 64), (2, 128), (3, 256), (3, 512), (3, 512)]


def vgg16(num_classes: int = 1000, input_shape: tuple[int, int, int] = (224, 224, 3)) -> dict:
    """VGG-16 exactly as ``keras.applications.VGG16`` builds it.

    Follows Keras' ``keras/applications/vgg16.py`` layer by layer, with Keras' layer names
    and creation order (the file order breaks ties in the schedule, SPEC §3):

    - ``input_layer``; blocks ``b`` = 1 … 5 of 2 / 2 / 3 / 3 / 3 convolutions
      ``block{b}_conv{i}`` (3×3 same, with bias; 64, 128, 256, 512, 512 filters), each
      followed by ``block{b}_conv{i}_relu``, and ``block{b}_pool`` (max 2×2, stride 2);
    - ``flatten`` (folded), ``fc1`` (dense 4096) + ``fc1_relu``, ``fc2`` (dense 4096) +
      ``fc2_relu``, ``predictions`` (dense, ``num_classes`` units).

    Differences from Keras, by design: Keras fuses the ReLU into each Conv2D and into
    ``fc1`` / ``fc2`` (``activation="relu"``); here each ReLU is a layer of its own (an
    activation is a step with its own traffic, ``docs/network-format.md``), named
    ``<layer>_relu`` and created right after it. Keras' VGG16 has no dropout (the paper's
    dropout on fc1 / fc2 is not in keras.applications), so neither has this. The softmax of
    ``predictions`` is not a layer (the loss step applies it, SPEC §2). With the defaults: 38
    layers (Keras' 23 plus 15 split ReLUs), 138,357,544 parameters, all trainable.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "vgg16", "layers": [...]}``.
    """
    net = Layers()
    add = net.add
    x = net.input("input_layer", input_shape)
    for b, (convs, filters) in enumerate(_VGG16_BLOCKS, start=1):
        for i in range(1, convs + 1):
            x = add(
                f"block{b}_conv{i}", "conv2d", [x], filters=filters, kernel_size=3, padding="same"
            )
            x = add(f"block{b}_conv{i}_relu", "relu", [x])
        x = add(f"block{b}_pool", "maxpool", [x], pool_size=2, strides=2)
    x = add("flatten", "flatten", [x])
    for fc in ("fc1", "fc2"):
        x = add(fc, "dense", [x], units=4096)
        x = add(f"{fc}_relu", "relu", [x])
    add("predictions", "dense", [x], units=num_classes)
    return net.document("vgg16")

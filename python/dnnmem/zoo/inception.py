"""Inception v3 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from collections import Counter

from ._builder import Layers

__all__ = ["inception_v3"]


class _AutoNamed(Layers):
    """Layers that names unnamed ones as a fresh Keras session does: ``conv2d``,
    ``conv2d_1``, … one counter per layer class (Keras' ``auto_name``)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: Counter[str] = Counter()

    def auto(self, base: str, kind: str, inputs: list[str] | str, **fields: object) -> str:
        n = self.counts[base]
        self.counts[base] += 1
        return self.add(base if n == 0 else f"{base}_{n}", kind, inputs, **fields)


def inception_v3(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (299, 299, 3)
) -> dict:
    """Inception v3 exactly as ``keras.applications.InceptionV3`` builds it.

    Follows Keras' ``keras/applications/inception_v3.py`` layer by layer, with Keras' layer
    names and creation order (the file order breaks ties in the schedule, SPEC §3). Keras'
    ``conv2d_bn`` is ``conv2d`` (no bias) → ``batchnorm`` (``scale: false``: β only, no γ) →
    ``relu``; Keras leaves these layers unnamed, so they carry the automatic names of a fresh
    Keras session: ``conv2d``, ``conv2d_1``, … ``batch_normalization_k``, ``activation_k``
    (one counter per class, in creation order), likewise ``max_pooling2d_k``,
    ``average_pooling2d_k`` and the two unnamed concatenations ``concatenate`` and
    ``concatenate_1``. Named: the block outputs ``mixed0`` … ``mixed10`` (concat),
    ``mixed9_0`` and ``mixed9_1``, and the head ``avg_pool`` (global average) and
    ``predictions`` (dense, ``num_classes`` units).

    Blocks (Szegedy et al. 2016, Figures 5–7 and Table 1, as Keras builds them): stem of five
    conv2d_bn and two 3×3 / 2 max pools; ``mixed0``–``mixed2`` (35×35: 1×1, 1×1→5×5,
    1×1→3×3→3×3, 3×3 average pool→1×1); ``mixed3`` (reduction to 17×17);
    ``mixed4``–``mixed7`` (7×1 / 1×7 factorised, 128 / 160 / 160 / 192 inner filters);
    ``mixed8`` (reduction to 8×8); ``mixed9``, ``mixed10`` (expanded filter banks). Branches
    are created in the order of the Keras source (branch1x1 first, the pool branch last).

    The input is 299×299×3 (InceptionV3's default size). The softmax of ``predictions`` is not
    a layer (the loss step applies it, SPEC §2). No auxiliary classifier (Keras has none).
    With the defaults: 313 layers (as Keras counts them), 23,851,784 parameters of which
    23,817,352 trainable.

    Parameters
    ----------
    num_classes : int
        Units of ``predictions``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last.

    Returns
    -------
    dict
        The network document: ``{"name": "inception_v3", "layers": [...]}``.
    """
    net = _AutoNamed()

    def conv_bn(
        x: str, filters: int, rows: int, cols: int, strides: int = 1, padding: str = "same"
    ) -> str:
        x = net.auto(
            "conv2d",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=[rows, cols],
            strides=strides,
            padding=padding,
            use_bias=False,
        )
        x = net.auto("batch_normalization", "batchnorm", [x], scale=False)
        return net.auto("activation", "relu", [x])

    def max_pool(x: str) -> str:
        return net.auto("max_pooling2d", "maxpool", [x], pool_size=3, strides=2)

    def avg_pool(x: str) -> str:
        return net.auto("average_pooling2d", "avgpool", [x], pool_size=3, strides=1, padding="same")

    x = net.input("input_layer", input_shape)
    x = conv_bn(x, 32, 3, 3, strides=2, padding="valid")
    x = conv_bn(x, 32, 3, 3, padding="valid")
    x = conv_bn(x, 64, 3, 3)
    x = max_pool(x)
    x = conv_bn(x, 80, 1, 1, padding="valid")
    x = conv_bn(x, 192, 3, 3, padding="valid")
    x = max_pool(x)

    # mixed0 ... mixed2: 35 x 35 x 256 / 288 / 288
    for i, pool_filters in enumerate((32, 64, 64)):
        b1 = conv_bn(x, 64, 1, 1)
        b5 = conv_bn(conv_bn(x, 48, 1, 1), 64, 5, 5)
        b3 = conv_bn(conv_bn(conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
        bp = conv_bn(avg_pool(x), pool_filters, 1, 1)
        x = net.add(f"mixed{i}", "concat", [b1, b5, b3, bp])

    # mixed3: 17 x 17 x 768
    b3 = conv_bn(x, 384, 3, 3, strides=2, padding="valid")
    bd = conv_bn(conv_bn(conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=2, padding="valid")
    bp = max_pool(x)
    x = net.add("mixed3", "concat", [b3, bd, bp])

    # mixed4 ... mixed7: 17 x 17 x 768
    for i, c in zip((4, 5, 6, 7), (128, 160, 160, 192)):
        b1 = conv_bn(x, 192, 1, 1)
        b7 = conv_bn(conv_bn(conv_bn(x, c, 1, 1), c, 1, 7), 192, 7, 1)
        bd = conv_bn(x, c, 1, 1)
        bd = conv_bn(conv_bn(conv_bn(bd, c, 7, 1), c, 1, 7), c, 7, 1)
        bd = conv_bn(bd, 192, 1, 7)
        bp = conv_bn(avg_pool(x), 192, 1, 1)
        x = net.add(f"mixed{i}", "concat", [b1, b7, bd, bp])

    # mixed8: 8 x 8 x 1280
    b3 = conv_bn(conv_bn(x, 192, 1, 1), 320, 3, 3, strides=2, padding="valid")
    b7 = conv_bn(conv_bn(conv_bn(x, 192, 1, 1), 192, 1, 7), 192, 7, 1)
    b7 = conv_bn(b7, 192, 3, 3, strides=2, padding="valid")
    bp = max_pool(x)
    x = net.add("mixed8", "concat", [b3, b7, bp])

    # mixed9, mixed10: 8 x 8 x 2048
    for i in range(2):
        b1 = conv_bn(x, 320, 1, 1)
        b3 = conv_bn(x, 384, 1, 1)
        b3 = net.add(f"mixed9_{i}", "concat", [conv_bn(b3, 384, 1, 3), conv_bn(b3, 384, 3, 1)])
        bd = conv_bn(conv_bn(x, 448, 1, 1), 384, 3, 3)
        bd = net.auto("concatenate", "concat", [conv_bn(bd, 384, 1, 3), conv_bn(bd, 384, 3, 1)])
        bp = conv_bn(avg_pool(x), 192, 1, 1)
        x = net.add(f"mixed{9 + i}", "concat", [b1, b3, bd, bp])

    x = net.add("avg_pool", "global_avgpool", [x])
    net.add("predictions", "dense", [x], units=num_classes)
    return net.document("inception_v3")

"""Inception-v4 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["inception_v4"]


def inception_v4(
    num_classes: int = 1000, input_shape: tuple[int, int, int] = (299, 299, 3)
) -> dict:
    """Inception-v4 (Szegedy et al. 2017, "Inception-v4, Inception-ResNet and the Impact of
    Residual Connections on Learning", Figures 3–9) exactly as timm's ``inception_v4`` builds
    it (a port of TF-slim's ``inception_v4``, the network of the authors' checkpoint).

    timm's module names with dots as underscores, in its creation order, channels last. Every
    convolution is timm's ``ConvNormAct``: conv without bias (padding 0 unless stated),
    batch norm (γ, β; ε = 0.001), ReLU — written ``<name>_conv``, ``<name>_bn``,
    ``<name>_act``:

    - stem ``features_0`` (3×3 / 2, 32), ``features_1`` (3×3, 32), ``features_2`` (3×3 pad 1,
      64); ``features_3`` Mixed3a: max pool 3×3 / 2 ‖ conv 3×3 / 2 96 → 160;
      ``features_4`` Mixed4a: (1×1 64, 3×3 96) ‖ (1×1 64, 1×7 64, 7×1 64, 3×3 96) → 192;
      ``features_5`` Mixed5a: conv 3×3 / 2 192 ‖ max pool 3×3 / 2 → 384 (35×35);
    - ``features_6``–``_9``: 4 × Inception-A (35×35×384); ``features_10`` Reduction-A
      (→ 17×17×1024); ``features_11``–``_17``: 7 × Inception-B; ``features_18`` Reduction-B
      (→ 8×8×1536); ``features_19``–``_21``: 3 × Inception-C (timm's branches, in the order
      of its ``forward``; ``_cat`` concatenates them; Inception-C's two inner pairs have
      their own ``_cat1`` / ``_cat2``);
    - ``global_pool`` (global average), ``last_linear`` (dense 1536 → ``num_classes``, with
      bias): the logits. timm's default ``drop_rate`` is 0: no dropout layer (the paper's
      keep probability 0.8 would add one dropout before ``last_linear``).

    The pooling branches of Inception-A/B/C are 3×3 / 1 average pools with padding 1
    (``count_include_pad=False``, which changes no count). With the defaults: 42,679,816
    trainable parameters and 12,253,974,624 forward MACs (timm's model card for
    ``inception_v4.tf_in1k``: 42.7 M parameters, 12.3 GMACs; OpenVINO's ``googlenet-v4-tf``,
    the TF-slim graph with 1,001 classes and β-only batch norm: 42.648 M, 24.584 GFLOPs);
    batch norm adds 2·C of running statistics per convolution (state, not counted by
    ``parameters()``). The paper itself states no parameter or operation count.

    Parameters
    ----------
    num_classes : int
        Units of ``last_linear``.
    input_shape : tuple of int
        Per-sample image shape (height, width, channels), channels last; 299×299 by default
        (the paper's).

    Returns
    -------
    dict
        The network document ``{"name": "inception_v4", "layers": [...]}``.
    """
    net = Layers()
    add = net.add

    def conv(
        name: str,
        x: str,
        filters: int,
        kernel: int | tuple[int, int],
        strides: int = 1,
        pad: int | tuple[int, int] = 0,
    ) -> str:
        k = list(kernel) if isinstance(kernel, tuple) else kernel
        p = list(pad) if isinstance(pad, tuple) else pad
        y = add(
            f"{name}_conv",
            "conv2d",
            [x],
            filters=filters,
            kernel_size=k,
            strides=strides,
            padding=p,
            use_bias=False,
        )
        y = add(f"{name}_bn", "batchnorm", [y])
        return add(f"{name}_act", "relu", [y])

    def chain(name: str, x: str, convs: list[tuple]) -> str:
        for i, spec in enumerate(convs):
            x = conv(f"{name}_{i}", x, *spec)
        return x

    def avg_branch(name: str, x: str, filters: int) -> str:
        y = add(f"{name}_0", "avgpool", [x], pool_size=3, strides=1, padding=1)
        return conv(f"{name}_1", y, filters, 1)

    def max_pool(name: str, x: str) -> str:
        return add(name, "maxpool", [x], pool_size=3, strides=2)

    r7, c7 = (1, 7), (7, 1)
    p7, q7 = (0, 3), (3, 0)
    x = net.input("image", input_shape)
    x = conv("features_0", x, 32, 3, 2)
    x = conv("features_1", x, 32, 3)
    x = conv("features_2", x, 64, 3, 1, 1)
    # Mixed3a: forward order max pool, then conv.
    x = add(
        "features_3_cat",
        "concat",
        [max_pool("features_3_maxpool", x), conv("features_3_conv", x, 96, 3, 2)],
    )
    b0 = chain("features_4_branch0", x, [(64, 1), (96, 3)])
    b1 = chain("features_4_branch1", x, [(64, 1), (64, r7, 1, p7), (64, c7, 1, q7), (96, 3)])
    x = add("features_4_cat", "concat", [b0, b1])
    x = add(
        "features_5_cat",
        "concat",
        [conv("features_5_conv", x, 192, 3, 2), max_pool("features_5_maxpool", x)],
    )
    for i in range(6, 10):  # Inception-A
        p = f"features_{i}"
        x = add(
            f"{p}_cat",
            "concat",
            [
                conv(f"{p}_branch0", x, 96, 1),
                chain(f"{p}_branch1", x, [(64, 1), (96, 3, 1, 1)]),
                chain(f"{p}_branch2", x, [(64, 1), (96, 3, 1, 1), (96, 3, 1, 1)]),
                avg_branch(f"{p}_branch3", x, 96),
            ],
        )
    p = "features_10"  # Reduction-A
    x = add(
        f"{p}_cat",
        "concat",
        [
            conv(f"{p}_branch0", x, 384, 3, 2),
            chain(f"{p}_branch1", x, [(192, 1), (224, 3, 1, 1), (256, 3, 2)]),
            max_pool(f"{p}_branch2", x),
        ],
    )
    for i in range(11, 18):  # Inception-B
        p = f"features_{i}"
        x = add(
            f"{p}_cat",
            "concat",
            [
                conv(f"{p}_branch0", x, 384, 1),
                chain(f"{p}_branch1", x, [(192, 1), (224, r7, 1, p7), (256, c7, 1, q7)]),
                chain(
                    f"{p}_branch2",
                    x,
                    [
                        (192, 1),
                        (192, c7, 1, q7),
                        (224, r7, 1, p7),
                        (224, c7, 1, q7),
                        (256, r7, 1, p7),
                    ],
                ),
                avg_branch(f"{p}_branch3", x, 128),
            ],
        )
    p = "features_18"  # Reduction-B
    x = add(
        f"{p}_cat",
        "concat",
        [
            chain(f"{p}_branch0", x, [(192, 1), (192, 3, 2)]),
            chain(f"{p}_branch1", x, [(256, 1), (256, r7, 1, p7), (320, c7, 1, q7), (320, 3, 2)]),
            max_pool(f"{p}_branch2", x),
        ],
    )
    for i in range(19, 22):  # Inception-C
        p = f"features_{i}"
        b0 = conv(f"{p}_branch0", x, 256, 1)
        b1 = conv(f"{p}_branch1_0", x, 384, 1)
        b1 = add(
            f"{p}_cat1",
            "concat",
            [
                conv(f"{p}_branch1_1a", b1, 256, (1, 3), 1, (0, 1)),
                conv(f"{p}_branch1_1b", b1, 256, (3, 1), 1, (1, 0)),
            ],
        )
        b2 = conv(f"{p}_branch2_0", x, 384, 1)
        b2 = conv(f"{p}_branch2_1", b2, 448, (3, 1), 1, (1, 0))
        b2 = conv(f"{p}_branch2_2", b2, 512, (1, 3), 1, (0, 1))
        b2 = add(
            f"{p}_cat2",
            "concat",
            [
                conv(f"{p}_branch2_3a", b2, 256, (1, 3), 1, (0, 1)),
                conv(f"{p}_branch2_3b", b2, 256, (3, 1), 1, (1, 0)),
            ],
        )
        b3 = avg_branch(f"{p}_branch3", x, 256)
        x = add(f"{p}_cat", "concat", [b0, b1, b2, b3])
    x = add("global_pool", "global_avgpool", [x])
    add("last_linear", "dense", [x], units=num_classes)
    return net.document("inception_v4")

"""Small helpers for builders that follow ``keras.applications`` layer by layer."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["correct_pad", "conv_output", "same_output", "stride2_padding"]


def correct_pad(size: tuple[int, ...], kernel_size: int) -> list[list[int]]:
    """Keras' ``imagenet_utils.correct_pad``: the zero padding before a stride-2 "valid"
    convolution that reproduces TensorFlow's "same" alignment.

    Parameters
    ----------
    size : tuple of int
        Spatial size (height, width) of the tensor to pad.
    kernel_size : int
        Square kernel size of the convolution that follows.

    Returns
    -------
    list
        ``[[top, bottom], [left, right]]``: ``kernel_size // 2`` on each side, one less on the
        top / left of an even dimension.
    """
    k = kernel_size // 2
    return [[k - (1 - n % 2), k] for n in size]


def conv_output(n: int, kernel_size: int, strides: int, padding: str | int = "valid") -> int:
    """One spatial output size of a convolution or pooling, by Keras' rules.

    ``padding`` is "same" (ceil(n / strides)), "valid", or the total number of zeros added
    on that axis (a folded ``zero_padding`` before a "valid" layer).
    """
    if padding == "same":
        return same_output(n, strides)
    pad = 0 if padding == "valid" else int(padding)
    return (n + pad - kernel_size) // strides + 1


def same_output(n: int, strides: int) -> int:
    """Output size of a "same"-padded layer: ceil(n / strides)."""
    return -(-n // strides)


def stride2_padding(
    net: Layers, name: str, x: str, size: tuple[int, ...], kernel_size: int
) -> tuple[str, tuple[int, ...]]:
    """Add the ``zero_padding`` layer ``name`` (:func:`correct_pad`) that Keras puts before a
    stride-2 "valid" layer of ``kernel_size`` reading ``x`` of spatial ``size``.

    Returns the padding layer's name and the spatial size after that stride-2 layer.
    """
    pad = correct_pad(size, kernel_size)
    x = net.add(name, "zero_padding", [x], padding=pad)
    return x, tuple(conv_output(n, kernel_size, 2, sum(p)) for n, p in zip(size, pad))

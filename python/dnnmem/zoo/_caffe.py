"""Helpers for builders of Caffe-era networks (GoogLeNet, NiN, SqueezeNet, OverFeat).

Caffe (and PyTorch's ``ceil_mode=True``) round a pooling's output size up, where the network
format follows Keras and rounds down. The rounding is written as explicit bottom / right zero
padding before a "valid" pooling: for a max pool that reads ReLU outputs (≥ 0) a zero in the
padding never wins, so the result is the same as Caffe's clipped window.
"""

from __future__ import annotations

__all__ = ["ceil_pool_padding", "lrn"]

from ._builder import Layers


def ceil_pool_padding(n: int, kernel: int, stride: int, pad: int = 0) -> list[list[int]]:
    """Explicit padding ``[[top, bottom], [left, right]]`` that makes a "valid" pooling of a
    square ``n``×``n`` map give Caffe's ceil-rounded output size.

    Caffe: ``out = ceil((n + 2·pad − kernel) / stride) + 1``, less one when the last window
    would start inside the right padding (``(out − 1)·stride ≥ n + pad``). The extra rows and
    columns go to the bottom and right, where Caffe's last window overhangs.

    >>> ceil_pool_padding(112, 3, 2)   # GoogLeNet pool1: 112 → 56 (floor rounding: 55)
    [[0, 1], [0, 1]]
    """
    out = -(-(n + 2 * pad - kernel) // stride) + 1
    if pad > 0 and (out - 1) * stride >= n + pad:
        out -= 1
    extra = (out - 1) * stride + kernel - (n + 2 * pad)
    return [[pad, pad + max(extra, 0)], [pad, pad + max(extra, 0)]]


def lrn(net: Layers, name: str, x: str) -> str:
    """Local response normalisation across channels (Caffe ``LRN``), written as a ``softmax``
    over the channel axis.

    The format has no LRN kind. A channel softmax is the nearest kind: one step, no weights,
    an output of the input's shape, a normalisation over channels, a backward that reads the
    output. Its FLOPs (5 forward, 4 backward per element) are below LRN's (a 5-channel sum of
    squares, a power and a divide, about 13 per element), and Caffe's LRN backward reads its
    input and its scale as well as its output.
    """
    return net.add(name, "softmax", [x])

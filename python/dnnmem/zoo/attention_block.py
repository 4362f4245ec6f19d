"""One multi-head attention block as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._blocks import attention
from ._builder import Layers

__all__ = ["mha_block"]


def mha_block(seq_len: int = 50, d_model: int = 512, heads: int = 8) -> dict:
    """Multi-head self-attention (Vaswani et al. 2017, "Attention Is All You Need", §3.2.2,
    Figure 2 right) on one sequence, with the base model's sizes: d_model 512, 8 heads of
    d_k = d_v = 64.

    Layers: ``x`` (float input [seq_len, d_model]: the block's input activations, no
    gradient), then ``_blocks.attention``: ``mha_q``, ``mha_k``, ``mha_v`` (dense d→d with
    bias), ``mha_qk`` (q·kᵀ per head, [heads, T, T]; the 1/√d_k scale folded into the
    softmax), ``mha_sm`` (softmax), ``mha_av`` (probabilities · v, heads merged back to
    [T, d]), ``mha_o`` (dense d→d): the output. As a training network the output gets the
    format's loss step; for inference (OnSRAM's use) only the forward steps matter.

    Assumptions (the OnSRAM paper gives no configuration): the base model's d_model and heads;
    ``seq_len`` 50, the zoo's ``transformer`` default (thesis Table 5.1); self-attention
    (queries, keys and values from one input); no mask, no dropout, no residual or layer
    norm (the module of Figure 2, not the encoder sub-layer). Parameters: 4·(d² + d) =
    1,050,624 with the defaults, as ``torch.nn.MultiheadAttention(512, 8)`` counts them
    (a fused 3d × d in-projection with bias and a d × d out-projection with bias). Forward
    MACs per sequence: 4·T·d² + 2·T²·d = 54,988,800 at T = 50.

    Parameters
    ----------
    seq_len : int
        Tokens T.
    d_model : int
        Model width d (divisible by ``heads``).
    heads : int
        Attention heads.

    Returns
    -------
    dict
        The network document ``{"name": "mha_block", "layers": [...]}``.
    """
    if d_model % heads:
        raise ValueError(f"d_model: must be divisible by heads={heads}, got {d_model}")
    net = Layers()
    x = net.input("x", [seq_len, d_model])
    attention(net, "mha", x, d_model, heads)
    return net.document("mha_block")

"""Sub-blocks shared by the Transformer builders (Transformer, BERT, GPT-2, ViT)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["attention", "mlp", "select_first_token"]


def attention(
    net: Layers,
    p: str,
    x: str,
    d: int,
    heads: int,
    memory: str | None = None,
    attn_dropout: float = 0.0,
) -> str:
    """Multi-head attention, queries from ``x`` ([T, d]), keys and values from ``memory``
    (``x`` itself, self-attention, by default); returns the output projection's name.

    Layers ``{p}_q``, ``_k``, ``_v`` (dense d→d, with bias), ``_qk`` (q·kᵀ per head, the
    1/√d_k scale and any causal mask folded into the softmax), ``_sm`` (softmax), optionally
    ``_sm_drop`` (dropout on the attention probabilities), ``_av`` (heads merged back to
    [T, d]) and ``_o`` (dense d→d). A fused q/k/v projection (GPT-2's ``c_attn``, d→3d) is
    written as three dense layers: the same parameters and FLOPs, three weight tensors.
    """
    add = net.add
    kv = x if memory is None else memory
    q = add(f"{p}_q", "dense", [x], units=d)
    k = add(f"{p}_k", "dense", [kv], units=d)
    v = add(f"{p}_v", "dense", [kv], units=d)
    qk = add(f"{p}_qk", "matmul", [q, k], heads=heads, transpose_b=True)
    sm = add(f"{p}_sm", "softmax", [qk])
    if attn_dropout > 0:
        sm = add(f"{p}_sm_drop", "dropout", [sm], rate=attn_dropout)
    av = add(f"{p}_av", "matmul", [sm, v], heads=heads, merge_heads=True)
    return add(f"{p}_o", "dense", [av], units=d)


def mlp(
    net: Layers,
    p: str,
    x: str,
    d: int,
    d_ff: int,
    dropout: float = 0.0,
    inner_dropout: bool = False,
) -> str:
    """Position-wise feed-forward: dense d→d_ff, GELU, [dropout], dense d_ff→d, [dropout].

    ``inner_dropout`` adds the dropout after the GELU (ViT's MlpBlock); the dropout after the
    second dense is added whenever ``dropout`` > 0. Returns the last layer's name.
    """
    add = net.add
    y = add(f"{p}_fc1", "dense", [x], units=d_ff)
    y = add(f"{p}_gelu", "gelu", [y])
    if inner_dropout and dropout > 0:
        y = add(f"{p}_fc1_drop", "dropout", [y], rate=dropout)
    y = add(f"{p}_fc2", "dense", [y], units=d)
    if dropout > 0:
        y = add(f"{p}_fc2_drop", "dropout", [y], rate=dropout)
    return y


def select_first_token(net: Layers, p: str, x: str, seq: int, d: int) -> str:
    """Stand-in for taking the first ([CLS] / class) token of ``x`` ([seq, d]) → [d].

    The format has no slice kind, so the row is replaced by the mean over the tokens: a folded
    reshape to [seq, 1, d] and a ``global_avgpool`` (``{p}_tokens``, ``{p}_pool``). Same shape
    and the same parameters downstream; it adds seq·d FLOPs per sample (one add per element)
    and reads the whole [seq, d] tensor where a slice reads one row. Its backward writes a
    full [seq, d] gradient, as PyTorch's ``select`` backward does (a zero tensor with one row).
    """
    t = net.add(f"{p}_tokens", "reshape", [x], target_shape=[seq, 1, d])
    return net.add(f"{p}_pool", "global_avgpool", [t])

"""GPT-2 small as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._blocks import attention, mlp
from ._builder import Layers

__all__ = ["gpt2"]

DROPOUT_RATE = 0.1  # resid_pdrop, embd_pdrop and attn_pdrop of GPT2Config


def gpt2(
    seq_len: int = 1024,
    layers: int = 12,
    d_model: int = 768,
    heads: int = 12,
    vocab: int = 50257,
    n_positions: int = 1024,
) -> dict:
    """GPT-2 small (Radford et al. 2019), laid out as Hugging Face's ``GPT2LMHeadModel``.

    Defaults: 12 layers, d_model 768, 12 heads, FFN 4·d_model = 3072, BPE vocabulary 50,257,
    1,024 positions (``transformers.GPT2Config()``); ``seq_len`` tokens per sample, 1,024 by
    default (the paper's context size, at which GPT-2 was trained).

    Layers, in HF's order:

    - int32 inputs ``input_ids`` and ``position_ids`` ([seq_len] each);
    - ``wte`` (vocab × d) and ``wpe`` (n_positions × d): ``embedding`` lookups, as HF's two
      ``nn.Embedding`` (the position table keeps all 1,024 rows whatever ``seq_len``);
      ``emb_add``, ``emb_drop``;
    - per block ``h{i}`` (i from 1), pre-LN: ``_ln1``, self-attention ``_att_*`` (HF's fused
      ``c_attn`` d→3d written as ``_att_q``/``_k``/``_v``: equal parameters and FLOPs; the
      causal mask and the 1/√d_k scale folded into ``_att_sm``; the full T×T scores are
      computed, as HF does; dropout ``_att_sm_drop`` on the probabilities), ``_att_o``
      (``c_proj``), ``_att_drop``, ``_att_add``; ``_ln2``, ``_mlp_fc1`` (``c_fc``, d→4d),
      ``_mlp_gelu`` (gelu_new, the tanh form SPEC's 8 FLOPs count), ``_mlp_fc2``, ``_mlp_fc2_drop``,
      ``_mlp_add``;
    - ``ln_f`` and ``lm_head``: dense d→vocab on every token, no bias, weights tied to ``wte``
      (one tensor ``wte``). Its output is the logits (SPEC §2).

    Parameters: 124,439,808 with the defaults, exactly HF's ``GPT2LMHeadModel`` (= its
    ``GPT2Model``: the head is tied). The attention ``bias``/``masked_bias`` buffers of older
    HF versions are constants, not parameters, and are not modelled.

    Parameters
    ----------
    seq_len : int
        Tokens per sample, at most ``n_positions``.
    layers, d_model, heads, vocab, n_positions : int
        The GPT2Config fields (n_layer, n_embd, n_head, vocab_size, n_positions).

    Returns
    -------
    dict
        The network document ``{"name": "gpt2", "layers": [...]}``.
    """
    if not 1 <= seq_len <= n_positions:
        raise ValueError(f"seq_len: must be from 1 to n_positions={n_positions}, got {seq_len}")
    net = Layers()
    add = net.add
    net.input("input_ids", [seq_len], dtype="int32")
    net.input("position_ids", [seq_len], dtype="int32")
    tok = add("wte", "embedding", ["input_ids"], input_dim=vocab, output_dim=d_model, weights="wte")
    pos = add("wpe", "embedding", ["position_ids"], input_dim=n_positions, output_dim=d_model)
    x = add("emb_add", "add", [tok, pos])
    x = add("emb_drop", "dropout", [x], rate=DROPOUT_RATE)

    for i in range(1, layers + 1):
        p = f"h{i}"
        y = add(f"{p}_ln1", "layernorm", [x])
        y = attention(net, f"{p}_att", y, d_model, heads, attn_dropout=DROPOUT_RATE)
        y = add(f"{p}_att_drop", "dropout", [y], rate=DROPOUT_RATE)
        x = add(f"{p}_att_add", "add", [y, x])
        y = add(f"{p}_ln2", "layernorm", [x])
        y = mlp(net, f"{p}_mlp", y, d_model, 4 * d_model, dropout=DROPOUT_RATE)
        x = add(f"{p}_mlp_add", "add", [x, y])

    x = add("ln_f", "layernorm", [x])
    add("lm_head", "dense", [x], units=vocab, use_bias=False, weights="wte")
    return net.document("gpt2")

"""T5 (v1.0) small and large as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from typing import Any

from ._builder import Layers

__all__ = ["t5_small", "t5_large"]

DROPOUT_RATE = 0.1  # T5Config.dropout_rate
BUCKETS = 32  # T5Config.relative_attention_num_buckets


def t5_small(src_len: int = 512, tgt_len: int = 128) -> dict:
    """T5-small (Raffel et al. 2020; Hugging Face ``t5-small``): 6 + 6 layers, d_model 512,
    d_ff 2048, 8 heads of d_kv 64, vocabulary 32,128. See :func:`_t5` for the layout.

    Parameters: 60,506,624, exactly ``T5ForConditionalGeneration`` for that config (the
    paper's "60 million").

    Parameters
    ----------
    src_len : int
        Encoder tokens per sample (512: T5's pre-training input length).
    tgt_len : int
        Decoder tokens per sample (128, assumed; see :func:`_t5`).

    Returns
    -------
    dict
        The network document ``{"name": "t5_small", "layers": [...]}``.
    """
    doc = _t5(src_len, tgt_len, layers=6, d_model=512, d_ff=2048, heads=8, d_kv=64)
    doc["name"] = "t5_small"
    return doc


def t5_large(src_len: int = 512, tgt_len: int = 128) -> dict:
    """T5-large (Raffel et al. 2020; Hugging Face ``t5-large``): 24 + 24 layers, d_model
    1024, d_ff 4096, 16 heads of d_kv 64, vocabulary 32,128. See :func:`_t5` for the layout.

    Parameters: 737,668,096, exactly ``T5ForConditionalGeneration`` for that config. The
    paper says "770 million", 4.5 % more; it does not say what it counts (one more
    32,128 × 1,024 matrix, an untied output layer, would give 770,566,144), so the Hugging
    Face count is the reference.

    Parameters
    ----------
    src_len : int
        Encoder tokens per sample (512: T5's pre-training input length).
    tgt_len : int
        Decoder tokens per sample (128, assumed; see :func:`_t5`).

    Returns
    -------
    dict
        The network document ``{"name": "t5_large", "layers": [...]}``.
    """
    doc = _t5(src_len, tgt_len, layers=24, d_model=1024, d_ff=4096, heads=16, d_kv=64)
    doc["name"] = "t5_large"
    return doc


def _t5(
    src_len: int,
    tgt_len: int,
    layers: int,
    d_model: int,
    d_ff: int,
    heads: int,
    d_kv: int,
    vocab: int = 32128,
) -> dict:
    """T5 v1.0 encoder-decoder laid out as Hugging Face's ``T5ForConditionalGeneration``.

    Layers, in HF's creation order (``src_len`` encoder tokens, ``tgt_len`` decoder tokens,
    teacher forcing):

    - int32 inputs ``input_ids`` [src_len], ``decoder_input_ids`` [tgt_len] and the
      relative-position bucket ids ``enc_rel_buckets`` [src_len, src_len] and
      ``dec_rel_buckets`` [tgt_len, tgt_len] (computed from positions, no weights);
    - ``enc_emb`` (``embedding`` on the shared table ``shared``, vocab × d), ``enc_drop``;
      ``enc_rel_bias`` (``embedding`` 32 buckets × heads on the bucket ids →
      [T, T, heads]) and ``enc_rel_bias_t`` (a folded reshape to [heads, T, T], standing in
      for HF's permute): computed once, in block 1, and added to every block's scores, as HF
      reuses ``position_bias``;
    - per encoder block ``enc{i}``: ``_sa_ln`` (T5's RMS layer norm: a ``layernorm`` with
      ``center: false``, the d scale weights), self-attention ``_sa_q``, ``_sa_k``, ``_sa_v``
      (dense d → heads·d_kv, no bias), ``_sa_qk`` (per head, [heads, T, T]; T5 has no
      1/√d_k scale), ``_sa_bias`` (add of the relative position bias), ``_sa_sm``,
      ``_sa_sm_drop`` (HF's dropout on the attention weights), ``_sa_av`` (heads merged),
      ``_sa_o`` (dense heads·d_kv → d, no bias), ``_sa_drop``, ``_sa_add`` (residual);
      ``_ff_ln``, ``_ff_wi`` (dense d → d_ff, no bias), ``_ff_relu``, ``_ff_drop1``,
      ``_ff_wo`` (d_ff → d, no bias), ``_ff_drop``, ``_ff_add``;
    - ``enc_final_ln``, ``enc_final_drop``: the encoder output;
    - ``dec_emb`` (the same ``shared`` table), ``dec_drop``, ``dec_rel_bias`` /
      ``dec_rel_bias_t`` (the decoder's own bucket table);
    - per decoder block ``dec{i}``: causal self-attention ``_sa_*`` as in the encoder (the
      causal mask folded into the softmax, as GPT-2's), cross-attention ``_ca_ln``,
      ``_ca_q`` (from the decoder), ``_ca_k``, ``_ca_v`` (from the encoder output), ``_ca_qk``,
      ``_ca_sm``, ``_ca_sm_drop``, ``_ca_av``, ``_ca_o``, ``_ca_drop``, ``_ca_add`` (no position
      bias: HF's cross-attention has none), then the feed-forward as in the encoder;
    - ``dec_final_ln``, ``dec_final_drop``, ``lm_head`` (dense d → vocab, no bias, tied to
      ``shared`` as in T5 v1.0; HF's d^-0.5 rescale before it is folded): the logits
      [tgt_len, vocab], the network output.

    Assumptions: ``src_len`` 512 (T5's pre-training input length) and ``tgt_len`` 128 (an
    assumption: span corruption of 512 tokens gives targets of about 114; the
    interleaved-gradient paper states no lengths); no padding mask; RMS norm counted as
    ``layernorm`` (5 forward FLOPs per element where RMS norm needs about 4); dropout 0.1
    (``T5Config.dropout_rate``) everywhere HF applies it.
    """
    for arg, value in (("src_len", src_len), ("tgt_len", tgt_len)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{arg}: must be a positive integer, got {value!r}")
    inner = heads * d_kv
    net = Layers()
    add = net.add
    net.input("input_ids", [src_len], dtype="int32")
    net.input("decoder_input_ids", [tgt_len], dtype="int32")
    net.input("enc_rel_buckets", [src_len, src_len], dtype="int32")
    net.input("dec_rel_buckets", [tgt_len, tgt_len], dtype="int32")

    def drop(name: str, x: str) -> str:
        return add(name, "dropout", [x], rate=DROPOUT_RATE)

    def rel_bias(p: str, buckets: str, T: int) -> str:
        b = add(f"{p}_rel_bias", "embedding", [buckets], input_dim=BUCKETS, output_dim=heads)
        return add(f"{p}_rel_bias_t", "reshape", [b], target_shape=[heads, T, T])

    def attention(p: str, x: str, kv: str, bias: str | None) -> str:
        q = add(f"{p}_q", "dense", [x], units=inner, use_bias=False)
        k = add(f"{p}_k", "dense", [kv], units=inner, use_bias=False)
        v = add(f"{p}_v", "dense", [kv], units=inner, use_bias=False)
        s = add(f"{p}_qk", "matmul", [q, k], heads=heads, transpose_b=True)
        if bias is not None:
            s = add(f"{p}_bias", "add", [s, bias])
        s = add(f"{p}_sm", "softmax", [s])
        s = drop(f"{p}_sm_drop", s)
        a = add(f"{p}_av", "matmul", [s, v], heads=heads, merge_heads=True)
        return add(f"{p}_o", "dense", [a], units=d_model, use_bias=False)

    def sublayer(p: str, x: str, body: Any) -> str:
        y = add(f"{p}_ln", "layernorm", [x], center=False)
        y = drop(f"{p}_drop", body(y))
        return add(f"{p}_add", "add", [x, y])

    def ffn(p: str, y: str) -> str:
        y = add(f"{p}_wi", "dense", [y], units=d_ff, use_bias=False)
        y = add(f"{p}_relu", "relu", [y])
        y = drop(f"{p}_drop1", y)
        return add(f"{p}_wo", "dense", [y], units=d_model, use_bias=False)

    x = add(
        "enc_emb", "embedding", ["input_ids"], input_dim=vocab, output_dim=d_model, weights="shared"
    )
    x = drop("enc_drop", x)
    bias = rel_bias("enc", "enc_rel_buckets", src_len)
    for i in range(1, layers + 1):
        p = f"enc{i}"
        x = sublayer(f"{p}_sa", x, lambda y, p=p: attention(f"{p}_sa", y, y, bias))
        x = sublayer(f"{p}_ff", x, lambda y, p=p: ffn(f"{p}_ff", y))
    x = add("enc_final_ln", "layernorm", [x], center=False)
    memory = drop("enc_final_drop", x)

    x = add(
        "dec_emb",
        "embedding",
        ["decoder_input_ids"],
        input_dim=vocab,
        output_dim=d_model,
        weights="shared",
    )
    x = drop("dec_drop", x)
    bias = rel_bias("dec", "dec_rel_buckets", tgt_len)
    for i in range(1, layers + 1):
        p = f"dec{i}"
        x = sublayer(f"{p}_sa", x, lambda y, p=p: attention(f"{p}_sa", y, y, bias))
        x = sublayer(f"{p}_ca", x, lambda y, p=p: attention(f"{p}_ca", y, memory, None))
        x = sublayer(f"{p}_ff", x, lambda y, p=p: ffn(f"{p}_ff", y))
    x = add("dec_final_ln", "layernorm", [x], center=False)
    x = drop("dec_final_drop", x)
    add("lm_head", "dense", [x], units=vocab, use_bias=False, weights="shared")
    return net.document("t5")

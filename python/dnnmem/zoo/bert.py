"""BERT-base as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._blocks import attention, mlp, select_first_token
from ._builder import Layers

__all__ = ["bert_base"]

DROPOUT_RATE = 0.1  # hidden_dropout_prob and attention_probs_dropout_prob of BertConfig


def bert_base(
    seq_len: int = 128,
    head: str = "classifier",
    num_labels: int = 2,
    layers: int = 12,
    d_model: int = 768,
    heads: int = 12,
    d_ff: int = 3072,
    vocab: int = 30522,
    max_positions: int = 512,
    type_vocab: int = 2,
) -> dict:
    """BERT-base after Devlin et al. 2019, laid out as Hugging Face's ``BertModel``.

    Defaults: 12 layers, d_model 768, 12 heads, FFN 3072, WordPiece vocabulary 30,522, 512
    positions, 2 token types (``transformers.BertConfig()``); ``seq_len`` tokens per sample
    (128 by default, the length of 90 % of the paper's pre-training steps; 512 is the rest).

    Layers, in HF's order:

    - int32 inputs ``input_ids``, ``token_type_ids``, ``position_ids`` ([seq_len] each);
    - ``emb_word`` (vocab × d), ``emb_pos`` (max_positions × d) and ``emb_type``
      (type_vocab × d): three ``embedding`` lookups, as HF's three ``nn.Embedding`` (position
      ids are an input, so the table has all 512 rows whatever ``seq_len``: the learned
      ``position_embedding`` kind would hold only seq_len rows); ``emb_add`` (their sum),
      ``emb_ln``, ``emb_drop``;
    - per layer ``l{i}`` (i from 1): self-attention ``_att_*`` (see ``_blocks.attention``;
      dropout on the attention probabilities as HF), ``_att_drop``, ``_att_add``, ``_att_ln``;
      ``_ffn_fc1`` (d→d_ff), ``_ffn_gelu``, ``_ffn_fc2``, ``_ffn_fc2_drop``, ``_ffn_add``,
      ``_ffn_ln`` (post-LN, as the paper and HF);
    - the head, which gives the training loss its logits (SPEC §2: the network output):

      ``head="classifier"`` (default): HF ``BertForSequenceClassification`` — the pooler
      (``pooler`` dense d→d on the [CLS] token, ``pooler_tanh``), ``cls_drop``,
      ``classifier`` (dense d→num_labels). The [CLS] row is selected by a token mean
      (``cls_tokens`` reshape + ``cls_pool``, see ``_blocks.select_first_token``): the
      pooler and classifier FLOPs are those of one row, plus seq_len·d FLOPs for the mean.
      Parameters: exactly HF's, 109,482,240 (``BertModel`` with pooler) + d·num_labels +
      num_labels = 109,483,778 with the defaults.

      ``head="mlm"``: the masked-LM head of ``BertForMaskedLM`` (no pooler) — ``mlm_dense``
      (d→d), ``mlm_gelu``, ``mlm_ln``, ``mlm_decoder`` (dense d→vocab on every token, weights
      tied to ``emb_word``). The format cannot write the decoder's own vocab-sized bias (a
      tied dense has no bias, and there is no bias kind), so this head has 30,522 parameters
      fewer than HF's ``BertForMaskedLM`` (109,514,298): 109,483,776, and seq_len·vocab FLOPs
      fewer per sample (the bias adds). Logits are computed for every token, as HF does
      (the loss then reads only the masked ones).

    Assumptions: GELU counted as SPEC's gelu (8 FLOPs per element, the tanh form; HF uses
    erf); every dense has a bias; the attention mask (padding) is not modelled (every token
    is real); the 1/√d_k scale is folded into the softmax; the embedding sum is one ``add``
    of three inputs.

    Parameters
    ----------
    seq_len : int
        Tokens per sample, at most ``max_positions``.
    head : str
        ``"classifier"`` or ``"mlm"`` (above).
    num_labels : int
        Classifier outputs (``head="classifier"``).
    layers, d_model, heads, d_ff, vocab, max_positions, type_vocab : int
        The BertConfig fields (num_hidden_layers, hidden_size, num_attention_heads,
        intermediate_size, vocab_size, max_position_embeddings, type_vocab_size).

    Returns
    -------
    dict
        The network document ``{"name": "bert_base", "layers": [...]}``.
    """
    if head not in ("classifier", "mlm"):
        raise ValueError(f"head: must be 'classifier' or 'mlm', got {head!r}")
    if not 1 <= seq_len <= max_positions:
        raise ValueError(f"seq_len: must be from 1 to max_positions={max_positions}, got {seq_len}")
    net = Layers()
    add = net.add
    for name in ("input_ids", "token_type_ids", "position_ids"):
        net.input(name, [seq_len], dtype="int32")
    word = add(
        "emb_word",
        "embedding",
        ["input_ids"],
        input_dim=vocab,
        output_dim=d_model,
        weights="word_embeddings",
    )
    pos = add("emb_pos", "embedding", ["position_ids"], input_dim=max_positions, output_dim=d_model)
    typ = add("emb_type", "embedding", ["token_type_ids"], input_dim=type_vocab, output_dim=d_model)
    x = add("emb_add", "add", [word, typ, pos])
    x = add("emb_ln", "layernorm", [x])
    x = add("emb_drop", "dropout", [x], rate=DROPOUT_RATE)

    for i in range(1, layers + 1):
        p = f"l{i}"
        y = attention(net, f"{p}_att", x, d_model, heads, attn_dropout=DROPOUT_RATE)
        y = add(f"{p}_att_drop", "dropout", [y], rate=DROPOUT_RATE)
        y = add(f"{p}_att_add", "add", [y, x])
        x = add(f"{p}_att_ln", "layernorm", [y])
        y = mlp(net, f"{p}_ffn", x, d_model, d_ff, dropout=DROPOUT_RATE)
        y = add(f"{p}_ffn_add", "add", [y, x])
        x = add(f"{p}_ffn_ln", "layernorm", [y])

    if head == "classifier":
        y = select_first_token(net, "cls", x, seq_len, d_model)
        y = add("pooler", "dense", [y], units=d_model)
        y = add("pooler_tanh", "tanh", [y])
        y = add("cls_drop", "dropout", [y], rate=DROPOUT_RATE)
        add("classifier", "dense", [y], units=num_labels)
    else:
        y = add("mlm_dense", "dense", [x], units=d_model)
        y = add("mlm_gelu", "gelu", [y])
        y = add("mlm_ln", "layernorm", [y])
        add("mlm_decoder", "dense", [y], units=vocab, use_bias=False, weights="word_embeddings")
    return net.document("bert_base")

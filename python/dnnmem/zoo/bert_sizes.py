"""BERT-large and TinyBERT: the ``bert_base`` layout at other sizes (``docs/networks.md``)."""

from __future__ import annotations

from .bert import bert_base

__all__ = ["bert_large", "bert_tiny"]


def bert_large(seq_len: int = 128, head: str = "classifier", num_labels: int = 2) -> dict:
    """BERT-large (Devlin et al. 2019: L = 24, H = 1024, A = 16, FFN 4096; "340M"
    parameters), laid out exactly as :func:`dnnmem.zoo.bert.bert_base` (Hugging Face's
    ``BertModel`` + a head; every layer, name and assumption as there).

    Parameters with the defaults: 335,141,888 (``BertModel`` with pooler, as
    ``transformers.BertModel(BertConfig(hidden_size=1024, num_hidden_layers=24,
    num_attention_heads=16, intermediate_size=4096))`` counts them) + 1,024·2 + 2 for the
    classifier = 335,143,938. The paper's "340M" is this count rounded (with a larger
    pre-training head). ``seq_len`` 128 as ``bert_base`` (the paper's 90 % pre-training
    length; the interleaved-gradient paper does not state one).

    Parameters
    ----------
    seq_len : int
        Tokens per sample (≤ 512).
    head : str
        ``"classifier"`` or ``"mlm"`` (see ``bert_base``).
    num_labels : int
        Classifier outputs.

    Returns
    -------
    dict
        The network document ``{"name": "bert_large", "layers": [...]}``.
    """
    doc = bert_base(
        seq_len=seq_len,
        head=head,
        num_labels=num_labels,
        layers=24,
        d_model=1024,
        heads=16,
        d_ff=4096,
    )
    doc["name"] = "bert_large"
    return doc


def bert_tiny(seq_len: int = 128, head: str = "classifier", num_labels: int = 2) -> dict:
    """TinyBERT-4 (Jiao et al. 2020, "TinyBERT: Distilling BERT for Natural Language
    Understanding": L = 4, d = 312, 12 heads, FFN 1200, BERT's 30,522-token vocabulary;
    "14.5M" parameters), laid out as :func:`dnnmem.zoo.bert.bert_base`.

    Why this one: the interleaved-gradient paper's Table 4 lists "BERT (large/tiny)" with
    340M / 14M parameters. 14M is TinyBERT-4's size; Google's "BERT-Tiny" (L = 2, H = 128,
    Turc et al. 2019) has 4.4M and does not match.

    Parameters with the defaults: 14,350,248 (``BertModel`` with pooler for that config, as
    transformers counts them) + 312·2 + 2 for the classifier = 14,350,874. ``seq_len`` 128.
    12 heads of 26 channels (TinyBERT's config; 312 / 12 = 26).

    Parameters
    ----------
    seq_len : int
        Tokens per sample (≤ 512).
    head : str
        ``"classifier"`` or ``"mlm"`` (see ``bert_base``).
    num_labels : int
        Classifier outputs.

    Returns
    -------
    dict
        The network document ``{"name": "bert_tiny", "layers": [...]}``.
    """
    doc = bert_base(
        seq_len=seq_len,
        head=head,
        num_labels=num_labels,
        layers=4,
        d_model=312,
        heads=12,
        d_ff=1200,
    )
    doc["name"] = "bert_tiny"
    return doc

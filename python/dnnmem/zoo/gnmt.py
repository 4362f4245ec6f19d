"""GNMT, an unrolled LSTM encoder-decoder with attention (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["gnmt", "gnmt_thesis"]


def gnmt(
    seq_len: int = 50,
    hidden: int = 1024,
    layers: int = 8,
    vocab: int = 32000,
    *,
    vocab_projection: bool = True,
) -> dict:
    """GNMT after Wu et al. 2016, "Google's Neural Machine Translation System", unrolled.

    The thesis's workload (Table 5.1: N = 32, H = 1024, T = 50; SPEC §9): its hand-written
    GNMT is not available, so this one follows the paper (§3–§4, Figures 1 and 3); every
    choice the paper leaves open is written here. Defaults: 8 encoder and 8 decoder layers,
    1024 LSTM units, source and target length 50, a shared 32,000-wordpiece vocabulary (the
    paper's 8k–32k range, its largest).

    Every LSTM layer is unrolled into ``seq_len`` ``lstm_cell`` layers that share one set of
    weights (``weights`` = the layer's name, so the gate FCs of step t read ``<layer>/W_i`` …
    ``<layer>/W_o``): the recurrent weight reuse of thesis §3.3.4 — one weight tensor read by
    T steps — is in the graph. Each cell takes [x, h, c] (its expansion is in
    ``docs/network-format.md``: concat of x and h, four gate FCs of ``hidden`` units with a
    bias, sigmoid / tanh, the cell update); the first step reads the input ``zero_state``
    ([1, hidden] of zeros, no gradient) as both h and c, so every step has the same weights.

    Graph (one sample; ``t`` from 1 to ``seq_len``; every per-step tensor is [1, width]):

    - Inputs: ``zero_state``, then per step the int32 token ids ``src{t}`` and ``tgt{t}``
      ([1] each: the unrolled graph reads one token per step; teacher forcing on the target).
    - Encoder embedding ``enc_emb{t}`` (a ``vocab`` × ``hidden`` table ``src_embedding``).
      Layer 1 is bidirectional: ``enc1f_{t}`` runs t = 1 … T, ``enc1b_{t}`` runs T … 1
      (separate weights ``enc1f`` and ``enc1b``), ``enc1_{t}`` concatenates both → 2·hidden
      (paper Fig. 3). Layers 2 … ``layers`` are unidirectional ``enc{l}_{t}``; from layer 3 on
      a residual ``enc{l}_res{t}`` adds the layer's input to its output (paper §3.1:
      "residual connections start from the layer third from the bottom").
    - ``enc_memory``: the top encoder outputs concatenated over time → [T, hidden].
      ``att_keys``: dense hidden→hidden without bias on the memory, once (Bahdanau's
      "memory layer", W₂·x_t of every source step, computed once as in TF's attention).
    - Decoder embedding ``dec_emb{t}`` (a separate table ``tgt_embedding``: the paper does not
      say the embeddings are shared). Decoder layer 1 ``dec1_{t}`` reads the embedding only.
    - Attention per decoder step, from the bottom decoder layer's output (paper §3, Fig. 1):
      ``att_q{t}`` (dense hidden→hidden, no bias, weights ``att_query`` shared by the steps),
      ``att_score{t}`` (matmul q·keysᵀ → [1, T]), ``att_sm{t}`` (softmax), ``att_ctx{t}``
      (matmul probabilities · memory → [1, hidden]: the values are the encoder outputs).
      This is a bilinear score in place of the paper's feed-forward (additive, Bahdanau)
      one, ``vᵀ·tanh(W₁·y + W₂·x_t)``: the format has no broadcasting add to write the tanh of
      [T, hidden] sums. Per decoder step the additive score costs T·hidden adds and T·hidden
      tanh more; its T·hidden MACs with ``v`` equal our query's matmul with the keys. The
      weights are the same two hidden × hidden matrices; the ``v`` vector (hidden
      parameters) is left out.
    - Decoder layers 2 … ``layers``: ``dec{l}_in{t}`` concatenates the layer's input with the
      attention context (paper: the context is "sent directly to all the remaining decoder
      layers") → 2·hidden, then the cell ``dec{l}_{t}``; residual ``dec{l}_res{t}`` from
      layer 3 on, as in the encoder.
    - ``dec_out``: the top decoder outputs concatenated over time → [T, hidden];
      ``softmax_proj``: dense hidden→vocab without bias (TF's GNMT output layer) → [T, vocab]
      logits, the one network output (the softmax is the loss step's, SPEC §2).

    Assumptions: zero initial states for encoder and decoder (MLPerf's GNMT reference; the
    paper does not say); one bias per gate (TF; PyTorch's LSTM has two, b_ih and b_hh);
    no dropout (the paper's 0.2–0.3 on En→Fr / En→De would add one tensor per cell input), no
    coverage penalty or length normalisation (inference only), no input feeding of the
    context to decoder layer 1. File order: the inputs, then the encoder step by step (per
    step: embedding, the forward cell; the backward cells after all forward ones), then the
    upper encoder layers and the decoder step by step (time-major: per step every layer) —
    the order a static unroll of TensorFlow's stacked cells creates them. The depth-first
    schedule (SPEC §3) runs the steps in this order too.

    Counts with the defaults: 276,631,552 parameters (embeddings 2 × 32,768,000, softmax
    projection 32,768,000, attention 2 × 1,048,576, LSTMs 176,230,400); forward per sample
    10,556,416,000 MACs in the gate FCs, attention and projection (the formula is in
    ``tests/python/test_zoo_sequence.py``) and 21,122,982,100 FLOPs in all. Each gate weight
    tensor is read by ``seq_len`` forward steps (and as many backward ones).

    Parameters
    ----------
    seq_len : int
        Source and target length T (tokens; equal, as Table 5.1 gives one T).
    hidden : int
        LSTM units of every layer (each direction of the bidirectional one), attention width
        and embedding width.
    layers : int
        Encoder layers (the first one bidirectional) and decoder layers, each ≥ 2 (with one
        decoder layer nothing would read the attention context).
    vocab : int
        Wordpiece vocabulary (source and target tables have this many rows each).
    vocab_projection : bool
        True (the default): ``softmax_proj`` maps the decoder outputs to ``vocab`` logits.
        False: no projection; the network output is ``dec_out`` ([T, hidden]).

    Returns
    -------
    dict
        The network document ``{"name": "gnmt", "layers": [...]}``.
    """
    for arg, value, low in (
        ("seq_len", seq_len, 1),
        ("hidden", hidden, 1),
        ("layers", layers, 2),
        ("vocab", vocab, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValueError(f"{arg}: must be an integer >= {low}, got {value!r}")
    if not isinstance(vocab_projection, bool):
        raise ValueError(f"vocab_projection: must be True or False, got {vocab_projection!r}")
    T = seq_len
    net = Layers()
    add = net.add
    zero = net.input("zero_state", [1, hidden])
    for t in range(1, T + 1):
        net.input(f"src{t}", [1], dtype="int32")
    for t in range(1, T + 1):
        net.input(f"tgt{t}", [1], dtype="int32")

    def cell(layer: str, t: int, x: str, prev: int | None) -> str:
        """Timestep t of LSTM layer ``layer`` on input x; prev is the previous step's t."""
        h, c = (zero, zero) if prev is None else (f"{layer}_{prev}", f"{layer}_{prev}/c")
        return add(f"{layer}_{t}", "lstm_cell", [x, h, c], units=hidden, weights=layer)

    # Encoder layer 1: embeddings and the forward direction step by step, then the backward.
    emb = {}
    for t in range(1, T + 1):
        emb[t] = add(
            f"enc_emb{t}",
            "embedding",
            [f"src{t}"],
            input_dim=vocab,
            output_dim=hidden,
            weights="src_embedding",
        )
        cell("enc1f", t, emb[t], t - 1 if t > 1 else None)
    for t in range(T, 0, -1):
        cell("enc1b", t, emb[t], t + 1 if t < T else None)

    # Upper encoder layers, time-major (per step every layer).
    top = {}
    for t in range(1, T + 1):
        x = add(f"enc1_{t}", "concat", [f"enc1f_{t}", f"enc1b_{t}"])
        for l in range(2, layers + 1):
            y = cell(f"enc{l}", t, x, t - 1 if t > 1 else None)
            x = add(f"enc{l}_res{t}", "add", [y, x]) if l >= 3 else y
        top[t] = x
    memory = (
        add("enc_memory", "concat", [top[t] for t in range(1, T + 1)], axis=0) if T > 1 else top[1]
    )
    keys = add("att_keys", "dense", [memory], units=hidden, use_bias=False)

    # Decoder, time-major; the attention of step t reads the bottom layer's step t.
    out = {}
    for t in range(1, T + 1):
        prev = t - 1 if t > 1 else None
        e = add(
            f"dec_emb{t}",
            "embedding",
            [f"tgt{t}"],
            input_dim=vocab,
            output_dim=hidden,
            weights="tgt_embedding",
        )
        x = cell("dec1", t, e, prev)
        q = add(f"att_q{t}", "dense", [x], units=hidden, use_bias=False, weights="att_query")
        s = add(f"att_score{t}", "matmul", [q, keys], transpose_b=True)
        s = add(f"att_sm{t}", "softmax", [s])
        ctx = add(f"att_ctx{t}", "matmul", [s, memory])
        for l in range(2, layers + 1):
            xin = add(f"dec{l}_in{t}", "concat", [x, ctx])
            y = cell(f"dec{l}", t, xin, prev)
            x = add(f"dec{l}_res{t}", "add", [y, x]) if l >= 3 else y
        out[t] = x
    y = add("dec_out", "concat", [out[t] for t in range(1, T + 1)], axis=0) if T > 1 else out[1]
    if vocab_projection:
        add("softmax_proj", "dense", [y], units=vocab, use_bias=False)
    return net.document("gnmt")


def gnmt_thesis(seq_len: int = 50) -> dict:
    """GNMT as the thesis's reading has it: :func:`gnmt` with 4 encoder and 4 decoder layers.

    Tsai, "A Performance Analytical Model for DNN Training with Focus on Memory Subsystem"
    (master's thesis, National Taiwan University, 2021), §5.1: "ResNet-50 [1], GNMT [13],
    Transformer [12] are all models included in MLPerf Training [26]". MLPerf Training's GNMT
    (its ``rnn_translator`` reference, "GNMT v2") has 4 encoder layers, the first one
    bidirectional, and 4 decoder layers of 1024 units, with the attention fed from the first
    decoder layer to all the others — :func:`gnmt`'s structure with ``layers=4`` in place of
    the paper's 8; Table 5.1's H = 1024 and T = 50 are its width and length. Everything else
    (vocabulary 32,000, separate embedding tables, the vocabulary projection) is
    :func:`gnmt`'s. The document is named ``gnmt_thesis``.

    Parameters
    ----------
    seq_len : int
        Source and target length T (Table 5.1: 50).

    Returns
    -------
    dict
        The network document ``{"name": "gnmt_thesis", "layers": [...]}``.
    """
    doc = gnmt(seq_len=seq_len, hidden=1024, layers=4)
    doc["name"] = "gnmt_thesis"
    return doc

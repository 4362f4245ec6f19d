"""The PTB word-level LSTM language model of Zaremba et al., unrolled (docs/network-format.md)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["ptb_lstm"]

# Zaremba, Sutskever & Vinyals 2014, "Recurrent Neural Network Regularization", §4.1:
# units per layer and dropout on the non-recurrent connections.
_SIZES = {"small": (200, 0.0), "medium": (650, 0.5), "large": (1500, 0.65)}


def ptb_lstm(size: str = "medium", seq_len: int = 35, layers: int = 2, vocab: int = 10000) -> dict:
    """Word-level LSTM language model on Penn Treebank (Zaremba et al. 2014, §4.1), unrolled
    over ``seq_len`` steps.

    Sizes (``size``): ``"medium"`` (default) — 2 layers of 650 units, dropout 0.5;
    ``"large"`` — 2 × 1500, dropout 0.65; ``"small"`` — 2 × 200, no dropout (the paper's
    non-regularised baseline, which it unrolls for 20 steps: pass ``seq_len=20``). Default
    35 unrolled steps (medium and large), a 10,000-word vocabulary, the
    embedding as wide as the LSTM, minibatch 20 in the paper (the batch is given at load).

    Layers (per step ``t`` from 1; every per-step tensor is [1, width]):

    - inputs ``state`` ([1, units]: the hidden and cell state carried over from the previous
      35-word segment — truncated back-propagation, so no gradient flows into it; one
      tensor stands for the 2·layers carried states) and int32 ``word{t}`` ([1]);
    - ``emb{t}`` (``embedding``, vocab × units, shared table ``embedding``), ``emb_drop{t}``;
    - per layer ``l``: ``lstm{l}_{t}`` (``lstm_cell`` on [x, h, c]; every step shares the
      weights ``lstm{l}``, so the recurrent weight reuse is in the graph), ``lstm{l}_drop{t}``
      (dropout on the non-recurrent output, the paper's Figure 2);
    - ``outputs``: the top layer's dropped outputs concatenated over time → [T, units];
      ``softmax`` (dense units → vocab, with bias) → [T, vocab] logits, the network output
      (the softmax and loss are the loss step's, SPEC §2).

    Assumptions: one bias per gate, as TensorFlow's PTB tutorial that reproduces the paper
    (Zaremba's Torch code has two, input-to-hidden and hidden-to-hidden: + 4·units per
    layer); no weight tying (the paper has none); with ``dropout`` 0 (small) no dropout
    layers. Parameters: vocab·units (embedding) + layers·4·(2·units·units + units) +
    units·vocab + vocab = 19,775,200 (medium), 66,022,000 (large) — Zaremba et al.'s medium
    and large models are listed as 20 M and 66 M parameters by Merity et al. 2018
    ("Regularizing and Optimizing LSTM Language Models", Table 1).

    Parameters
    ----------
    size : str
        ``"small"``, ``"medium"`` or ``"large"`` (above).
    seq_len : int
        Unrolled steps (35 in the paper).
    layers : int
        LSTM layers (2 in the paper).
    vocab : int
        Vocabulary (10,000 for PTB).

    Returns
    -------
    dict
        The network document ``{"name": "ptb_lstm", "layers": [...]}``.
    """
    if size not in _SIZES:
        raise ValueError(f"size: must be one of {', '.join(_SIZES)}, got {size!r}")
    for arg, value in (("seq_len", seq_len), ("layers", layers), ("vocab", vocab)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{arg}: must be a positive integer, got {value!r}")
    units, rate = _SIZES[size]
    net = Layers()
    add = net.add
    state = net.input("state", [1, units])
    for t in range(1, seq_len + 1):
        net.input(f"word{t}", [1], dtype="int32")

    def drop(name: str, x: str) -> str:
        return add(name, "dropout", [x], rate=rate) if rate > 0 else x

    top = []
    for t in range(1, seq_len + 1):
        x = add(
            f"emb{t}",
            "embedding",
            [f"word{t}"],
            input_dim=vocab,
            output_dim=units,
            weights="embedding",
        )
        x = drop(f"emb_drop{t}", x)
        for l in range(1, layers + 1):
            h, c = (state, state) if t == 1 else (f"lstm{l}_{t - 1}", f"lstm{l}_{t - 1}/c")
            x = add(f"lstm{l}_{t}", "lstm_cell", [x, h, c], units=units, weights=f"lstm{l}")
            x = drop(f"lstm{l}_drop{t}", x)
        top.append(x)
    y = add("outputs", "concat", top, axis=0) if seq_len > 1 else top[0]
    add("softmax", "dense", [y], units=vocab)
    return net.document("ptb_lstm")

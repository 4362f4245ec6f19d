"""NCF (NeuMF) and DLRM as dnnmem network documents (``docs/network-format.md``)."""

from __future__ import annotations

from ._builder import Layers

__all__ = ["ncf", "dlrm"]


def ncf(
    users: int = 6040,
    items: int = 3706,
    factors: int = 8,
    mlp_layers: tuple[int, ...] = (64, 32, 16, 8),
) -> dict:
    """NeuMF, the neural collaborative filtering model of He et al. 2017 ("Neural
    Collaborative Filtering", §3.4, Figure 3), for one (user, item) pair per sample.

    Defaults: MovieLens-1M as the paper's Table 1 counts it (6,040 users, 3,706 items) and the
    authors' released ``NeuMF.py`` defaults — ``factors`` 8 (GMF embedding width) and
    ``mlp_layers`` (64, 32, 16, 8): the MLP's input width (two embeddings of 32) followed by
    dense layers of 32, 16 and 8 units (the paper's "tower" of three hidden layers).
    MLPerf's NCF (MovieLens-20M) is ``ncf(users=138493, items=26744, factors=64,
    mlp_layers=(256, 256, 128, 64))``.

    Layers:

    - int32 inputs ``user`` and ``item`` ([1] each);
    - GMF: ``mf_user`` and ``mf_item`` (``embedding`` tables users × factors and
      items × factors), ``mf_product`` (element-wise ``multiply``, [1, factors]);
    - MLP: ``mlp_user`` and ``mlp_item`` (tables of width mlp_layers[0] / 2), ``mlp_concat``
      ([1, mlp_layers[0]]), then per hidden layer ``mlp_dense{i}`` (with bias) and
      ``mlp_relu{i}``;
    - ``neumf_concat`` (GMF and MLP outputs), ``prediction`` (dense → 1 unit, with bias): the
      network output.

    Assumptions: the paper's sigmoid on ``prediction`` and its log loss (binary
    cross-entropy) are the format's loss step on one logit (softmax cross-entropy: the same
    tensors read, a few FLOPs apart); negative sampling (4 negatives per positive in the
    paper) is in the data: a sample is one pair. Parameters:
    (users + items)·(factors + mlp_layers[0]) + the dense layers = 392,601 with the defaults
    (the paper prints no count; the interleaved-gradient paper's "3B" for NCF matches no
    published NCF configuration and is not reproduced).

    Parameters
    ----------
    users, items : int
        Rows of the user and item tables.
    factors : int
        GMF embedding width.
    mlp_layers : tuple of int
        MLP input width (even: two equal embeddings) and hidden layer widths.

    Returns
    -------
    dict
        The network document ``{"name": "ncf", "layers": [...]}``.
    """
    if len(mlp_layers) < 2 or mlp_layers[0] % 2:
        raise ValueError(
            "mlp_layers: must give an even input width and at least one hidden "
            f"layer, got {tuple(mlp_layers)}"
        )
    net = Layers()
    add = net.add
    net.input("user", [1], dtype="int32")
    net.input("item", [1], dtype="int32")
    mf_u = add("mf_user", "embedding", ["user"], input_dim=users, output_dim=factors)
    mf_i = add("mf_item", "embedding", ["item"], input_dim=items, output_dim=factors)
    gmf = add("mf_product", "multiply", [mf_u, mf_i])
    half = mlp_layers[0] // 2
    mlp_u = add("mlp_user", "embedding", ["user"], input_dim=users, output_dim=half)
    mlp_i = add("mlp_item", "embedding", ["item"], input_dim=items, output_dim=half)
    x = add("mlp_concat", "concat", [mlp_u, mlp_i])
    for i, units in enumerate(mlp_layers[1:], start=1):
        x = add(f"mlp_dense{i}", "dense", [x], units=units)
        x = add(f"mlp_relu{i}", "relu", [x])
    x = add("neumf_concat", "concat", [gmf, x])
    add("prediction", "dense", [x], units=1)
    return net.document("ncf")


# Rows of the 26 categorical tables. MLPerf's DLRM on Criteo Terabyte with row indices
# hashed to at most 40 M (the DLRM reference's --max-ind-range=40000000), and the DLRM
# reference's Criteo Kaggle configuration.
_TABLES = {
    "mlperf": [
        39884406,
        39043,
        17289,
        7420,
        20263,
        3,
        7120,
        1543,
        63,
        38532951,
        2953546,
        403346,
        10,
        2208,
        11938,
        155,
        4,
        976,
        14,
        39979771,
        25641295,
        39664984,
        585935,
        12972,
        108,
        36,
    ],
    "kaggle": [
        1460,
        583,
        10131227,
        2202608,
        305,
        24,
        12517,
        633,
        3,
        93145,
        5683,
        8351593,
        3194,
        27,
        14992,
        5461306,
        10,
        5652,
        2173,
        4,
        7046547,
        18,
        15,
        286181,
        105,
        142572,
    ],
}
# (embedding width, bottom MLP, top MLP hidden + output), as the DLRM reference code sets them.
_MLPS = {
    "mlperf": (128, (512, 256, 128), (1024, 1024, 512, 256, 1)),
    "kaggle": (16, (512, 256, 64, 16), (512, 256, 1)),
}


def dlrm(config: str = "mlperf") -> dict:
    """DLRM (Naumov et al. 2019, "Deep Learning Recommendation Model for Personalization and
    Recommendation Systems", Figure 1) with the dot-product interaction, one sample = 13
    dense features and one id per categorical table.

    ``config="mlperf"`` (default): MLPerf Training's DLRM on Criteo Terabyte — 26 tables of
    width 128 with rows capped at 40 M (``_TABLES``), bottom MLP 13-512-256-128, top MLP
    479-1024-1024-512-256-1: 187,767,399 rows × 128 = 24,034,227,072 embedding parameters
    + 2,368,897 MLP parameters = 24,036,595,969. The interleaved-gradient paper's Table 4
    prints "25B" for DLRM: MLPerf's model is the published DLRM of that size (Desai &
    Shrivastava, NeurIPS 2022, describe it as "100GB of embedding memory (25+Billion
    parameters)").

    ``config="kaggle"``: the Criteo Kaggle configuration of the DLRM reference code
    (facebookresearch/dlrm, ``dlrm_s_criteo_kaggle.sh``; the setting of the paper's §6
    comparison): width 16, bottom MLP 13-512-256-64-16, top MLP 367-512-256-1;
    33,762,577 rows × 16 = 540,201,232 embedding + 475,985 MLP parameters = 540,677,217
    (derived from the reference code's configuration; no exact published count).

    Layers:

    - ``dense_features`` ([13], float); int32 ``sparse{i}`` ([1]) for i = 1 … 26;
    - bottom MLP ``bot{j}`` (dense) + ``bot_relu{j}``;
    - ``emb{i}`` (``embedding``, rows × width, one lookup per sample: the table is read only
      at that row; its dW touches that row);
    - interaction: ``bot_row`` (a folded reshape of the bottom output to [1, width]),
      ``interact_in`` (concat of it and the 26 embeddings: [27, width]), ``interact``
      (matmul T·Tᵀ → [27, 27], the full product as the reference's ``bmm`` computes it),
      ``interact_tril`` (the 351 entries below the diagonal: an ``opaque`` gather of shape
      [351], 0 FLOPs, gradient passing through — the format has no index-select kind),
      ``top_in`` (concat of the bottom output and the 351 dots: [479] / [367]);
    - top MLP ``top{j}`` (dense) + ``top_relu{j}``, the last ``top{j}`` (1 unit) the output.

    Assumptions: the reference's sigmoid and binary cross-entropy are the format's loss step on
    one logit; one id per table per sample (Criteo's; the "sum" pooling of multi-hot bags is
    not modelled). The MLPerf tables hold 96 GB in FP32, more than any accelerator memory
    here: the network is written whole, not truncated — a sweep should read its
    ``traffic``, not expect the tables to fit; real systems shard them across devices or
    keep them in host memory.

    Parameters
    ----------
    config : str
        ``"mlperf"`` or ``"kaggle"`` (above).

    Returns
    -------
    dict
        The network document ``{"name": "dlrm", "layers": [...]}``.
    """
    if config not in _TABLES:
        raise ValueError(f"config: must be 'mlperf' or 'kaggle', got {config!r}")
    width, bottom, top = _MLPS[config]
    tables = _TABLES[config]
    net = Layers()
    add = net.add
    x = net.input("dense_features", [13])
    for i in range(1, len(tables) + 1):
        net.input(f"sparse{i}", [1], dtype="int32")
    for j, units in enumerate(bottom, start=1):
        x = add(f"bot{j}", "dense", [x], units=units)
        x = add(f"bot_relu{j}", "relu", [x])
    bot = x
    embs = [
        add(f"emb{i}", "embedding", [f"sparse{i}"], input_dim=rows, output_dim=width)
        for i, rows in enumerate(tables, start=1)
    ]
    row = add("bot_row", "reshape", [bot], target_shape=[1, width])
    t = add("interact_in", "concat", [row] + embs, axis=0)
    z = add("interact", "matmul", [t, t], transpose_b=True)
    n = len(tables) + 1
    z = add("interact_tril", "opaque", [z], shape=[n * (n - 1) // 2])
    x = add("top_in", "concat", [bot, z])
    for j, units in enumerate(top, start=1):
        x = add(f"top{j}", "dense", [x], units=units)
        if j < len(top):
            x = add(f"top_relu{j}", "relu", [x])
    return net.document("dlrm")

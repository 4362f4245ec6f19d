"""ViT-B/16 as a dnnmem network document (``docs/network-format.md``)."""

from __future__ import annotations

from ._blocks import attention, mlp, select_first_token
from ._builder import Layers

__all__ = ["vit_b16"]

DROPOUT_RATE = 0.1  # ViT paper, Table 3: ViT-B/16 trained on ImageNet with dropout 0.1


def vit_b16(
    image_size: int = 224,
    num_classes: int = 1000,
    patch: int = 16,
    layers: int = 12,
    d_model: int = 768,
    heads: int = 12,
    d_mlp: int = 3072,
    dropout: float = DROPOUT_RATE,
) -> dict:
    """ViT-B/16 after Dosovitskiy et al. 2021 ("An Image is Worth 16x16 Words").

    Defaults: 224×224×3 images (channels last), 16×16 patches (196 of them), 12 layers,
    d_model 768, 12 heads, MLP 3072, 1,000 classes — timm's ``vit_base_patch16_224``:
    86,567,656 parameters, which this document matches exactly.

    Layers, in the order of the reference implementation (``google-research/vision_transformer``
    ``models_vit.py``, which timm follows):

    - ``image`` input [224, 224, 3]; ``patch_embed``: conv2d 768 filters, 16×16, stride 16,
      with bias → [14, 14, 768]; ``patch_tokens``: reshape to [196, 768] (folded);
      ``cls_token`` (``class_token`` kind: a learned row prepended → [197, 768]);
      ``pos_embed`` (``position_embedding`` kind: a learned [197, 768] table added);
      ``pos_drop``;
    - per block ``b{i}`` (i from 1), pre-LN: ``_ln1``, self-attention ``_att_*`` (timm's
      fused qkv d→3d written as three dense layers: equal parameters and FLOPs; no attention
      dropout, as the paper), ``_att_drop``, ``_att_add``; ``_ln2``, ``_mlp_fc1``, ``_mlp_gelu``,
      ``_mlp_fc1_drop``, ``_mlp_fc2``, ``_mlp_fc2_drop``, ``_mlp_add``;
    - ``ln_f`` (final layernorm), the class-token selection, ``head`` (dense 768→1000).

    Assumptions:

    - Dropout ``dropout`` (0.1, the paper's ImageNet setting, Table 3; timm's default is 0)
      after the position embedding, after the attention projection and after each MLP dense
      (paper, Appendix B.1: "after every dense layer except for the qkv-projections and
      directly after adding positional- to patch embeddings"). ``dropout=0`` removes them.
    - Class-token selection: the format has no slice kind, so the head reads the mean over
      the 197 tokens (``cls_tokens`` reshape, folded, + ``cls_pool`` global average pool; see
      ``_blocks.select_first_token``). The parameters are unchanged (the class token is
      still a learned row); the head's FLOPs are those of one row, as in timm; the mean adds
      197·768 = 151,296 FLOPs per sample (forward), 0.0004 % of the forward total, and
      reads the whole [197, 768] output of ``ln_f`` instead of one row.
    - GELU counted as SPEC's gelu (8 FLOPs per element); the 1/√d_k scale folded into the
      softmax; no stochastic depth; the logits are the output (softmax in the loss step).

    Parameters
    ----------
    image_size : int
        Height and width of the (square) input image; a multiple of ``patch``.
    num_classes : int
        Units of ``head``.
    patch, layers, d_model, heads, d_mlp : int
        Patch size, encoder layers, width, attention heads, MLP width.
    dropout : float
        Dropout rate, in [0, 1); 0 writes no dropout layer.

    Returns
    -------
    dict
        The network document ``{"name": "vit_b16", "layers": [...]}``.
    """
    if image_size % patch:
        raise ValueError(f"image_size: {image_size} is not a multiple of patch={patch}")
    side = image_size // patch
    tokens = side * side + 1
    net = Layers()
    add = net.add
    net.input("image", [image_size, image_size, 3])
    x = add(
        "patch_embed",
        "conv2d",
        ["image"],
        filters=d_model,
        kernel_size=patch,
        strides=patch,
        padding="valid",
    )
    x = add("patch_tokens", "reshape", [x], target_shape=[side * side, d_model])
    x = add("cls_token", "class_token", [x])
    x = add("pos_embed", "position_embedding", [x])
    if dropout > 0:
        x = add("pos_drop", "dropout", [x], rate=dropout)

    for i in range(1, layers + 1):
        p = f"b{i}"
        y = add(f"{p}_ln1", "layernorm", [x])
        y = attention(net, f"{p}_att", y, d_model, heads)
        if dropout > 0:
            y = add(f"{p}_att_drop", "dropout", [y], rate=dropout)
        x = add(f"{p}_att_add", "add", [x, y])
        y = add(f"{p}_ln2", "layernorm", [x])
        y = mlp(net, f"{p}_mlp", y, d_model, d_mlp, dropout=dropout, inner_dropout=True)
        x = add(f"{p}_mlp_add", "add", [x, y])

    x = add("ln_f", "layernorm", [x])
    x = select_first_token(net, "cls", x, tokens, d_model)
    add("head", "dense", [x], units=num_classes)
    return net.document("vit_b16")

"""Built-in networks, by name: ``dnnmem.network("resnet50", batch=32)``.

Each network is defined once, by a builder returning the JSON document of
``docs/network-format.md``; batch and sequence length are parameters.
"""

from __future__ import annotations

import difflib
from typing import Any, Callable

from ..network import Network, load_network
from .attention_block import mha_block
from .bert import bert_base
from .bert_sizes import bert_large, bert_tiny
from .classic import nin, overfeat
from .densenet import densenet121
from .efficientnet import efficientnet_b0
from .faster_rcnn import faster_rcnn
from .gnmt import gnmt, gnmt_thesis
from .googlenet import googlenet
from .gpt2 import gpt2
from .inception import inception_v3
from .inception_v4 import inception_v4
from .lstm_lm import ptb_lstm
from .mobilenet import mobilenet_v1, mobilenet_v2
from .recommenders import dlrm, ncf
from .resnet import resnet50, resnet101
from .resnext import resnext50_32x4d
from .squeezenet import squeezenet
from .ssd import ssd300
from .t5 import t5_large, t5_small
from .torchvision_nets import alexnet, resnet18
from .transformer import transformer, transformer_thesis
from .vgg import vgg16
from .vit import vit_b16

__all__ = ["network", "networks", "network_document", "unknown_network_message"]

_BUILDERS: dict[str, Callable[..., dict]] = {
    "resnet50": resnet50,
    # keras.applications CNNs (docs/networks.md)
    "mobilenet_v1": mobilenet_v1,
    "mobilenet_v2": mobilenet_v2,
    "efficientnet_b0": efficientnet_b0,
    "densenet121": densenet121,
    "inception_v3": inception_v3,
    "resnet101": resnet101,
    "vgg16": vgg16,
    "transformer": transformer,
    "gnmt": gnmt,
    # the thesis's reading of its Table 5.1 workloads (dnnmem.thesis_reading())
    "gnmt_thesis": gnmt_thesis,
    "transformer_thesis": transformer_thesis,
    "bert_base": bert_base,
    "gpt2": gpt2,
    "vit_b16": vit_b16,
    "resnet18": resnet18,
    "alexnet": alexnet,
    # networks of the seed papers (docs/networks.md, "Networks of the seed papers")
    "googlenet": googlenet,
    "inception_v4": inception_v4,
    "squeezenet": squeezenet,
    "nin": nin,
    "overfeat": overfeat,
    "resnext50_32x4d": resnext50_32x4d,
    "ssd300": ssd300,
    "ptb_lstm": ptb_lstm,
    "mha_block": mha_block,
    "bert_large": bert_large,
    "bert_tiny": bert_tiny,
    "t5_small": t5_small,
    "t5_large": t5_large,
    "ncf": ncf,
    "dlrm": dlrm,
    "faster_rcnn": faster_rcnn,
}


def networks() -> list[str]:
    """Names of the built-in networks."""
    return sorted(_BUILDERS)


def unknown_network_message(name: str, files: bool = True) -> str:
    """``"'resnet5' is neither a file nor a built-in network (did you mean resnet50?); built-in
    networks: …"``: the closest built-in names (difflib) and all of them. ``files=False``:
    ``"unknown network 'resnet5' …"`` (where only built-in names are accepted)."""
    close = difflib.get_close_matches(name.lower(), networks(), n=3, cutoff=0.6)
    hint = ""
    if close:  # closest first
        hint = (
            f" (did you mean {', '.join(close[:-1])} or {close[-1]}?)"
            if len(close) > 1
            else f" (did you mean {close[0]}?)"
        )
    head = (
        f"{name!r} is neither a file nor a built-in network"
        if files
        else f"unknown network {name!r}"
    )
    return f"{head}{hint}; built-in networks: {', '.join(networks())}"


def network_document(name: str, **options: Any) -> dict:
    """The JSON document (a dict) of a built-in network; options go to its builder."""
    try:
        builder = _BUILDERS[name.lower()]
    except KeyError:
        raise ValueError(unknown_network_message(name, files=False)) from None
    return builder(**options)


def network(name: str, batch: int = 1, bytes_per_element: int = 4, **options: Any) -> Network:
    """A built-in network at a batch size.

    Parameters
    ----------
    name : str
        One of :func:`networks`.
    batch : int
        Mini-batch size.
    bytes_per_element : int
        4 for FP32 (the thesis), 2 for FP16 / BF16.
    **options
        Passed to the builder (e.g. ``seq_len=128`` for the transformer).
    """
    return load_network(
        network_document(name, **options), batch=batch, bytes_per_element=bytes_per_element
    )

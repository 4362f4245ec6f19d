"""Built-in networks, by name: ``dnnmem.network("resnet50", batch=32)``.

Each network is defined once, by a builder returning the JSON document of
``docs/network-format.md``; batch and sequence length are parameters.
"""

from __future__ import annotations

import difflib
import importlib
import os
from typing import TYPE_CHECKING, Any, Callable

from .._zoo_index import BUILDERS as _BUILDERS
from ..network import Network, load_network, shorten

if TYPE_CHECKING:  # the builders, for the type checker (imported on first use below)
    from .attention_block import mha_block as mha_block
    from .bert import bert_base as bert_base
    from .bert_sizes import bert_large as bert_large
    from .bert_sizes import bert_tiny as bert_tiny
    from .classic import nin as nin
    from .classic import overfeat as overfeat
    from .densenet import densenet121 as densenet121
    from .efficientnet import efficientnet_b0 as efficientnet_b0
    from .faster_rcnn import faster_rcnn as faster_rcnn
    from .gnmt import gnmt as gnmt
    from .gnmt import gnmt_thesis as gnmt_thesis
    from .googlenet import googlenet as googlenet
    from .gpt2 import gpt2 as gpt2
    from .inception import inception_v3 as inception_v3
    from .inception_v4 import inception_v4 as inception_v4
    from .lstm_lm import ptb_lstm as ptb_lstm
    from .mobilenet import mobilenet_v1 as mobilenet_v1
    from .mobilenet import mobilenet_v2 as mobilenet_v2
    from .recommenders import dlrm as dlrm
    from .recommenders import ncf as ncf
    from .resnet import resnet50 as resnet50
    from .resnet import resnet101 as resnet101
    from .resnext import resnext50_32x4d as resnext50_32x4d
    from .resnext import resnext50c32 as resnext50c32
    from .squeezenet import squeezenet as squeezenet
    from .ssd import ssd300 as ssd300
    from .t5 import t5_large as t5_large
    from .t5 import t5_small as t5_small
    from .torchvision_nets import alexnet as alexnet
    from .torchvision_nets import resnet18 as resnet18
    from .transformer import transformer as transformer
    from .transformer import transformer_thesis as transformer_thesis
    from .vgg import vgg16 as vgg16
    from .vit import vit_b16 as vit_b16

__all__ = ["network", "networks", "network_document", "unknown_network_message"]


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
    shown = shorten(name)
    head = (
        f"{shown} is neither a file nor a built-in network" if files else f"unknown network {shown}"
    )
    if not files and (name.lower().endswith(".json") or "/" in name or os.sep in name):
        hint = f" (a network file is read by dnnmem.load_network({shown}))"
    return f"{head}{hint}; built-in networks: {', '.join(networks())}"


def network_document(name: str, **options: Any) -> dict:
    """The JSON document (a dict) of a built-in network; options go to its builder."""
    try:
        module, function = _BUILDERS[name.lower()]
    except KeyError:
        raise ValueError(unknown_network_message(name, files=False)) from None
    return _load_builder(module, function)(**options)


def _load_builder(module: str, function: str) -> Callable[..., dict]:
    """Imports a builder's module on first use. Its builders are bound in this package under
    their names, over a module of the same name (``gnmt``), as an eager import would."""
    loaded = importlib.import_module(f".{module}", __name__)
    for m, f in _BUILDERS.values():
        if m == module:
            globals()[f] = getattr(loaded, f)
    builder: Callable[..., dict] = getattr(loaded, function)
    return builder


if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        """The builders by their function names (``dnnmem.zoo.resnet50``), on first use."""
        for module, function in _BUILDERS.values():
            if function == name:
                return _load_builder(module, function)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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

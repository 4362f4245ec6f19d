"""PyTorch modules → dnnmem network documents (``docs/importers.md``).

The module is captured with ``torch.export.export`` on example inputs (the ATen graph with
shapes: every node's ``meta["val"]`` is a fake tensor), and each ATen operator is mapped to the
kinds of ``docs/network-format.md``:

- The leading dimension of every tensor that depends on an input is the batch (a view that
  merges batch and sequence, as GPT-2's ``Conv1D`` does, is undone); shapes are per sample.
  4-D image tensors (NCHW in torch) become channels last (H, W, C).
- Views (view, reshape, permute, transpose, flatten, contiguous, expand, unsqueeze, …) move no
  data: they create no layer; where a consumer needs the viewed shape, a ``reshape`` layer
  (folded: no step, no tensor) is written.
- Tensors computed from constants only (attention masks, position ids from ``arange``) are not
  layers. A constant a layer reads as data (the position ids of an embedding) becomes an
  ``input`` layer.
- ``scaled_dot_product_attention`` becomes matmul (q·kᵀ), softmax, (dropout,) matmul (·v); the
  mask is folded into the softmax, as the zoo's transformer does.
- A softmax (or log-softmax) that produces a network output is dropped: the loss step applies it.
"""

from __future__ import annotations

import os
from typing import Any

from ..network import Network, load_network
from ._common import read_model_file
from ._torch_graph import _TorchImport

__all__ = ["from_torch"]


def from_torch(
    module: Any,
    example_inputs: Any = None,
    *,
    batch: int | None = None,
    strict: bool = True,
    document: bool = False,
    bytes_per_element: int = 4,
    example_kwargs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Network | dict[str, Any]:
    """Import a PyTorch module through ``torch.export``.

    Parameters
    ----------
    module : torch.nn.Module or torch.export.ExportedProgram or str or os.PathLike
        The module (exported on ``example_inputs``), an already exported program, or the
        path of a ``.pt2`` file written by ``torch.export.save``.
    example_inputs : tuple or torch.Tensor
        Positional example inputs (a single tensor is wrapped). The leading dimension of each
        tensor is the batch; shapes are taken from them.
    batch : int, optional
        Mini-batch size of the returned network (default: the examples' batch).
    strict : bool
        True: ATen operators the importer cannot map raise :class:`UnsupportedOperatorError`
        listing each operator and its nodes. False: they become zero-FLOP placeholders (kind
        ``opaque``) with an :class:`ImporterWarning`.
    document : bool
        True: return the JSON document (a dict) instead of a :class:`~dnnmem.Network`.
    bytes_per_element : int
        Element size of the returned network (4: FP32).
    example_kwargs : dict, optional
        Keyword example inputs (e.g. ``{"use_cache": False}`` for Hugging Face models).
    name : str, optional
        The document's name (default: the module's class name).

    Returns
    -------
    Network or dict
        The network (or its document).

    Raises
    ------
    ValueError
        No tensor input, a shape without the batch in front, a ``.pt`` file (it needs example
        inputs: export to ``.pt2``), or a shape the mapping cannot reconcile.
    UnsupportedOperatorError
        ``strict=True`` and some operators have no dnnmem kind.
    """
    import torch  # lazy: an optional dependency

    if isinstance(module, (str, os.PathLike)):
        path = os.fspath(module)
        if not path.lower().endswith(".pt2"):
            raise ValueError(
                f"{path}: only .pt2 files (torch.export.save) can be imported "
                "without example inputs; for a module, call from_torch(module, "
                "example_inputs)"
            )
        ep = read_model_file(
            path, "a torch.export program (.pt2)", torch.export.load, zip_archive=True
        )
        name = name or os.path.splitext(os.path.basename(path))[0]
    elif isinstance(module, torch.export.ExportedProgram):
        ep = module
        name = name or "exported_program"
    else:
        if example_inputs is None:
            raise ValueError("example_inputs: required to export a torch.nn.Module")
        if isinstance(example_inputs, torch.Tensor):
            example_inputs = (example_inputs,)
        ep = torch.export.export(module, tuple(example_inputs), kwargs=example_kwargs)
        name = name or type(module).__name__
    imp = _TorchImport(ep, name, strict)
    doc = imp.run()
    net = load_network(doc, batch=batch or imp.batch, bytes_per_element=bytes_per_element)
    _check_shapes(net, imp.shapes)
    return doc if document else net


def _check_shapes(net: Network, expected: dict[str, tuple[int, ...]]) -> None:
    """Every layer's shape as dnnmem infers it equals torch's (a mapping bug otherwise)."""
    for layer, shape in zip(net.layers["name"], net.layers["output_shape"]):
        if layer in expected and tuple(shape) != expected[layer]:
            raise ValueError(
                f"layer {layer!r}: dnnmem infers shape {tuple(shape)}, torch has "
                f"{expected[layer]} (an importer bug: please report)"
            )

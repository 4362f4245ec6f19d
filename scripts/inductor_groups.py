"""Record which operators PyTorch Inductor fuses in a training step (forward + backward).

This is how ``tests/data/inductor/*.json`` were made: the facts of a real compiler that
``docs/model/fusion.md`` compares dnnmem's ``pointwise`` fusion level with
(``tests/python/test_fusion_inductor.py`` reads them without torch).

For each network the script compiles one training step with ``torch.compile`` (Inductor, CPU),
and records, for the forward and the backward graph, Inductor's scheduler nodes after fusion
(what ``TORCH_COMPILE_DEBUG=1`` writes as ``ir_post_fusion.txt``): each loop nest with the ATen
operators it computes and the buffers it reads and writes, each library call (convolution,
matrix product) likewise. An operator is named by the module call it comes from — the module
path, the call's index (a module called twice, as torchvision's ``relu``, has calls 0 and 1)
and the operator before decomposition (``original_aten``) — so that the operators can be
matched with the layers ``dnnmem.importers.from_torch`` makes of the same module
(``layers`` in the JSON: each imported layer with the module call and operator it comes from).

Usage (one network at a time: a mid-size CNN compiles in 3–5 minutes on two cores)::

    python scripts/inductor_groups.py resnet18 -o tests/data/inductor/resnet18.json

The networks: ``resnet18``, ``resnet50``, ``mobilenet_v2`` (torchvision, batch 2, 224 × 224)
and ``bert_layer`` (one ``transformers`` BertLayer of BERT-base, batch 2, 128 tokens).
torchvision's model code is pure Python: where its compiled extension does not load (a
torchvision wheel built for another torch), its operator registrations are skipped.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import types
from pathlib import Path
from typing import Any

BATCH = 2


def _torchvision() -> Any:
    """torchvision, without its compiled operators if they do not load."""
    try:
        import torchvision
    except RuntimeError:  # built for another torch: its C++ operators are missing
        for name in [m for m in sys.modules if m.startswith("torchvision")]:
            del sys.modules[name]
        sys.modules["torchvision._meta_registrations"] = types.ModuleType(
            "torchvision._meta_registrations"
        )
        import torchvision
    return torchvision


def model(name: str) -> tuple[Any, tuple[Any, ...]]:
    """The module (in training mode) and its example input."""
    import torch

    torch.manual_seed(0)
    if name in ("resnet18", "resnet50", "mobilenet_v2"):
        models = _torchvision().models
        module = getattr(models, name)()
        return module.train(), (torch.randn(BATCH, 3, 224, 224),)
    if name == "bert_layer":
        try:  # transformers imports torchvision when it is installed: load it as above first
            _torchvision()
        except ImportError:
            pass
        from transformers import BertConfig
        from transformers.models.bert.modeling_bert import BertLayer

        config = BertConfig()  # BERT-base: 768 wide, 12 heads, 3072 in the MLP
        config.attn_implementation = "eager"
        config._attn_implementation = "eager"

        class Block(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.layer = BertLayer(config)

            def forward(self, x: Any) -> Any:
                out = self.layer(x)
                return out[0] if isinstance(out, tuple) else out

        return Block().train(), (torch.randn(BATCH, 128, config.hidden_size),)
    raise ValueError(f"unknown network {name!r}")


def _call_of(node: Any) -> tuple[str, int]:
    """(module path, index of the call) of an FX node; ('', 0) outside any module."""
    stack = node.meta.get("nn_module_stack") or node.meta.get("fwd_nn_module_stack") or {}
    if not stack:
        return ("", 0)
    key, (path, _) = list(stack.items())[-1]
    call = int(key.rsplit("@", 1)[1]) if "@" in key else 0
    path = path.replace("L['self'].", "").replace("L['self']", "")
    # Dynamo writes module paths as python expressions: layer1[0].conv1 -> layer1.0.conv1
    for a, b in (("['", "."), ("']", ""), ("[", "."), ("]", ""), ("_modules.", "")):
        path = path.replace(a, b)
    return (path.strip("."), call)


def _op_of(node: Any) -> str:
    """The operator before decomposition (aten.native_layer_norm, aten.relu, …)."""
    orig = node.meta.get("original_aten")
    target = orig if orig is not None else node.target
    op = str(getattr(target, "_overloadpacket", target)).replace("aten.", "")
    return op[:-1] if op.endswith("_") and not op.startswith("_") else op


# Operators that only re-index (or copy) a tensor: a buffer holding one holds its source.
LAYOUT = {
    "view",
    "_unsafe_view",
    "reshape",
    "transpose",
    "permute",
    "t",
    "expand",
    "clone",
    "squeeze",
    "unsqueeze",
    "contiguous",
    "alias",
}


def _describe(node: Any) -> str:
    """``module path|call|operator`` of an FX node; an item of a multi-output operator is
    ``operator[index]`` (convolution_backward[0] is dX, [1] dW). A view or copy is described
    as its source, with ``~`` in front of the operator (``fc|0|~addmm``)."""
    hops = 0
    while (
        getattr(node, "op", "") == "call_function"
        and str(getattr(node.target, "_overloadpacket", node.target)).replace("aten.", "") in LAYOUT
        and node.args
        and hasattr(node.args[0], "op")
        and node.args[0].op != "placeholder"
    ):
        node, hops = node.args[0], hops + 1
    mark = "~" if hops else ""
    if getattr(node, "target", None) is not None and "getitem" in str(node.target):
        src, index = node.args[0], node.args[1]
        path, call = _call_of(src)
        return f"{path}|{call}|{mark}{_op_of(src)}[{index}]"
    path, call = _call_of(node)
    return f"{path}|{call}|{mark}{_op_of(node)}"


def _buffers(graph: Any) -> dict[str, int]:
    """Elements of every buffer and graph input the scheduler nodes name."""
    out: dict[str, int] = {}
    for name, buf in getattr(graph, "name_to_buffer", {}).items():
        try:
            out[name] = int(buf.get_numel())
        except Exception:  # symbolic or unknown: left out
            pass
    for name, inp in getattr(graph, "graph_inputs", {}).items():  # type: ignore[assignment]
        try:
            out[name] = int(inp.get_numel())
        except Exception:
            pass
    return out


def capture(name: str) -> dict[str, Any]:
    """Compile one training step of `name` and record Inductor's fused nodes."""
    import torch
    import torch._inductor.debug as debug
    from torch._inductor.virtualized import V

    graphs: list[dict[str, Any]] = []
    original = debug.log_ir_post_fusion

    def record(nodes: Any) -> None:
        graph = V.graph
        sizes = _buffers(graph)
        position = {n: i for i, n in enumerate(graph.graph.nodes)}
        placeholders = {
            n.name: _describe_placeholder(n) for n in graph.graph.nodes if n.op == "placeholder"
        }
        output = next(n for n in graph.graph.nodes if n.op == "output").args[0]
        outputs = [
            {"name": a.name, "value": _describe(a), "shape": _describe_placeholder(a)}
            for a in output
            if hasattr(a, "name")
        ]
        entries = []
        for node in nodes:
            nests = []
            for sub in node.get_nodes():
                ir = getattr(sub, "node", None)
                origins = sorted(getattr(ir, "origins", ()) or (), key=lambda o: o.name)
                extern = type(sub).__name__.startswith("ExternKernel")
                if extern:  # an extern node's origins also list its inputs' ops: keep its own
                    kernel = getattr(ir, "python_kernel_name", "") or ""
                    own = [o for o in origins if o.op == "call_function" and _op_of(o) in kernel]
                    origin_node = getattr(ir, "origin_node", None)
                    origins = own or ([origin_node] if origin_node is not None else origins)
                # What each buffer holds: the operator whose value it stores (its origin
                # node, else the latest of the operators computed into it).
                held = {}
                for out in sub.get_outputs():
                    origin = getattr(out.node, "origin_node", None)
                    if origin is None:
                        mine = [
                            o for o in (getattr(out.node, "origins", ()) or ()) if o in position
                        ]
                        origin = max(mine, key=position.__getitem__) if mine else None
                    held[out.get_name()] = _describe(origin) if origin is not None else ""
                nests.append(
                    {
                        "name": sub.get_name(),
                        "extern": extern,
                        "holds": held,
                        "ops": sorted({_describe(o) for o in origins}),
                        "reads": sorted({d.name for d in sub.read_writes.reads}),
                        "writes": sorted({d.name for d in sub.read_writes.writes}),
                    }
                )
            entries.append({"node": node.get_name(), "type": type(node).__name__, "nests": nests})
        graphs.append(
            {
                "inputs": placeholders,
                "outputs": outputs,
                "buffers": dict(sorted(sizes.items())),
                "nodes": entries,
            }
        )
        original(nodes)

    debug.log_ir_post_fusion = record
    # A cached compilation skips the scheduler (and so the record): compile afresh.
    torch._inductor.config.fx_graph_cache = False
    torch._functorch.config.enable_autograd_cache = False
    try:
        module, example = model(name)
        compiled = torch.compile(module)
        out = compiled(*example)
        out.float().sum().backward()
    finally:
        debug.log_ir_post_fusion = original
    bwd = [g for g in graphs if any(k.startswith("tangents") for k in g["inputs"])]
    fwd = [g for g in graphs if not any(k.startswith("tangents") for k in g["inputs"])]
    return {"forward": fwd[-1] if fwd else None, "backward": bwd[-1] if bwd else None}


def _describe_placeholder(node: Any) -> list[int]:
    val = node.meta.get("val")
    return [int(d) for d in getattr(val, "shape", ())]


def imported_layers(name: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The layers dnnmem's torch importer makes of the same module, each with the module call
    and operator it comes from (recorded by wrapping the importer's emit), and the network
    document it writes."""
    import torch

    from dnnmem.importers import _torch_graph

    module, example = model(name)
    exported = torch.export.export(module, example)
    made: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    call = _torch_graph._TorchImport.call
    activation_module = _torch_graph._TorchImport.activation_module

    def call_recorded(self: Any, node: Any) -> None:
        current["node"] = node
        call(self, node)

    def activation_module_recorded(self: Any, first: Any, kind: str, run: list[Any]) -> None:
        current["node"] = run[-1]
        activation_module(self, first, kind, run)

    emit = _torch_graph._TorchImport.emit

    def emit_recorded(self: Any, layer: str, kind: str, inputs: Any, *a: Any, **k: Any) -> Any:
        node = current.get("node")
        made.append(
            {
                "name": layer,
                "kind": kind,
                "inputs": list(inputs),
                "op": _describe(node) if node is not None else "",
            }
        )
        return emit(self, layer, kind, inputs, *a, **k)

    _torch_graph._TorchImport.call = call_recorded  # type: ignore[method-assign]
    _torch_graph._TorchImport.activation_module = activation_module_recorded  # type: ignore[method-assign]
    _torch_graph._TorchImport.emit = emit_recorded  # type: ignore[method-assign]
    try:
        from dnnmem.importers.torch import from_torch

        document = from_torch(exported, document=True)
    finally:
        _torch_graph._TorchImport.call = call  # type: ignore[method-assign]
        _torch_graph._TorchImport.activation_module = activation_module  # type: ignore[method-assign]
        _torch_graph._TorchImport.emit = emit  # type: ignore[method-assign]
    assert isinstance(document, dict)
    return made, document


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("network", choices=["resnet18", "resnet50", "mobilenet_v2", "bert_layer"])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument(
        "--import-only",
        action="store_true",
        help="only (re)write the imported layers and document of an existing file (no compile)",
    )
    args = parser.parse_args(argv)
    import torch

    layers, document = imported_layers(args.network)
    if args.import_only:
        result = json.loads(args.output.read_text())
        result.update(layers=layers, document=document)
    else:
        result = {
            "network": args.network,
            "batch": BATCH,
            "torch": torch.__version__,
            "python": platform.python_version(),
            "command": f"python scripts/inductor_groups.py {args.network} -o {args.output}",
            "device": "cpu",
            "layers": layers,
            "document": document,
            **capture(args.network),
        }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main()

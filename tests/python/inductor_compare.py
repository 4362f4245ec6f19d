"""dnnmem's ``pointwise`` fusion against PyTorch Inductor, layer by layer, from the compiler's
facts kept in ``tests/data/inductor/*.json`` (written by ``scripts/inductor_groups.py``; no
torch needed here).

For every layer of the network as ``dnnmem.importers.from_torch`` imports it (the JSON's
``layers``), three facts are compared:

- **written**: the forward pass writes the layer's output, or its mask, to memory (Inductor: a
  buffer of the forward graph holds it; dnnmem: the fused forward step writes ``Y:<layer>`` or
  ``M:<layer>``);
- **saved**: the forward pass hands the output, or its mask, to the backward pass (Inductor: an
  output of the forward graph, a view of it, or a ``y <= 0`` / dropout mask; dnnmem: a backward
  step reads ``Y:<layer>`` or ``M:<layer>``);
- **gradient written**: the backward pass writes the gradient of the layer's output (Inductor:
  a buffer of the backward graph holds it; dnnmem: a backward step writes the layer's dY).
  Gradients shared through a residual add (one tensor in dnnmem, a sum in Inductor that no
  module owns) are left out: the add's inputs and the add.

Run as a script, it prints the tables of docs/model/fusion.md ("Checked against Inductor").
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

import dnnmem

DATA = Path(
    os.environ.get(
        "DNNMEM_INDUCTOR_DATA", Path(__file__).resolve().parents[1] / "data" / "inductor"
    )
)
NETWORKS = ("resnet18", "resnet50", "mobilenet_v2", "bert_layer")

# An operator's family: the importer's spelling and Inductor's (after decomposition) meet here.
FAMILY = {
    "conv2d": "conv",
    "convolution": "conv",
    "linear": "linear",
    "addmm": "linear",
    "mm": "linear",
    "batch_norm": "bn",
    "_native_batch_norm_legit_functional": "bn",
    "relu": "relu",
    "hardtanh": "relu6",
    "add": "add",
    "max_pool2d": "maxpool",
    "max_pool2d_with_indices": "maxpool",
    "adaptive_avg_pool2d": "mean",
    "mean": "mean",
    "layer_norm": "ln",
    "native_layer_norm": "ln",
    "gelu": "gelu",
    "dropout": "dropout",
    "native_dropout": "dropout",
    "softmax": "softmax",
    "_softmax": "softmax",
    "_safe_softmax": "softmax",
    "matmul": "matmul",
    "bmm": "matmul",
    "mul": "mul",
}
# Backward operators, and the gradient they compute: that of their layer's input.
BACKWARD = {
    "threshold_backward",
    "native_batch_norm_backward",
    "native_layer_norm_backward",
    "native_dropout_backward",
    "gelu_backward",
    "_softmax_backward_data",
    "max_pool2d_with_indices_backward",
    "hardtanh_backward",
    "avg_pool2d_backward",
}
EXTERN = {"convolution_backward", "mm", "bmm", "addmm"}
LAYOUT = {"clone", "view", "expand", "transpose", "permute", "_unsafe_view", "t"}


def load(name: str) -> dict[str, Any]:
    """The compiler's facts for one network."""
    return json.loads((DATA / f"{name}.json").read_text())


def _parse(desc: str) -> tuple[str, int, str, int | None]:
    """``path|call|op[index]`` -> (path, call, op, index); a view's ``~`` is dropped."""
    path, call, op = desc.split("|")
    op = op.lstrip("~")
    index = None
    if op.endswith("]"):
        op, _, rest = op.partition("[")
        index = int(rest[:-1])
    return path, int(call), op, index


class _Layers:
    """The imported layers, found by the module call and operator family they come from."""

    def __init__(self, facts: dict[str, Any]) -> None:
        self.layers = [x for x in facts["layers"] if x["kind"] not in ("reshape", "flatten")]
        self.by_call: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for x in self.layers:
            path, call, op, _ = _parse(x["op"])
            x["family"] = FAMILY.get(op, op)
            self.by_call.setdefault((path, call), []).append(x)
        self.folded = {x["name"]: x for x in facts["layers"] if x["kind"] in ("reshape", "flatten")}
        self._pathless: dict[str, int] = {}

    def find(self, path: str, call: int, op: str) -> dict[str, Any] | None:
        family = FAMILY.get(op, op)
        if path:
            found = self.by_call.get((path, call), [])
            same = [x for x in found if x["family"] == family]
            return same[0] if len(same) == 1 else (found[0] if len(found) == 1 else None)
        return None

    def resolve(self, name: str) -> str:
        while name in self.folded:
            name = self.folded[name]["inputs"][0]
        return name


def inductor_facts(name: str) -> dict[str, dict[str, bool]]:
    """Per layer: written, saved, gradient written, as Inductor compiles it."""
    facts = load(name)
    layers = _Layers(facts)
    net = _network(name)
    numel = {
        x: int(b) // net.bytes_per_element
        for x, b in zip(net.layers["name"], net.layers["output_bytes"])
    }
    out = {x["name"]: {"written": False, "saved": False, "gradient": False} for x in layers.layers}
    fwd, bwd = facts["forward"], facts["backward"]
    taken: set[tuple[str, str]] = set()  # (graph, layer) matched by an operator outside modules

    def match(desc: str, elements: int | None, graph: str) -> dict[str, Any] | None:
        path, call, op, index = _parse(desc)
        if index not in (None, 0):
            return None
        if path == "":  # an operator outside any module call: the next layer of its family
            family = FAMILY.get(op, op)
            for x in layers.layers:
                if x["family"] != family or (graph, x["name"]) in taken:
                    continue
                if elements is not None and numel[x["name"]] != elements:
                    continue
                taken.add((graph, x["name"]))
                return x
            return None
        found = layers.find(path, call, op)
        if found is not None and elements is not None and numel[found["name"]] != elements:
            return None
        return found

    for node in fwd["nodes"]:
        for nest in node["nests"]:
            for buf, desc in nest["holds"].items():
                # (a buffer holding a view, "~", is a layout copy, not the layer's output)
                if not desc or "~" in desc or _parse(desc)[2].startswith("primals"):
                    continue
                x = match(desc, fwd["buffers"].get(buf), "f")
                if x is not None:
                    out[x["name"]]["written"] = True
    for o in fwd["outputs"][1:]:  # the first is the network's output; the rest are saved
        elements = 1
        for d in o["shape"]:
            elements *= int(d)
        if not o["value"] or _parse(o["value"])[2].startswith("primals"):
            continue
        mask = o["name"].startswith(("le", "gt"))  # y <= 0, a dropout's draw: bool masks
        x = match(o["value"], None if mask else elements, "s")
        if x is not None:
            out[x["name"]]["saved"] = True
    for node in bwd["nodes"]:
        for nest in node["nests"]:
            for buf, desc in nest["holds"].items():
                if not desc:
                    continue
                path, call, op, index = _parse(desc)
                x = layers.find(path, call, op) if path else None
                if x is None:
                    continue
                elements = bwd["buffers"].get(buf)
                if nest["extern"] and op in EXTERN and index in (None, 0):
                    target = [layers.resolve(i) for i in x["inputs"]]  # dX: the input's gradient
                elif not nest["extern"] and op in EXTERN:
                    target = [x["name"]]  # the input of x's backward product: x's dY
                elif op in BACKWARD:
                    target = [layers.resolve(i) for i in x["inputs"]]
                else:
                    continue
                for t in target:
                    if t in out and numel.get(t) == elements:
                        out[t]["gradient"] = True
    return out


def _network(name: str) -> dnnmem.Network:
    facts = load(name)
    return dnnmem.load_network(facts["document"], batch=facts["batch"])


def dnnmem_facts(name: str, level: str = "pointwise") -> dict[str, dict[str, bool]]:
    """Per layer: written, saved, gradient written, in dnnmem's fused schedule."""
    base = _network(name)
    net = base.with_fusion(level)
    acc = net.accesses
    phase = net.steps["phase"].to_numpy()[acc["step"].to_numpy()]
    written = set(acc.loc[acc["write"] & (phase == "fwd"), "tensor"])
    written |= {f"Y:{t[2:]}" for t in written if t.startswith("M:")}  # a mask stands for Y
    saved = set(acc.loc[acc["read"] & (phase == "bwd"), "tensor"])
    saved |= {f"Y:{t[2:]}" for t in written if t.startswith("M:")}
    grads = set(acc.loc[acc["write"] & (phase == "bwd"), "tensor"])
    # Each layer's gradient tensor: what its unfused backward step reads first.
    ua = base.accesses
    first = ua.drop_duplicates("step").set_index("step")["tensor"]
    steps = base.steps
    dy = {
        layer: first.get(step)
        for layer, step, p in zip(steps["layer"], steps["step"], steps["phase"])
        if p == "bwd"
    }
    kinds = dict(zip(base.layers["name"], base.layers["kind"]))
    out = {}
    for layer, kind in kinds.items():
        if kind in ("input", "reshape", "flatten"):
            continue
        out[layer] = {
            "written": f"Y:{layer}" in written,
            "saved": f"Y:{layer}" in saved,
            "gradient": dy.get(layer) in grads if kind != "add" else False,
        }
    return out


def compare(name: str) -> list[dict[str, Any]]:
    """One row per layer and fact where the two differ, and the totals."""
    ind, dnn = inductor_facts(name), dnnmem_facts(name)
    facts = load(name)
    kinds = {x["name"]: x["kind"] for x in facts["layers"]}
    layers = _Layers(facts)
    shared = {
        layers.resolve(i) for x in facts["layers"] if x["kind"] == "add" for i in x["inputs"]
    } | {x["name"] for x in facts["layers"] if x["kind"] == "add"}
    rows = []
    for layer in dnn:
        for fact in ("written", "saved", "gradient"):
            if fact == "gradient" and layer in shared:
                continue
            rows.append(
                {
                    "network": name,
                    "layer": layer,
                    "kind": kinds[layer],
                    "fact": fact,
                    "inductor": ind.get(layer, {}).get(fact, False),
                    "dnnmem": dnn[layer][fact],
                }
            )
    return rows


if __name__ == "__main__":  # the page's tables
    for n in NETWORKS:
        if (DATA / f"{n}.json").exists():
            rows = compare(n)
            same = sum(r["inductor"] == r["dnnmem"] for r in rows)
            print(n, f"{same}/{len(rows)}")
            diff = Counter(
                (r["kind"], r["fact"], r["inductor"], r["dnnmem"])
                for r in rows
                if r["inductor"] != r["dnnmem"]
            )
            for k, v in diff.most_common():
                print("   ", v, k)

"""The fusion stage in plain Python, from docs/model/fusion.md alone (not from the C++ code),
for the tests to compare with what the core builds.

    steps = fused_steps(net, "pointwise")   # net: any scheduler, fusion none
    # [(phase, layers, part, [(tensor, read, write, partial, bytes), ...]), ...]

It takes the unfused schedule (its steps and accesses, as oracle_schedulers.default_steps reads
them) and the network's layers, forms the groups of the page's "Which layers join", settles the
backward reads of "What the backward pass reads", and merges each group's steps as "The fused
step" says.
"""

from __future__ import annotations

from typing import Any

from oracle_schedulers import Access, default_steps

PRODUCT = {"conv2d", "depthwise_conv2d", "dense", "matmul"}
GATHER = {"embedding"}
POINTWISE = {
    "relu",
    "relu6",
    "leaky_relu",
    "gelu",
    "sigmoid",
    "tanh",
    "swish",
    "hard_swish",
    "hard_sigmoid",
    "mish",
    "dropout",
    "add",
    "multiply",
    "rescaling",
    "normalization",
    "position_embedding",
}
ROW_REDUCTION = {"layernorm", "softmax"}
BATCH_NORM = {"batchnorm"}
REDUCTION = {"global_avgpool", "global_maxpool"}
SIGN_ONLY = {"relu", "relu6", "leaky_relu"}
FusedStep = tuple[str, tuple[str, ...], str, list[Access]]


def _class(kind: str) -> str:
    for name, kinds in (
        ("product", PRODUCT),
        ("gather", GATHER),
        ("pointwise", POINTWISE),
        ("row", ROW_REDUCTION),
        ("bn", BATCH_NORM),
        ("reduction", REDUCTION),
    ):
        if kind in kinds:
            return name
    return "alone"


class _Graph:
    def __init__(self, net: Any, order: list[str]) -> None:
        layers = net.layers
        self.kind = dict(zip(layers["name"], layers["kind"]))
        self.inputs_raw = dict(zip(layers["name"], layers["inputs"]))
        self.folded = dict(zip(layers["name"], layers["folded"]))
        self.order = order
        self.pos = {name: p for p, name in enumerate(order)}
        self.consumers: dict[str, list[str]] = {}
        for name in order:
            for x in self.inputs(name):
                c = self.consumers.setdefault(x, [])
                if name not in c:
                    c.append(name)

    def resolve(self, name: str) -> str:
        while self.folded[name]:
            name = self.inputs_raw[name][0]
        return name

    def inputs(self, name: str) -> list[str]:
        return [self.resolve(x) for x in self.inputs_raw[name]]


def groups(net: Any, order: list[str], level: str, statistics_cut: bool) -> list[list[str]]:
    """The groups of ``level`` (docs/model/fusion.md, "Which layers join"), each in forward
    order, ordered by their last member."""
    g = _Graph(net, order)
    group: dict[str, int] = {}
    members: list[list[str]] = []
    closed: list[bool] = []
    product: list[bool] = []
    after_product: dict[str, bool] = {}

    def one_step(cands: list[int], layer: str) -> bool:
        for c in cands:
            for m in members[c]:
                for user in g.consumers.get(m, []):
                    if user == layer or group.get(user) in cands:
                        continue
                    if g.pos[user] < g.pos[layer]:
                        return False
        return True

    for layer in order:
        cls = _class(g.kind[layer])
        cands: list[int] = []
        if level != "none" and cls in ("pointwise", "row", "bn", "reduction"):
            for i, x in enumerate(g.inputs(layer)):
                c = group.get(x)
                if c is None or closed[c] or c in cands:
                    continue
                if cls == "bn" and i == 0 and statistics_cut and after_product.get(x, False):
                    continue
                if not one_step([c], layer):
                    continue
                if product[c] and any(product[d] for d in cands):
                    continue
                cands.append(c)
        if cands:
            c = cands[0]
            for d in cands[1:]:
                for m in members[d]:
                    group[m] = c
                members[c] += members[d]
                product[c] = product[c] or product[d]
                members[d] = []
        else:
            c = len(members)
            members.append([])
            product.append(cls == "product")
            closed.append(
                cls == "alone" or level == "none" or (cls == "product" and level == "pointwise")
            )
        members[c].append(layer)
        group[layer] = c
        if cls == "reduction":
            closed[c] = True
        after_product[layer] = cls == "product" or any(
            group.get(x) == c and after_product.get(x, False) for x in g.inputs(layer)
        )
    out = [sorted(m, key=g.pos.__getitem__) for m in members if m]
    return sorted(out, key=lambda m: g.pos[m[-1]])


def fused_steps(net: Any, level: str) -> list[FusedStep]:
    """The fused steps of ``net`` (whose scheduler is any, fusion none) at ``level``."""
    base = default_steps(net)
    if level == "none":
        return [(p, (layer,), part, acc) for p, layer, part, acc in base]
    t = net.tensors
    role = dict(zip(t["name"], t["role"]))
    must_end = dict(zip(t["name"], t["must_end_offchip"]))
    starts = dict(zip(t["name"], t["starts_offchip"]))
    lt = net.layers
    elements = dict(zip(lt["name"], lt["output_bytes"] // net.batch))
    order = [layer for p, layer, _, _ in base if p == "fwd"]
    g = _Graph(net, order)
    training = any(p != "fwd" for p, *_ in base)  # inference: running statistics, no cut
    fwd_groups = groups(net, order, level, training)
    bwd_groups = groups(net, order, level, level == "pointwise")
    fwd_of = {m: i for i, grp in enumerate(fwd_groups) for m in grp}
    bwd_of = {m: i for i, grp in enumerate(bwd_groups) for m in grp}
    # Units: which fused step each unfused step belongs to.
    unit: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for i, (phase, layer, part, _) in enumerate(base):
        if phase == "fwd":
            unit.append(("F", fwd_of[layer]))
        elif phase == "loss" or (part != "" and layer in seen):
            unit.append(("S", i))
        else:
            unit.append(("B", bwd_of[layer]))
            seen.add(layer)
    accs = [list(a) for _, _, _, a in base]
    fwd_step = {layer: i for i, (p, layer, _, _) in enumerate(base) if p == "fwd"}

    def producer(tensor: str) -> str | None:
        if role.get(tensor) != "activation" or starts[tensor] or not tensor.startswith("Y:"):
            return None
        name = tensor[2:]
        return name if name in fwd_step else None

    def recomputable_kind(layer: str) -> bool:
        kind = g.kind[layer]
        return _class(kind) in ("row", "bn") or (
            _class(kind) == "pointwise" and kind not in ("dropout", "position_embedding")
        )

    # Saved: forward outputs a product's backward reads.
    saved: set[str] = set()
    for phase, layer, _, a in base:
        if phase == "bwd" and _class(g.kind[layer]) == "product":
            saved.update(name for name, read, *_ in a if read and producer(name) is not None)
    # Read anyway by a backward step: inputs, outputs nothing can recompute, the saved
    # (pointwise).
    base_reads: dict[tuple[Any, ...], set[str]] = {}
    for i, (phase, layer, _, a) in enumerate(base):
        if phase != "bwd":
            continue
        for name, read, write, *_ in a:
            if not read or write or role[name] != "activation":
                continue
            p = producer(name)
            if p is None:
                anyway = bool(starts[name])
            else:
                own_dropout = p == layer and g.kind[p] == "dropout"
                anyway = (not recomputable_kind(p) and not own_dropout) or (
                    level == "pointwise" and name in saved
                )
            if anyway:
                base_reads.setdefault(unit[i], set()).add(name)

    def recomputable(tensor: str, u: tuple[Any, ...], depth: int = 0) -> bool:
        p = producer(tensor)
        if p is None or depth > 16 or not recomputable_kind(p):
            return False
        for x in g.inputs(p):
            y = f"Y:{x}"
            if y in base_reads.get(u, set()):
                continue
            if not recomputable(y, u, depth + 1):
                return False
        return True

    masks: dict[str, int] = {}

    def mask(layer: str) -> Access:
        name = f"M:{layer}"
        if layer not in masks:
            masks[layer] = net.batch * -(-(elements[layer] // _element_bytes(net, layer)) // 8)
            role[name] = "activation"
            must_end[name] = False
            accs[fwd_step[layer]].append((name, False, True, False, masks[layer]))
        return (name, True, False, False, masks[layer])

    for i, (phase, layer, _, _) in enumerate(base):
        if phase != "bwd":
            continue
        kept: list[Access] = []
        for a in accs[i]:
            name, read, write = a[0], a[1], a[2]
            p = producer(name) if read and not write else None
            if p is None:
                kept.append(a)
                continue
            own = p == layer
            if own and g.kind[p] == "dropout":
                kept.append(mask(p))
            elif level == "pointwise" and name in saved:
                kept.append(a)
            elif recomputable(name, unit[i]):
                continue
            elif own and g.kind[p] in SIGN_ONLY:
                kept.append(mask(p))
            else:
                kept.append(a)
        accs[i] = kept

    # Merge: a tensor is read if needed from before the step, written if used elsewhere.
    users: dict[str, set[tuple[Any, ...]]] = {}
    for i, a in enumerate(accs):
        for name, *_ in a:
            users.setdefault(name, set()).add(unit[i])
    parts: dict[tuple[Any, ...], list[int]] = {}
    for i, u in enumerate(unit):
        parts.setdefault(u, []).append(i)
    placed = sorted(
        parts, key=lambda u: parts[u][-1] if base[parts[u][0]][0] == "fwd" else parts[u][0]
    )
    created: set[str] = set()
    out: list[FusedStep] = []
    for u in placed:
        merged: dict[str, list[Any]] = {}  # name -> [genuine read, write, partial, bytes]
        layers: list[str] = []
        step_part = ""
        for i in parts[u]:
            phase, layer, part, _ = base[i]
            step_part = part or step_part
            if layer not in layers:
                layers.append(layer)
            for name, read, write, partial, nbytes in accs[i]:
                m = merged.setdefault(name, [False, False, True, 0])
                accumulated = role[name] in ("gradient", "weight_grad")
                if read and not m[1] and not (write and accumulated):
                    m[0] = True
                m[1] = m[1] or write
                m[2] = m[2] and partial
                m[3] = max(m[3], nbytes)
        new: list[Access] = []
        for name, (genuine, write, partial, nbytes) in merged.items():
            keep = write and (len(users[name]) > 1 or bool(must_end[name]))
            read = genuine
            if role[name] in ("gradient", "weight_grad") and keep:
                read = read or name in created
            if keep:
                created.add(name)
            if read or keep:
                new.append((name, read, keep, partial, nbytes))
        layers.sort(key=lambda x: g.pos.get(x, -1))
        out.append((base[parts[u][0]][0], tuple(layers), step_part, new))
    return out


def _element_bytes(net: Any, layer: str) -> int:
    """Bytes per element of a layer's output (token ids keep theirs; floats the network's)."""
    return int(net.bytes_per_element)

"""The ``inference`` and ``split-backward`` schedulers derived from the default schedule, in
plain Python, from docs/policies.md alone (not from the C++ schedulers), for the tests to
compare with what the core builds.

    steps = expected_steps(dnnmem.network("resnet50", batch=2), "split-backward", first="dx")
    # [(phase, layer, part, [(tensor, read, write, partial, bytes), ...]), ...]

Rules (docs/policies.md, "Schedulers"):

- ``inference``: the default schedule's forward steps, in their order, with their accesses;
  no loss and no backward step. The network's outputs must end off-chip.
- ``split-backward``: every step as in the default schedule, except the backward step of a
  conv2d, depthwise conv2d or dense layer that computes both a dX (some input has a gradient)
  and a dW (its weight is trainable): it becomes a dX step — the layer's dY read, its W read,
  the inputs' gradients written — and a dW step — dY read, its input X read, dW written. A
  matmul whose two (distinct) operands both need a gradient likewise becomes dA (dY and the
  second operand read, the first operand's gradient written) and dB (dY and the first operand
  read, the second's gradient written). ``first="dw"`` puts the dW step first. Each access
  keeps its flags: which write creates a gradient and which accumulates into it does not change.
"""

from __future__ import annotations

from typing import Any

Access = tuple[str, bool, bool, bool, int]
StepDesc = tuple[str, str, str, list[Access]]

GEMM_WITH_WEIGHT = ("conv2d", "depthwise_conv2d", "dense")


def default_steps(net: Any) -> list[StepDesc]:
    """The schedule of ``net`` (any scheduler) as (phase, layer, part, accesses) tuples."""
    steps = net.steps
    acc = net.accesses
    # One pass over plain lists (a pandas groupby makes a frame per step: minutes for GNMT);
    # a step's accesses keep the order of the table.
    by_step: dict[int, list[Access]] = {}
    columns = (acc[c].tolist() for c in ("step", "tensor", "read", "write", "partial", "bytes"))
    for step, tensor, read, write, partial, size in zip(*columns):
        by_step.setdefault(int(step), []).append(
            (str(tensor), bool(read), bool(write), bool(partial), int(size))
        )
    rows = zip(*(steps[c].tolist() for c in ("step", "phase", "layer", "part")))
    return [(phase, layer, part, by_step.get(int(step), [])) for step, phase, layer, part in rows]


def _roles(net: Any) -> dict[str, str]:
    t = net.tensors
    return dict(zip(t["name"], t["role"]))


def _split(
    kind: str, accesses: list[Access], roles: dict[str, str], first: str
) -> list[tuple[str, list[Access]]] | None:
    """The (part, accesses) of a split backward step, or None if it keeps one step."""
    if not accesses:
        return None
    dy = accesses[0][0]  # a backward step reads its layer's dY first
    if kind in GEMM_WITH_WEIGHT:
        grads = [a for a in accesses if roles[a[0]] == "gradient" and a[2]]
        if not grads or not any(roles[a[0]] == "weight_grad" for a in accesses):
            return None
        dx = [
            a
            for a in accesses
            if a[0] == dy or roles[a[0]] == "weight" or (roles[a[0]] == "gradient" and a[2])
        ]
        dw = [(dy, True, False, False, accesses[0][4])] + [
            a for a in accesses[1:] if roles[a[0]] in ("activation", "weight_grad") and a[0] != dy
        ]
    elif kind == "matmul":
        acts = [a for a in accesses[1:] if roles[a[0]] == "activation"]
        grads = [a for a in accesses[1:] if roles[a[0]] == "gradient" and a[2]]
        if len(acts) != 2 or len(grads) != 2:
            return None
        read_dy = (dy, True, False, False, accesses[0][4])
        dx = [read_dy, acts[1], grads[0]]
        dw = [read_dy, acts[0], grads[1]]
    else:
        return None
    parts = [("dx", dx), ("dw", dw)]
    return parts if first == "dx" else parts[::-1]


def expected_steps(net: Any, scheduler: str, first: str = "dx") -> list[StepDesc]:
    """The steps ``scheduler`` makes of ``net`` (scheduled by the default scheduler)."""
    base = default_steps(net)
    if scheduler == "default":
        return base
    if scheduler == "inference":
        return [s for s in base if s[0] == "fwd"]
    if scheduler != "split-backward":
        raise ValueError(f"scheduler: no oracle for {scheduler!r}")
    roles = _roles(net)
    kinds = dict(zip(net.layers["name"], net.layers["kind"]))
    out: list[StepDesc] = []
    for phase, layer, part, accesses in base:
        halves = _split(kinds[layer], accesses, roles, first) if phase == "bwd" else None
        if halves is None:
            out.append((phase, layer, part, accesses))
        else:
            out += [(phase, layer, p, a) for p, a in halves]
    return out


# -- mbs (docs/model/mbs.md) -------------------------------------------------------------------


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def mbs_units(
    net: Any, variant: str, buffer: int, footprint: str = "forward"
) -> list[dict[str, Any]]:
    """The units of ``net`` (default scheduler) with their footprint per sample, n_min and
    grouping cost terms, from the rules of docs/model/mbs.md ("Units", "rule F", "Grouping")."""
    batch = net.batch
    steps = default_steps(net)
    t = net.tensors
    roles = dict(zip(t["name"], t["role"]))
    owner = dict(zip(t["name"], t["layer"]))
    size = dict(zip(t["name"], t["bytes"]))
    fwd = [s for s in steps if s[0] == "fwd"]
    pos = {s[1]: p for p, s in enumerate(fwd)}
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    own = []
    for p, (_, _, _, accesses) in enumerate(fwd):
        acts = [a for a in accesses if roles[a[0]] == "activation"]
        own.append(sum(size[a[0]] // batch for a in acts))
        for name, _, write, _, _ in acts:
            start.setdefault(name, p if write else -1)
            end[name] = p

    def crossing(p: int) -> list[str]:
        return [n for n in start if start[n] <= p < end[n]]

    def alive(p: int) -> int:
        return sum(size[n] // batch for n in start if max(start[n], 0) <= p <= end[n])

    back = [0] * len(fwd)  # footprint=training: each position's largest backward footprint
    if footprint == "training":
        bwd = [s for s in steps if s[0] == "bwd"]
        span: dict[str, list[int]] = {}
        for q, (_, _, _, accesses) in enumerate(bwd):
            for a in accesses:
                if roles[a[0]] in ("activation", "gradient"):
                    span.setdefault(a[0], [q, q])[1] = q
        for q, (_, layer, _, accesses) in enumerate(bwd):
            if variant == "mbs2":
                f = sum(size[n] // batch for n, (a, b) in span.items() if a <= q <= b)
            else:
                acts = {a[0] for a in accesses if roles[a[0]] in ("activation", "gradient")}
                f = sum(size[n] // batch for n in acts)
            back[pos[layer]] = max(back[pos[layer]], f)
    units: list[dict[str, Any]] = []
    for p, s in enumerate(fwd):
        if p == 0 or len(crossing(p - 1)) == 1:
            units.append({"first": p, "last": p, "footprint": -1, "worst": None})
        u = units[-1]
        u["last"] = p
        f = max(alive(p) if variant == "mbs2" else own[p], back[p])
        if f > u["footprint"]:
            u["footprint"], u["worst"] = f, s[1]
    bwd_reads = {a[0] for s in steps if s[0] == "bwd" for a in s[3]}
    has_bwd = {s[1] for s in steps if s[0] == "bwd"}
    for u in units:
        if u["footprint"] > buffer:
            raise ValueError(f"one sample of layer {u['worst']!r} needs {u['footprint']} bytes")
        fit = min(batch, buffer // u["footprint"]) if u["footprint"] > 0 else batch
        u["n"] = _ceil_div(batch, fit)
        layers = {s[1] for s in fwd[u["first"] : u["last"] + 1]}
        slope = offset = 0
        for phase, layer, _, accesses in steps:
            if phase == "loss" or layer not in layers:
                continue
            for name, _, _, partial, nbytes in accesses:
                if partial:
                    continue
                if roles[name] == "weight":
                    slope += nbytes
                elif roles[name] == "weight_grad":
                    slope += 2 * nbytes
                    offset -= nbytes
        u["slope"], u["offset"], u["boundary"] = slope, offset, 0
        if u["last"] + 1 < len(fwd):
            (a,) = crossing(u["last"])
            u["boundary"] = size[a] * (1 + (a not in bwd_reads) + 2 * (owner[a] in has_bwd))
    return units


def mbs_cost(units: list[dict[str, Any]], starts: list[int]) -> int:
    """The grouping cost of groups starting at the units ``starts``."""
    total = 0
    for g, i in enumerate(starts):
        j = starts[g + 1] - 1 if g + 1 < len(starts) else len(units) - 1
        n = max(u["n"] for u in units[i : j + 1])
        total += units[j]["boundary"] + sum(u["slope"] * n + u["offset"] for u in units[i : j + 1])
    return total


def mbs_grouping(units: list[dict[str, Any]], variant: str, grouping: str) -> list[int]:
    """Each group's first unit: one group (fs), the greedy merge, or the exact minimum (dp: ties
    to the longer last group)."""
    if variant == "fs":
        return [0]
    if grouping == "dp":
        best: list[tuple[int, list[int]]] = [(0, [])]
        for j in range(1, len(units) + 1):
            best.append(
                min(
                    ((best[i][0] + mbs_cost(units[i:j], [0]), best[i][1] + [i]) for i in range(j)),
                    key=lambda c: (c[0], c[1][-1]),
                )
            )
        return best[-1][1]
    starts = [u for u in range(len(units)) if u == 0 or units[u]["n"] != units[u - 1]["n"]]
    while len(starts) > 1:
        saves = [
            mbs_cost(units, starts) - mbs_cost(units, starts[: g + 1] + starts[g + 2 :])
            for g in range(len(starts) - 1)
        ]
        if max(saves) <= 0:
            break
        del starts[saves.index(max(saves)) + 1]
    return starts


def mbs_expected(
    net: Any, variant: str, buffer: int, grouping: str = "greedy", footprint: str = "forward"
) -> tuple[list[list[int]], list[StepDesc]]:
    """The sub-batch bounds of each group and the steps of ``mbs(variant, buffer, grouping)``."""
    batch = net.batch
    steps = default_steps(net)
    t = net.tensors
    roles = dict(zip(t["name"], t["role"]))
    units = mbs_units(net, variant, buffer, footprint)
    starts = mbs_grouping(units, variant, grouping)
    fwd = [s for s in steps if s[0] == "fwd"]
    group_of: dict[str, int] = {}
    bounds: list[list[int]] = []
    for g, i in enumerate(starts):
        j = starts[g + 1] - 1 if g + 1 < len(starts) else len(units) - 1
        n = max(u["n"] for u in units[i : j + 1])
        bounds.append([sum(batch // n + (k < batch % n) for k in range(m)) for m in range(n + 1)])
        for s in fwd[units[i]["first"] : units[j]["last"] + 1]:
            group_of[s[1]] = g
    cuts: dict[str, set[int]] = {}
    for _, layer, _, accesses in steps:
        for a in accesses:
            if roles[a[0]] in ("activation", "gradient"):
                cuts.setdefault(a[0], set()).update(bounds[group_of[layer]])
    out: list[StepDesc] = []
    written: set[str] = set()

    def run(step: StepDesc, lo: int, hi: int) -> None:
        phase, layer, part, accesses = step
        new: list[Access] = []
        for name, read, write, partial, nbytes in accesses:
            if roles[name] in ("activation", "gradient"):
                c = sorted(cuts[name])
                for a, b in zip(c, c[1:]):
                    if lo <= a and b <= hi:
                        label = name if len(c) == 2 else f"{name}[{a}:{b}]"
                        new.append((label, read, write, partial, nbytes // batch * (b - a)))
                continue
            if partial:
                nbytes = nbytes // batch * (hi - lo)
            if roles[name] == "weight_grad" and write:
                read = read or name in written
                written.add(name)
            new.append((name, read, write, partial, nbytes))
        out.append((phase, layer, part, new))

    for g, b in enumerate(bounds):
        for lo, hi in zip(b, b[1:]):
            for s in fwd:
                if group_of[s[1]] == g:
                    run(s, lo, hi)
    for s in steps:
        if s[0] == "loss":
            b = bounds[group_of[s[1]]]
            for lo, hi in zip(b, b[1:]):
                run(s, lo, hi)
    for g in reversed(range(len(bounds))):
        b = bounds[g]
        for lo, hi in zip(b, b[1:]):
            for s in steps:
                if s[0] == "bwd" and group_of[s[1]] == g:
                    run(s, lo, hi)
    return bounds, out


# -- intra-layer re-reads of a blocked GEMM (docs/model/mbs.md) -------------------------------


def blocked_gemms(net: Any) -> list[tuple[str, str, int, int, int, int, bool]]:
    """The GEMMs of ``net``'s default schedule as (layer, gemm, n, a, b, c, reads_weight), from
    its layer table alone: a convolution or dense layer's forward product (a = its input, b = W,
    c = its output), its dX = dY · Wᵀ when an input is a layer's output (a = dY, b = W, c = the
    input's bytes) and its dW = Xᵀ · dY (a = X, b = dY, c = W). Folded layers pass their input
    through; n is the GEMM's columns (``layer_gemm``)."""
    from dnnmem import _core

    layers = net.layers
    by_name = {r.name: r for r in layers.itertuples()}

    def producer(name: str) -> Any:
        r = by_name[name]
        while r.folded:
            r = by_name[r.inputs[0]]
        return r

    out = []
    for i, r in enumerate(layers.itertuples()):
        if r.kind not in ("conv2d", "dense") or r.folded:
            continue
        src = [producer(x) for x in r.inputs]
        x = sum(int(p.output_bytes) for p in src)
        y, w = int(r.output_bytes), int(r.weight_bytes)
        n = {p: _core.layer_gemm(net._core, i, p, net.batch)[1]
             for p in ("forward", "backward_data", "backward_weight")}  # fmt: skip
        out.append((r.name, "fwd", n["forward"], x, w, y, True))
        if any(p.kind != "input" for p in src):
            out.append((r.name, "dx", n["backward_data"], y, w, x, True))
        out.append((r.name, "dw", n["backward_weight"], x, y, w, False))
    return out


def gemm_rereads(a: int, b: int, c: int, capacity: int, reading: str, n: int,
                 reads_weight: bool) -> int:  # fmt: skip
    """The extra bytes of one GEMM (docs/model/mbs.md, "Intra-layer re-reads of a blocked
    GEMM"); ``b`` is the weight when ``reads_weight``."""
    if reading == "panel" and reads_weight:
        return 0 if a <= capacity else (_ceil_div(n, 128) - 1) * a
    if min(a, b) <= capacity or 2 * c <= capacity:
        return 0
    return (_ceil_div(min(a, b), capacity) - 1) * max(a, b)


def list_order(net: Any, order: str) -> list[str]:
    """The forward order of rule O9's list orders (docs/model/onsram.md), ``order`` = ``bfs`` or
    ``hybrid``, as layer names, from ``net.layers`` alone.

    A layer is *ready* when all its distinct inputs are done; ready layers join a FIFO queue in
    the order they become ready (consumers of one layer in file order). Inputs and folded
    layers are done as soon as they are ready and make no step (a folded layer's consumers are
    released after the non-folded consumers of the layer that released it). ``bfs`` runs the
    queue's front at every step; ``hybrid`` runs first, if there is one, the first layer in queue
    order released by the step just scheduled that has no multiply-accumulates
    (activation-bound), and otherwise the front.
    """
    layers = net.layers
    names = list(layers["name"])
    inputs = [sorted(set(i)) for i in layers["inputs"]]
    folded = [bool(f) or k == "input" for f, k in zip(layers["folded"], layers["kind"])]
    macs = list(layers["fwd_macs"])
    index = {n: i for i, n in enumerate(names)}
    consumers: list[list[int]] = [[] for _ in names]
    for i, ins in enumerate(inputs):
        for src in ins:
            consumers[index[src]].append(i)  # file order: i grows
    remaining = [len(ins) for ins in inputs]
    queue: list[int] = []
    released: list[int] = []

    def release(layer: int) -> None:
        ready = []
        for c in consumers[layer]:
            remaining[c] -= 1
            if remaining[c] == 0:
                ready.append(c)
        for c in ready:
            if not folded[c]:
                queue.append(c)
                released.append(c)
        for c in ready:
            if folded[c]:
                release(c)

    for i, kind in enumerate(layers["kind"]):
        if kind == "input":
            release(i)
    out: list[str] = []
    while queue:
        pick = queue[0]
        if order == "hybrid":
            pick = next((c for c in released if macs[c] == 0), pick)
        queue.remove(pick)
        out.append(names[pick])
        released.clear()
        release(pick)
    return out

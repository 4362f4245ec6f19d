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
    out: list[StepDesc] = []
    # (not dict(groupby): a GroupBy has .keys, so dict() would take it for a mapping)
    by_step = {s: g for s, g in acc.groupby("step", sort=True)}  # noqa: C416
    for row in steps.itertuples(index=False):
        g = by_step.get(row.step)
        accesses = (
            []
            if g is None
            else [
                (str(a.tensor), bool(a.read), bool(a.write), bool(a.partial), int(a.bytes))
                for a in g.itertuples(index=False)
            ]
        )
        out.append((row.phase, row.layer, row.part, accesses))
    return out


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

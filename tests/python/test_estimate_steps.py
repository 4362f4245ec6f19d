"""Per-step traffic by tensor role (SPEC §7) adds up, and follows the roles' semantics."""

from __future__ import annotations

import pytest

import dnnmem

ROLES = ("activation", "weight", "state", "gradient", "weight_grad")


@pytest.fixture(scope="module")
def net():
    return dnnmem.network("resnet50", batch=4)


@pytest.mark.parametrize("policy", ["lookahead", "belady", "lru", "none"])
@pytest.mark.parametrize("capacity", [0, "4MiB", "64MiB", "2GiB"])
def test_bytes_by_role_add_up(net, policy, capacity):
    s = dnnmem.estimate(net, policy=policy, capacity=capacity).steps
    assert (s[[f"bytes_in_{r}" for r in ROLES]].sum(axis=1) == s["bytes_in"]).all()
    assert (s[[f"bytes_out_{r}" for r in ROLES]].sum(axis=1) == s["bytes_out"]).all()
    # Weights and states are never written; dW is never read (no optimizer step).
    assert s["bytes_out_weight"].sum() == 0
    assert s["bytes_out_state"].sum() == 0
    assert s["bytes_in_weight_grad"].sum() == 0


def test_infinite_capacity_moves_each_weight_and_dw_once(net):
    s = dnnmem.estimate(net, capacity=2**50).steps
    t = net.tensors
    assert s["bytes_in_weight"].sum() == t.loc[t["role"] == "weight", "bytes"].sum()
    assert s["bytes_in_state"].sum() == t.loc[t["role"] == "state", "bytes"].sum()
    assert s["bytes_out_weight_grad"].sum() == t.loc[t["role"] == "weight_grad", "bytes"].sum()
    assert s["bytes_in_gradient"].sum() == 0 and s["bytes_out_gradient"].sum() == 0


def test_every_step_column_has_its_unit_in_attrs(net):
    """The times (start, end, time, stall ...) carry no unit in their names; attrs["units"]
    gives each column's (it had none)."""
    s = dnnmem.estimate(net, policy="ratio(activation=2) + lru", capacity="4MiB").steps
    labels = ("step", "name", "layer", "kind", "class", "phase", "part")
    times = ("start", "end", "time", "compute_time", "stall", "capacity_stall")
    assert s.attrs["units"] == {
        **dict.fromkeys(labels, ""),
        "flops": "FLOP",
        **dict.fromkeys(times, "s"),
        **{c: "bytes" for c in s.columns if c not in (*labels, "flops", *times)},
    }
    byte_columns = [c for c, u in s.attrs["units"].items() if u == "bytes"]
    assert byte_columns == [
        "bytes_in",
        "bytes_out",
        "link_in",
        "link_out",
        "bytes_streamed_in",
        "bytes_streamed_out",
        "link_streamed_in",
        "link_streamed_out",
        "resident_bytes",
        *[f"bytes_{d}_{r}" for r in ROLES for d in ("in", "out")],
    ]

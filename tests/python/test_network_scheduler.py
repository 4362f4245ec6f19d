"""A network that carries its own scheduler (Network.with_scheduler / with_fusion) is run as
given: a policy that names no scheduler takes the network's, one that names another is refused.

Before this rule, estimate(net.with_fusion("accelerator"), policy="vdnn-all") re-scheduled the
network with the policy's default scheduler and printed the unfused result under the fused
network's name.
"""

from __future__ import annotations

import pytest

import dnnmem
from dnnmem import Policy
from dnnmem.optimal import traffic_lower_bound


@pytest.fixture(scope="module")
def net() -> dnnmem.Network:
    return dnnmem.network("resnet18", batch=8)


def test_policy_on_network_rules() -> None:
    p = Policy.parse
    # The policy names none: the network's scheduler, fusion level included.
    assert str(p("vdnn-all").on_network("default(fusion=accelerator)")) == (
        "vdnn-all + fusion=accelerator"
    )
    assert str(p("lru").on_network("split-backward")) == "split-backward + lru"
    assert str(p("lru").on_network("default")) == "lru"
    # The policy names a scheduler, the network a fusion level only: both kept.
    assert str(p("mbs + mbs-strict").on_network("default(fusion=pointwise)")) == (
        "mbs + mbs-strict + fusion=pointwise"
    )
    # The network names a scheduler, the policy a fusion level only: both kept.
    assert str(p("lru + fusion=pointwise").on_network("split-backward")) == (
        "split-backward + lru + fusion=pointwise"
    )
    # The same on both sides.
    same = p("split-backward + lru + fusion=accelerator")
    assert same.on_network("split-backward(fusion=accelerator)") == same


@pytest.mark.parametrize(
    ("policy", "scheduler"),
    [
        ("mbs + mbs-strict", "split-backward"),
        ("lru + fusion=pointwise", "default(fusion=accelerator)"),
        ("split-backward(first=dw) + lru", "split-backward"),
    ],
)
def test_a_policy_and_a_network_that_disagree_are_refused(policy: str, scheduler: str) -> None:
    with pytest.raises(ValueError) as e:
        Policy.parse(policy).on_network(scheduler)
    msg = str(e.value)
    assert msg.startswith(f"policy: {str(Policy.parse(policy))!r} schedules with ")
    assert repr(scheduler) in msg and "Network.with_scheduler / with_fusion" in msg


def test_estimate_of_a_fused_network_is_the_fused_estimate(net: dnnmem.Network) -> None:
    fused = net.with_fusion("accelerator")
    got = dnnmem.estimate(fused, capacity="4MiB", policy="vdnn-all")
    named = dnnmem.estimate(net, capacity="4MiB", policy="vdnn-all + fusion=accelerator")
    unfused = dnnmem.estimate(net, capacity="4MiB", policy="vdnn-all")
    assert got.policy == "vdnn-all + fusion=accelerator"
    assert (got.time, got.traffic) == (named.time, named.traffic)
    # The trap: the unfused network's numbers, which the old path printed, differ.
    assert got.traffic != unfused.traffic and got.time < unfused.time
    with pytest.raises(ValueError, match="carries scheduler 'default\\(fusion=accelerator\\)'"):
        dnnmem.estimate(fused, capacity="4MiB", policy="lru + fusion=pointwise")


def test_estimate_keeps_the_networks_scheduler(net: dnnmem.Network) -> None:
    split = net.with_scheduler("split-backward(first=dw)")
    got = dnnmem.estimate(split, capacity="2MiB", policy="lru")
    named = dnnmem.estimate(net, capacity="2MiB", policy="split-backward(first=dw) + lru")
    assert got.policy == "split-backward(first=dw) + lru"
    assert (got.time, got.traffic) == (named.time, named.traffic)
    with pytest.raises(ValueError, match="schedules with 'mbs'"):
        dnnmem.estimate(split, capacity="2MiB", policy="mbs + mbs-strict")


def test_the_bounds_use_the_networks_scheduler(net: dnnmem.Network) -> None:
    fused = net.with_fusion("accelerator")
    got = traffic_lower_bound(fused, capacity="4MiB")
    named = traffic_lower_bound(net, capacity="4MiB", policy="lookahead + fusion=accelerator")
    unfused = traffic_lower_bound(net, capacity="4MiB")
    assert got.value == named.value != unfused.value


def test_sweep_of_a_fused_network_reports_the_policy_that_ran(net: dnnmem.Network) -> None:
    fused = net.with_fusion("accelerator")
    got = dnnmem.sweep(fused, capacity=["1MiB", "4MiB"], policy=["vdnn-all", "lru"])
    named = dnnmem.sweep(
        net,
        capacity=["1MiB", "4MiB"],
        policy=["vdnn-all + fusion=accelerator", "lru + fusion=accelerator"],
    )
    assert (
        list(got["policy"])
        == ["vdnn-all + fusion=accelerator"] * 2 + ["lru + fusion=accelerator"] * 2
    )
    assert set(got["fusion"]) == {"accelerator"}
    assert list(got["time"]) == list(named["time"])
    assert list(got["traffic_in"]) == list(named["traffic_in"])


def test_sweep_refuses_one_network_under_two_schedulers(net: dnnmem.Network) -> None:
    with pytest.raises(ValueError) as e:
        dnnmem.sweep([net, net.with_fusion("accelerator")], policy="lru")
    assert str(e.value) == (
        "network: 'resnet18' is given with two schedulers ('default' and "
        "'default(fusion=accelerator)'); give it once and name the schedulers or fusion levels "
        "in the policies"
    )

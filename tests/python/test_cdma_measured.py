"""Rule G1 of docs/model/cdma.md: the compute of a GPU measured at a memory rate (the cDMA
paper, §VI: its networks' compute averaged under 100 GB/s of GPU memory), by hand on a chain
and against the oracle of tests/python/oracle.py."""

from __future__ import annotations

import oracle
import pytest
from small_networks import CHAIN

import dnnmem
from dnnmem import cdma

# Batch 2, FP32: Y:x 32 B, W:fc1 60 B, Y:fc1 24 B, Y:r 24 B, W:fc2 32 B, Y:fc2 16 B.
# 1e8 FLOP/s: the steps compute 1.92e-6 s in all (test_cdma.py's chain at 100 FLOP/s: 1.92 s).
HW = dnnmem.Hardware(capacity=10**6, bandwidth=10**9, throughput=10**8)
SECONDS = 1.92e-6


@pytest.fixture(scope="module")
def chain() -> dnnmem.Network:
    return dnnmem.load_network(CHAIN, batch=2)


def test_operand_bytes_by_hand(chain: dnnmem.Network) -> None:
    """B of rule G1, step by step: what each step reads plus what it writes."""
    s = chain.steps
    moved = list(s["bytes_read"] + s["bytes_written"])
    # F:fc1 Y:x W:fc1 -> Y:fc1; F:r Y:fc1 -> Y:r; F:fc2 Y:r W:fc2 -> Y:fc2; the loss;
    # B:fc2 dY:fc2 Y:r W:fc2 -> dY:r dW:fc2; B:r; B:fc1 dY:fc1 Y:x -> dW:fc1.
    assert moved[:3] == [32 + 60 + 24, 24 + 24, 24 + 32 + 16]
    assert sum(moved) == pytest.approx(oracle_bytes(chain))


def oracle_bytes(net: dnnmem.Network) -> float:
    """B from the oracle's own reading of the schedule (k at a rate of 1 B/s, times T)."""
    return oracle.compute_slowdown(net, 10**8, 1.0) * SECONDS


def test_slowdown_by_hand(chain: dnnmem.Network) -> None:
    """k = B / (rate · T) when the compute at peak would average more than the rate; 1 when
    it averages less; the measured GPU's oracle time is then B / rate."""
    moved = int((chain.steps["bytes_read"] + chain.steps["bytes_written"]).sum())
    assert dnnmem.estimate(chain, HW, "oracle").time == pytest.approx(SECONDS, rel=1e-12)
    rate = moved / SECONDS / 4  # the peak compute averages 4× the rate
    assert cdma.compute_slowdown(chain, HW, rate) == pytest.approx(4.0, rel=1e-12)
    slow = cdma.measured_gpu(chain, HW, rate)
    assert slow.throughput == 25_000_000
    assert (slow.capacity, slow.bandwidth) == (HW.capacity, HW.bandwidth)
    assert dnnmem.estimate(chain, slow, "oracle").time == pytest.approx(4 * SECONDS, rel=1e-9)
    # Fast enough memory: no slow-down, the hardware unchanged.
    assert cdma.compute_slowdown(chain, HW, moved / SECONDS * 2) == 1.0
    assert cdma.measured_gpu(chain, HW, moved / SECONDS * 2) == HW
    # measured_on: the slow-down found on one GPU, applied to another's throughput.
    fast = dnnmem.Hardware(capacity=10**6, bandwidth=10**9, throughput=2 * 10**8)
    assert cdma.measured_gpu(chain, fast, rate, measured_on=HW).throughput == 50_000_000
    with pytest.raises(ValueError, match="rate"):
        cdma.compute_slowdown(chain, HW, 0.0)


@pytest.mark.parametrize("factor", [0.25, 0.5, 3.0])
def test_against_oracle(chain: dnnmem.Network, factor: float) -> None:
    """The slow-down and vDNN's times on the slowed GPU, dnnmem against the oracle."""
    rate = oracle_bytes(chain) / SECONDS * factor
    k = cdma.compute_slowdown(chain, HW, rate)
    assert k == pytest.approx(oracle.compute_slowdown(chain, 10**8, rate), rel=1e-12)
    slow = cdma.measured_gpu(chain, HW, rate)
    for policy in ("oracle", "vdnn-all"):
        r = dnnmem.estimate(chain, slow, policy)
        o = oracle.estimate(chain, slow.capacity, int(slow.bandwidth), int(slow.throughput), policy)
        assert r.time == pytest.approx(o["time"], rel=1e-9), policy

"""Issue 26, "Time wraps": every time the core produces is counted exactly in ticks of
1 / (bandwidth · throughput) s, below 2^125 (docs/estimator.md, "Limits"), or the design point is
refused with a ValueError naming the option that makes it too long — never a wrapped, negative
number, never an OverflowError.

The issue's reproductions (before: -7.669 s, 6.704 s with steps adding to 22.7 s, -5.357e7 s and
an average bandwidth of -5.708 B/s on the command line, an OverflowError traceback) are refused;
the same options at rates whose ticks fit give the exact times, the steps adding up to them."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

import dnnmem

R62 = 2**62
SPM = "the iteration's time is too large to count exactly: compute model 'peak': option 'spm_bandwidth'"
CAP = "the iteration's time is too large to count exactly: link 'ratio': option 'cap'"


@pytest.mark.parametrize(
    ("network", "batch"),
    [("t5_small", 16), ("resnet50", 32)],  # before: -7.669 s; 6.704 s (steps: 22.704 s)
)
def test_spm_floor_beyond_the_ticks_is_refused(network: str, batch: int) -> None:
    with pytest.raises(ValueError, match=SPM) as e:
        dnnmem.estimate(
            network,
            batch=batch,
            policy="none + peak(spm_bandwidth=1GB/s)",
            bandwidth=R62,
            throughput=R62,
        )
    assert "raise spm_bandwidth, or lower bandwidth or throughput" in str(e.value)
    assert "time is counted exactly only up to 2 s" in str(e.value)  # 2^125 / 2^124


def test_compressor_cap_beyond_the_ticks_is_refused() -> None:
    """Before: -5.357e7 s."""
    with pytest.raises(ValueError, match=CAP) as e:
        dnnmem.estimate("resnet18", policy="none + ratio(cap=1)", capacity=0, throughput=R62)
    assert "raise cap" in str(e.value)


def _large_chain(batch: int) -> dnnmem.Network:
    """An input of 2^38 one-byte elements per sample and three relus: at batch 2^17 each tensor
    is 2^55 bytes; inference reads and writes 6 · 2^55, near the 2^58 the schedule allows."""
    layers = [{"name": "x", "kind": "input", "shape": [262144, 1048576]}]
    for i in range(3):
        layers.append({"name": f"r{i}", "kind": "relu", "inputs": [layers[-1]["name"]]})
    return dnnmem.load_network(
        {"name": "chain", "layers": layers}, batch=batch, bytes_per_element=1
    )


def test_link_efficiency_beyond_the_ticks_is_refused() -> None:
    """At efficiency 0.01 every transfer takes 100 times its wire time: the chain's traffic
    (6 · 2^55 bytes, 0.047 s at 2^62 bytes/s) then needs 4.7 s, more than the 2 s that 2^125
    ticks hold at rates of 2^62; at efficiency 1 it fits, exactly."""
    net = _large_chain(2**17)
    r = dnnmem.estimate(net, policy="inference + none", bandwidth=R62, throughput=R62)
    assert r.traffic_in + r.traffic_out == 6 * 2**55
    assert r.time == pytest.approx(6 * 2**55 / R62, rel=1e-12)  # memory-bound: every byte once
    with pytest.raises(
        ValueError, match="link 'ratio': option 'efficiency' = 0.01 makes the transfers"
    ) as e:
        dnnmem.estimate(
            net,
            policy="inference + none + ratio(efficiency=0.01)",
            bandwidth=R62,
            throughput=R62,
        )
    assert "raise efficiency" in str(e.value)


def test_the_command_line_prints_one_line_and_exits_2() -> None:
    """Before: a 16-line OverflowError traceback."""
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "dnnmem",
            "estimate",
            "--network",
            "resnet18",
            "--policy",
            "none + ratio(cap=1)",
            "--capacity",
            "0",
            "--throughput",
            str(R62),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert p.stderr.startswith("dnnmem: error: " + CAP)


def test_a_sweep_row_never_carries_a_wrapped_time() -> None:
    """A sweep evaluates the same points: the point that does not fit stops the sweep with the
    same ValueError (no row with a wrapped time); the others are exact and positive."""
    policy = "none + peak(spm_bandwidth=1MB/s)"  # resnet18 N = 1: about 250 s of floors
    ok = dnnmem.sweep(
        "resnet18", bandwidth=[616e9], throughput=[R62], policy=policy, progress=False
    )
    assert (ok["time"] > 0).all()
    with pytest.raises(ValueError, match=SPM):
        dnnmem.sweep(
            "resnet18",
            bandwidth=[616e9, R62],
            throughput=[R62],
            policy=policy,
            progress=False,
        )


def test_the_same_options_where_they_fit_are_exact() -> None:
    """spm_bandwidth = 1 GB/s at 616 GB/s and 13.45 TFLOPS: each step lasts at least its
    operands' bytes / 1 GB/s (policy none: nothing else moves), so the time is the sum over
    steps of max(compute, streamed bytes / 616 GB/s, operand bytes / 1 GB/s), computed here in
    exact fractions."""
    net = dnnmem.network("resnet18", batch=2)
    r = dnnmem.estimate(net, policy="none + peak(spm_bandwidth=1GB/s)", capacity=0)
    acc = net.accesses
    spm = acc.assign(b=acc["bytes"] * (acc["read"].astype(int) + acc["write"].astype(int)))
    spm_bytes = spm.groupby("step")["b"].sum()
    stream = acc.assign(b=acc["bytes"] * (acc["read"].astype(int) + acc["write"].astype(int)))
    stream_bytes = stream.groupby("step")["b"].sum()
    total = Fraction(0)
    for step, flops in zip(
        net.steps["step"], net.steps["macs"] * 2 + net.steps["flops"] - 2 * net.steps["macs"]
    ):
        total += max(
            Fraction(int(flops), 13_450_000_000_000),
            Fraction(int(stream_bytes.get(step, 0)), 616_000_000_000),
            Fraction(int(spm_bytes.get(step, 0)), 1_000_000_000),
        )
    assert r.time == pytest.approx(float(total), rel=1e-12)
    assert r.steps["time"].sum() == pytest.approx(r.time, rel=1e-12)
    assert np.all(r.steps["time"] >= 0)


def test_a_slow_vector_unit_beyond_64_bits_is_refused() -> None:
    """peak(vector=1/64) counts a non-GEMM step's FLOPs 64 times (its int64 work could wrap): a
    softmax over 2^32 one-byte elements at batch 2^24 has 5 · 2^56 FLOPs, x 64 > 2^62."""
    doc = {
        "name": "wide",
        "layers": [
            {"name": "x", "kind": "input", "shape": [65536, 65536]},
            {"name": "s", "kind": "softmax", "inputs": ["x"]},
        ],
    }
    net = dnnmem.load_network(doc, batch=2**24, bytes_per_element=1)
    r = dnnmem.estimate(net, policy="inference + none + peak(vector=1)")
    assert r.flops == 5 * 2**56
    assert r.compute_time == pytest.approx(5 * 2**56 / 13.45e12, rel=1e-12)
    with pytest.raises(ValueError, match="compute model 'peak': option 'vector' makes a step's"):
        dnnmem.estimate(net, policy="inference + none + peak(vector=0.015625)")

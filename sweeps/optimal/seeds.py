"""Every cache manager's gap to the Lagrangian bounds in the seeds' setups, and GNMT across
capacity (docs/optimality.md).

The setups are the papers' as the seed pages run them: OnSRAM's (the ``onsram`` preset at its
2 MiB scratchpad, batch 1 inference, 2-byte elements, OnSRAM paper Table I), mini-batch
serialization's (one WaveCore core: 10 MiB, 150 GiB/s, 22.9 TFLOPS, MBS paper §4-5), the
interleaved gradient order's two NPUs (the ``igo-edge-npu`` preset at batch 4 and
``igo-server-npu`` at 8, IGO paper §6.1), and the thesis's GNMT (N = 32) across the capacities
of ``gaps.py``, where one LP takes minutes. The bounds are the Lagrangian ones (the default of
``bounds=True``; no extra needed): each bound holds for every cache manager listed.
cDMA's setup is left out: vDNN offloads regardless of an on-chip capacity, and its links
compress, so the bounds (uncompressed bytes under a capacity) do not apply to it.

``--small`` (CI): OnSRAM's setup on two networks.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import pandas as pd

import dnnmem
from dnnmem import optimal

MiB = 2**20
GiB = 2**30
#: The cache managers compared (every one the bounds cover that the setup's scheduler runs).
POLICIES = ["none", "lookahead", "belady", "prefetch-next", "lru", "fifo", "one-step"]
ONSRAM_POLICIES = [*POLICIES, "onsram-static", "onsram-eager-wb"]
CAPACITIES_MIB = [4, 8, 16, 24, 48, 128, 256, 500]


@dataclass
class Setup:
    name: str
    hardware: dnnmem.Hardware
    networks: list[tuple[str, int]]
    scheduler: str = "default"
    policies: list[str] = field(default_factory=lambda: list(POLICIES))
    bytes_per_element: int | None = None
    capacities: list[int] | None = None  # None: the hardware's


def setups(small: bool) -> list[Setup]:
    onsram = Setup(
        "OnSRAM: onsram preset, 2 MiB, batch 1, inference",
        dnnmem.hardware("onsram", capacity="2MiB"),
        [("resnet50", 1), ("mobilenet_v1", 1)]
        if small
        else [(n, 1) for n in ("resnet50", "googlenet", "mobilenet_v1", "squeezenet", "ptb_lstm")],
        scheduler="inference",
        policies=ONSRAM_POLICIES,
        bytes_per_element=2,
    )
    if small:
        return [onsram]
    wavecore = dnnmem.Hardware(
        capacity=10 * MiB,
        bandwidth=150 * GiB,
        throughput=2 * 128 * 128 * 0.7e9,
        name="WaveCore core",
        precision="fp16",
    )
    nets = [
        ("resnet50", 0),
        ("mobilenet_v2", 0),
        ("bert_tiny", 0),
        ("t5_small", 0),
    ]  # (batch below)
    return [
        onsram,
        Setup(
            "MBS: one WaveCore core, 10 MiB, 150 GiB/s",
            wavecore,
            [("resnet50", 32), ("inception_v3", 32), ("inception_v4", 32), ("alexnet", 64)],
            bytes_per_element=2,
        ),
        Setup(
            "IGO: igo-edge-npu, batch 4",
            dnnmem.hardware("igo-edge-npu"),
            [(n, 4) for n, _ in nets],
            bytes_per_element=2,
        ),
        Setup(
            "IGO: igo-server-npu, batch 8",
            dnnmem.hardware("igo-server-npu"),
            [(n, 8) for n, _ in nets],
            bytes_per_element=2,
        ),
        Setup(
            "thesis: GNMT, N = 32, 616 GB/s, 13.45 TFLOPS",
            dnnmem.Hardware(capacity=0, bandwidth=616e9, throughput=13.45e12),
            [("gnmt", 32)],
            capacities=[c * MiB for c in CAPACITIES_MIB],
        ),
    ]


def compute(small: bool = False) -> pd.DataFrame:
    """One row per setup, network, capacity and cache manager: traffic (bytes), time (s), the
    Lagrangian bounds, the gaps (fractions) and the seconds the two bounds took."""
    rows = []
    for s in setups(small):
        for name, batch in s.networks:
            kw = {} if s.bytes_per_element is None else {"bytes_per_element": s.bytes_per_element}
            net = dnnmem.network(name, batch=batch, **kw)
            for cap in s.capacities or [s.hardware.capacity]:
                hw = s.hardware.replace(capacity=cap)
                t0 = time.process_time()
                traffic = optimal.traffic_lower_bound(net, hw, f"{s.scheduler} + none").value
                seconds = optimal.time_lower_bound(net, hw, f"{s.scheduler} + none").value
                solve = time.process_time() - t0
                for p in s.policies:
                    r = dnnmem.estimate(net, hw, policy=f"{s.scheduler} + {p}")
                    rows.append(
                        {
                            "setup": s.name,
                            "network": name,
                            "batch": net.batch,
                            "capacity": cap,
                            "policy": p,
                            "traffic": r.traffic,
                            "time": r.time,
                            "traffic_lower_bound": traffic,
                            "time_lower_bound": seconds,
                            "traffic_gap": r.traffic / traffic - 1 if traffic else 0.0,
                            "time_gap": r.time / seconds - 1,
                            "bound_cpu_s": solve,
                        }
                    )
    return pd.DataFrame(rows)


def table(df: pd.DataFrame) -> str:
    """The page's tables: per setup, one row per network (per capacity for GNMT), the traffic
    gap / time gap of each cache manager in %, and the bounds."""
    lines = []
    for setup, g in df.groupby("setup", sort=False):
        policies = list(dict.fromkeys(g["policy"]))
        lines.append(f"\n**{setup}** (traffic gap / time gap, %)\n")
        lines.append("| network | " + " | ".join(f"`{p}`" for p in policies) + " | bounds |")
        lines.append("|---" * (len(policies) + 2) + "|")
        for (name, batch, cap), h in g.groupby(["network", "batch", "capacity"], sort=False):
            h = h.set_index("policy")
            label = f"{name} N={batch}" + (
                f", {cap // MiB} MiB" if setup.startswith("thesis") else ""
            )
            cells = [
                f"{100 * h.loc[p, 'traffic_gap']:.1f} / {100 * h.loc[p, 'time_gap']:.1f}"
                for p in policies
            ]
            b = h.iloc[0]
            bound = (
                f"{dnnmem.units.format_bytes(b['traffic_lower_bound'])} / "
                f"{b['time_lower_bound'] * 1e3:.3g} ms"
            )
            lines.append(f"| {label} | " + " | ".join(cells) + f" | {bound} |")
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args()
    df = compute(args.small)
    print(table(df))
    print(
        f"\nbounds: {df.drop_duplicates(['setup', 'network', 'capacity'])['bound_cpu_s'].sum():.1f} CPU s"
    )

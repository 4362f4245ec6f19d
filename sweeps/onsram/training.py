"""Beyond the OnSRAM paper: its scratchpad managers on the training schedule (forward and
backward) against the thesis's ``lookahead`` (Bélády with look-ahead offload and prefetch), on
the thesis's workloads (Table 5.1) and capacities, RTX 2080 Ti (13.45 TFLOP/s, 616 GB/s).

    python sweeps/onsram/training.py [--small]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "training"
WORKLOADS = {"resnet50": 32, "mobilenet_v2": 32, "gnmt": 32, "transformer": 128}
SMALL_WORKLOADS = {"resnet18": 2}
CAPACITIES_MIB = [24, 64, 128, 256, 500, 1000]
SMALL_CAPACITIES_MIB = [24, 128, 500]
POLICIES = {
    "none": "none",
    "one-step": "one-step",
    "onsram-static": "onsram-static",
    "onsram-static (hybrid order)": "default(order=hybrid) + onsram-static",
    "onsram-static (split)": "onsram-static(split=phase)",
    "eager-wb": "onsram-eager-wb",
    "eager-spec": "onsram-eager-spec",
    "infinite-spm": "infinite-spm",
    "lookahead": "lookahead",
}


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (network, capacity, policy): ``time`` (s per iteration), ``traffic`` (bytes
    in + out), ``speedup`` over the same policy with cache manager ``none``
    (:attr:`dnnmem.Result.speedup`), ``pinned`` (tensors), ``pinned_bytes`` and
    ``recompute_time`` (s) from the result's pin report."""
    rows = []
    for name, batch in (SMALL_WORKLOADS if small else WORKLOADS).items():
        net = dnnmem.network(name, batch=batch)
        for mib in SMALL_CAPACITIES_MIB if small else CAPACITIES_MIB:
            hw = dnnmem.Hardware(capacity=mib * 2**20, bandwidth=616e9, throughput=13.45e12)
            none = dnnmem.estimate(net, hw, policy="none")
            for label, policy in POLICIES.items():
                r = dnnmem.estimate(net, hw, policy=policy)
                if r.composition.replace(cache="none") == none.composition:
                    r.baseline = none  # the same composition with none: computed once
                rows.append(
                    {
                        "network": name,
                        "batch": batch,
                        "capacity_mib": mib,
                        "policy": label,
                        "time": r.time,
                        "traffic": r.traffic_in + r.traffic_out,
                        "speedup": r.speedup,
                        "pinned": r.pinned,
                        "pinned_bytes": r.pinned_bytes,
                        "recompute_time": r.recompute_time,
                    }
                )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> Figure:
    """Speedup over ``none`` vs capacity, one panel per network, one line per policy."""
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(df["network"]))
    fig, axes = plt.subplots(1, len(names), figsize=(4.5 * len(names), 3.5), squeeze=False)
    for ax, name in zip(axes[0], names):
        g = df[df["network"] == name]
        for label, p in g.groupby("policy", sort=False):
            ax.plot(p["capacity_mib"], p["speedup"], marker="o", label=label)
        ax.set_xscale("log")
        ax.set_xlabel("on-chip capacity (MiB)")
        ax.set_ylabel("speedup over none (training iteration)")
        ax.set_title(f"{name}, N={int(g['batch'].iloc[0])}")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("OnSRAM managers in training vs the thesis's lookahead (RTX 2080 Ti)")
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    C.main(NAME, compute, plot)

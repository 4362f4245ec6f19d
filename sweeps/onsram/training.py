"""Beyond the OnSRAM paper: its scratchpad managers on the training schedule (forward and
backward) against the thesis's ``lookahead`` (Bélády with look-ahead offload and prefetch), on
the thesis's workloads (Table 5.1) and capacities, RTX 2080 Ti (13.45 TFLOP/s, 616 GB/s).

    python sweeps/onsram/training.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _onsram as C
import pandas as pd
from _pages import gb, num, table, times

import dnnmem
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("onsram", "beyond", "training")
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


#: The policies as the figures and the page name them (one name per policy on every seed
#: page: ``OnSRAM-Static`` is the paper's, with the hybrid order).
NAMES = {
    "none": "none",
    "one-step": "1-Step",
    "onsram-static": "OnSRAM-Static, thesis order",
    "onsram-static (hybrid order)": "OnSRAM-Static",
    "onsram-static (split)": "OnSRAM-Static, split",
    "eager-wb": "Eager W/B",
    "eager-spec": "Eager Spec",
    "infinite-spm": "∞ SPM",
    "lookahead": "lookahead",
}


def plot(df: pd.DataFrame) -> Figure:
    """Speedup over ``none`` vs capacity, one panel per network, one line per policy."""
    names = list(dict.fromkeys(df["network"]))
    fig, axes = style.figure(1, len(names), panel=(4.4, 3.6))
    caps = sorted(df["capacity_mib"].unique())
    for ax, name in zip(axes[0], names):
        g = df[(df["network"] == name) & (df["policy"] != "none")]
        style.lines(ax, {NAMES.get(p, p): (d["capacity_mib"], d["speedup"])
                         for p, d in g.groupby("policy", sort=False)})  # fmt: skip
        style.log_ticks(ax, caps, base=10, fmt=lambda v: f"{v:g}")
        ax.axhline(1, color="k", lw=0.6)
        ax.set_xlabel("on-chip capacity (MiB)")
        ax.grid(True, alpha=0.3)
        ax.set_title(f"{style.display_name(name)}, N={int(g['batch'].iloc[0])}", fontsize=10)
    axes[0, 0].set_ylabel("speedup over none (×)")
    fig.suptitle("OnSRAM managers in training vs the thesis's lookahead (RTX 2080 Ti: "
                 "13.45 TFLOP/s, 616 GB/s)", fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Speedup per network, capacity and policy, and the comparisons the page's text makes."""
    df = tables["training"]
    pols = [p for p in POLICIES if p in set(df["policy"])]
    rows = []
    for (name, batch, mib), g in df.groupby(["network", "batch", "capacity_mib"], sort=False):
        s = g.set_index("policy")["speedup"]
        rows.append(
            [f"{style.display_name(name)}, {batch}", f"{mib:g}", *(num(s[p]) for p in pols)]
        )
    header = ["network, N", "MiB", *(NAMES[p] for p in pols)]
    k = df.set_index(["network", "capacity_mib", "policy"])

    def sp(n: str, mib: int, p: str) -> str:
        return num(k.loc[(n, mib, p), "speedup"])

    def tr(n: str, mib: int, p: str) -> str:
        return gb(k.loc[(n, mib, p), "traffic"])

    static_le = bool((df[df["policy"] == "onsram-static"].set_index(["network", "capacity_mib"])["speedup"]
                      <= df[df["policy"] == "lookahead"].set_index(["network", "capacity_mib"])["speedup"] + 1e-12).all())  # fmt: skip
    s1 = df[df["policy"] == "onsram-static"].set_index(["network", "capacity_mib"])["speedup"]
    o1 = df[df["policy"] == "one-step"].set_index(["network", "capacity_mib"])["speedup"]
    eager = df[df["policy"].str.startswith("eager")].groupby("network")["speedup"].max()
    facts = [
        ("OnSRAM-Static (thesis order) at or below `lookahead` at every capacity",
         "yes" if static_le else "no"),
        ("ResNet-50 at 256 MiB: Static, split, lookahead",
         f"{sp('resnet50', 256, 'onsram-static')}, {sp('resnet50', 256, 'onsram-static (split)')}, "
         f"{sp('resnet50', 256, 'lookahead')}"),
        ("MobileNetV2 at 500 MiB: Static, split, lookahead",
         f"{sp('mobilenet_v2', 500, 'onsram-static')}, "
         f"{sp('mobilenet_v2', 500, 'onsram-static (split)')}, {sp('mobilenet_v2', 500, 'lookahead')}"),
        ("MobileNetV2 at 500 MiB, traffic: Static, split, lookahead",
         f"{tr('mobilenet_v2', 500, 'onsram-static')}, {tr('mobilenet_v2', 500, 'onsram-static (split)')}, "
         f"{tr('mobilenet_v2', 500, 'lookahead')}"),
        ("ResNet-50 at 64 MiB: split vs lookahead (speedup; traffic)",
         f"{num(k.loc[('resnet50', 64, 'onsram-static (split)'), 'speedup'], 3)} vs "
         f"{num(k.loc[('resnet50', 64, 'lookahead'), 'speedup'], 3)}; "
         f"{tr('resnet50', 64, 'onsram-static (split)')} vs {tr('resnet50', 64, 'lookahead')}"),
        ("ResNet-50 at 1000 MiB: Static vs ∞ SPM",
         f"{sp('resnet50', 1000, 'onsram-static')} vs {sp('resnet50', 1000, 'infinite-spm')}"),
        ("GNMT at 1000 MiB: lookahead, ∞ SPM, split",
         f"{sp('gnmt', 1000, 'lookahead')}, {sp('gnmt', 1000, 'infinite-spm')}, "
         f"{sp('gnmt', 1000, 'onsram-static (split)')}"),
        ("Static over 1-Step, at most", times((s1 / o1).max())),
        ("Eager (W/B or Spec), at most", ", ".join(f"{style.display_name(n)} {num(v)}"
                                                   for n, v in eager.items())),
    ]  # fmt: skip
    return {
        "training": table(header, rows),
        "training_facts": table(["what the text below compares", "dnnmem"], facts),
    }


if __name__ == "__main__":
    C.main(sys.modules[__name__])

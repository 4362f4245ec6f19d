"""Beyond the MBS paper: mini-batch serialization on the thesis's GPU presets (RTX 2080 Ti,
Radeon RX 6900 XT, A100 40 GB; the last-level cache as the buffer, FP32, peak compute), against
the thesis's ``lookahead`` on the unserialized schedule: ResNet-50 and Inception-v3 at the
paper's 32 samples. MBS2 plans its sub-batches for the preset's cache; where one sample of a
layer does not fit it (the scheduler's error, kept in the ``error`` column), serialization
cannot run at all.

    python sweeps/mbs/beyond_gpus.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import num, table, times

import dnnmem
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "beyond", "gpus")

GPUS = ("rtx2080ti", "rx6900xt", "a100")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = ("resnet50",) if small else ("resnet50", "inception_v3")
    gpus = ("a100",) if small else GPUS
    for name in nets:
        net = dnnmem.network(name, batch=32, bytes_per_element=4)
        for gpu in gpus:
            hw = dnnmem.hardware(gpu, precision="fp32")
            for config, policy in C.beyond_configurations(hw.capacity).items():
                row = {
                    "network": name,
                    "gpu": gpu,
                    "capacity_mib": hw.capacity / C.MiB,
                    "config": config,
                }
                try:
                    row.update(C.run(net, hw, policy))
                except ValueError as e:  # the cache is smaller than one sample of a layer
                    row["error"] = str(e)
                rows.append(row)
    return C.vs_baseline(pd.DataFrame(rows), ["network", "gpu"])


GPU_NAMES = {"rtx2080ti": "RTX 2080 Ti", "rx6900xt": "RX 6900 XT", "a100": "A100"}


def _gpus(df: pd.DataFrame) -> list[str]:
    """The GPUs in the order of their cache (numeric)."""
    caps = df.drop_duplicates("gpu").set_index("gpu")["capacity_mib"]
    return list(caps.sort_values(kind="stable").index)


def _label(df: pd.DataFrame, gpu: str) -> str:
    cap = float(df.loc[df["gpu"] == gpu, "capacity_mib"].iloc[0])
    return f"{GPU_NAMES.get(gpu, gpu)} ({cap:g} MiB)"


def plot(df: pd.DataFrame) -> Figure:
    """Traffic and speedup relative to the Baseline per GPU (by cache size), one panel per
    network; a configuration that cannot run (one sample does not fit) has no bar."""
    nets = C.ordered(list(df["network"]))
    fig, axes = style.figure(2, len(nets), panel=(5.5, 3.2))
    configs = [c for c in dict.fromkeys(df["config"]) if c != "Baseline"]
    for j, name in enumerate(nets):
        d = df[df["network"] == name]
        gpus = _gpus(d)
        for i, (col, what) in enumerate((("traffic_ratio", "traffic"), ("speedup", "speedup"))):
            ax = axes[i, j]
            t = d.pivot(index="gpu", columns="config", values=col).loc[gpus, configs]
            t.index = [_label(d, g) for g in gpus]
            style.bars(ax, t, reference=1.0, missing="one sample does not fit")
            ax.set_ylabel(f"{what} vs Baseline (×)")
            ax.set_title(style.display_name(name), fontsize=10)
    fig.suptitle("MBS on the thesis's GPUs: the last-level cache as the buffer, FP32, 32 samples",
                 fontsize=10)  # fmt: skip
    style.legend(fig)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's table of the GPUs, and the ranges its text quotes."""
    df = tables["beyond_gpus"]
    rows = []
    configs = [c for c in dict.fromkeys(df["config"]) if c != "Baseline"]
    for name in C.ordered(list(df["network"])):
        d = df[df["network"] == name]
        for gpu in _gpus(d):
            g = d[d["gpu"] == gpu].set_index("config")
            cells = []
            for c in configs:
                err = g.at[c, "error"] if "error" in g.columns else float("nan")
                ok = not isinstance(err, str)
                cells.append(f"{num(g.at[c, 'traffic_ratio'], 3)}, {times(g.at[c, 'speedup'])}"
                             if ok else "—")  # fmt: skip
            mbs = g.loc["MBS2 strict"]
            if isinstance(mbs.get("error"), str):
                m = re.search(r"layer '([^']+)' needs .*?\((\d+) bytes\)", mbs["error"])
                why = (
                    f"one sample of `{m[1]}` needs {num(int(m[2]) / 1e6, 1)} MB"
                    if m
                    else mbs["error"]
                )
            else:
                why = str(mbs["sub_batches"])
            rows.append([f"{style.display_name(name)}, {_label(d, gpu)}", *cells, why])
    ran = df[df["config"] != "Baseline"].dropna(subset=["traffic_ratio"])
    mbs = ran[ran["config"].str.startswith("MBS2")]
    gain = {g: mbs[mbs["gpu"] == g]["speedup"] for g in _gpus(df)}
    text = (
        f"Where it runs, serialization cuts traffic to {num(mbs['traffic_ratio'].min())}–"
        f"{num(mbs['traffic_ratio'].max())} of the Baseline's; the time it buys depends on how "
        "memory-bound the GPU is: "
        + "; ".join(
            f"the {GPU_NAMES.get(g, g)} gains {num(100 * (s.min() - 1), 0)}–{num(100 * (s.max() - 1), 0)} %"
            for g, s in gain.items()
            if len(s)
        )
        + "."
    )  # fmt: skip
    header = ["network, GPU (cache)", *configs, "MBS2 sub-batches"]
    return {"beyond_gpus": table(header, rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

"""Beyond the MBS paper: the MBS2 schedule under dnnmem's ``lookahead`` cache manager (Bélády
replacement, latency-aware prefetch, look-ahead offload over the serialized steps) against the
paper's strict accounting on the same schedule, and against ``lookahead`` on the unserialized
schedule, at the same buffer sizes (ResNet-50 and Inception-v3, one WaveCore core).

    python sweeps/mbs/beyond_lookahead.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import num, share, table, times

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "beyond", "lookahead")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = ("resnet50",) if small else ("resnet50", "inception_v3")
    for name in nets:
        net = C.load(name, 32)
        for mib in (10, 20) if small else (10, 20, 40):
            hw = C.core(capacity=mib * C.MiB)
            for config, policy in C.beyond_configurations(hw.capacity).items():
                rows.append(
                    {"network": name, "buffer_mib": mib, "config": config, **C.run(net, hw, policy)}
                )
    return C.vs_baseline(pd.DataFrame(rows), ["network", "buffer_mib"])


def plot(df: pd.DataFrame) -> Figure:
    """Traffic and speedup relative to the Baseline against the buffer, one panel per network
    and quantity, one line per configuration."""
    nets = C.ordered(list(df["network"]))
    fig, axes = style.figure(2, len(nets), panel=(4.8, 3.2))
    for j, name in enumerate(nets):
        d = df[(df["network"] == name) & (df["config"] != "Baseline")]
        for i, (col, what) in enumerate((("traffic_ratio", "traffic"), ("speedup", "speedup"))):
            ax = axes[i, j]
            style.lines(
                ax, {c: (g["buffer_mib"], g[col]) for c, g in d.groupby("config", sort=False)}
            )
            ax.set_xticks(sorted(d["buffer_mib"].unique()))
            ax.set_xlabel("buffer (MiB)")
            ax.set_ylabel(f"{what} vs Baseline (×)")
            ax.set_title(style.display_name(name), fontsize=10)
            ax.grid(True, alpha=0.3)
            if col == "traffic_ratio":
                ax.set_ylim(0, 1.05)
    fig.suptitle("MBS with dnnmem's cache manager: one WaveCore core, 32 samples", fontsize=10)
    style.legend(fig)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Traffic relative to the Baseline, then speedup, per network, buffer and configuration;
    and the comparisons the page's text makes."""
    df = tables["beyond_lookahead"]
    configs = [c for c in dict.fromkeys(df["config"]) if c != "Baseline"]
    rows = []
    for name in C.ordered(list(df["network"])):
        for mib in sorted(df.loc[df["network"] == name, "buffer_mib"].unique()):
            g = df[(df["network"] == name) & (df["buffer_mib"] == mib)].set_index("config")
            rows.append([f"{style.display_name(name)}, {mib:g} MiB",
                         *(f"{num(g.at[c, 'traffic_ratio'], 3)}, {times(g.at[c, 'speedup'])}"
                           for c in configs)])  # fmt: skip
    k = ["network", "buffer_mib"]
    strict = df[df["config"] == "MBS2 strict"].set_index(k)
    both = df[df["config"] == "MBS2 + lookahead"].set_index(k)
    fewer = 1 - both["traffic"] / strict["traffic"]
    faster = both["speedup"] / strict["speedup"] - 1
    f10 = tables["fig10_configs"]
    trusted = f10[(f10["network"] == "resnet50") & (f10["encodings"] == "default")
                  & (f10["config"] == "MBS2 (fit trusted)")]["traffic_ratio"].iloc[0]  # fmt: skip
    text = (
        f"On the serialized steps, Bélády with prefetch moves {num(100 * fewer.min(), 0)}–"
        f"{share(fewer.max(), 0)} fewer bytes than the paper's fixed rules at the same buffer, "
        f"and is {num(100 * faster.min(), 0)}–{share(faster.max(), 0)} faster. With the fit "
        f"trusted (an unlimited buffer for the strict rules, `fig10_configs.py`), ResNet-50 at "
        f"10 MiB: strict {num(trusted, 3)} vs Bélády {num(both.loc[('resnet50', 10), 'traffic_ratio'], 3)}."
    )  # fmt: skip
    return {"beyond_lookahead": table(["network, buffer", *configs], rows) + "\n" + text + "\n"}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

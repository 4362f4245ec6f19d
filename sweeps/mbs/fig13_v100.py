"""MBS paper Fig. 13: one WaveCore chip with MBS2 and LPDDR4 against an NVIDIA V100, training
throughput (samples/s) per network.

The paper: "Although a single WaveCore has 30% the peak compute and 27% the memory bandwidth
(LPDDR4) of V100, it still exhibits better training performance. The performance gap widens as
the network depth increases" (§6; V100 running Caffe, no numbers given). Here:

- WaveCore: two cores, each as in ``_mbs.core`` with half of the LPDDR4 bandwidth (119.6 GiB/s),
  32 samples per core (64 per chip, AlexNet 64 per core); the cores run independently (§4.2),
  so the chip's throughput is twice a core's. Configurations Baseline and MBS2.
- V100: the ``v100`` preset at FP16 (125 TFLOP/s tensor-core peak, 900 GB/s, 6 MiB L2 as the
  cache), the whole chip's mini-batch, layer by layer: ``default + none`` (nothing kept, the
  closest to a framework's layer-by-layer execution) and ``default + lookahead`` (dnnmem's
  cache manager on the L2); and at FP32 (15.7 TFLOP/s, 4 B/element, ``default + none``), the
  precision Caffe trains in by default. Peak throughput is an upper bound on Caffe's speed.

    python sweeps/mbs/fig13_v100.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import joined, num, table, times

import dnnmem
from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "fig13", "v100")


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = {"resnet50": 32} if small else C.NETWORKS
    core = C.core(bandwidth=C.MEMORY["LPDDR4"], memory_type="lpddr4")
    v100 = dnnmem.hardware("v100", precision="fp16")
    v100_fp32 = dnnmem.hardware("v100", precision="fp32")
    for name, batch in nets.items():
        net = C.load(name, batch)
        for config in ("Baseline", "MBS2"):
            row = C.run(net, core, C.configurations(core.capacity)[config])
            rows.append(
                {
                    "network": name,
                    "system": f"WaveCore LPDDR4 {config}",
                    "samples_per_s": 2 * batch / row["time"],
                    **row,
                }
            )
        chip = C.load(name, 2 * batch)
        for policy in ("default + none", "default + lookahead"):
            row = C.run(chip, v100, policy)
            rows.append(
                {
                    "network": name,
                    "system": f"V100 {policy.split(' + ')[1]}",
                    "samples_per_s": 2 * batch / row["time"],
                    **row,
                }
            )
        # FP32 without tensor cores (15.7 TFLOP/s, 4 B/element): Caffe's default precision.
        chip32 = dnnmem.network(name, batch=2 * batch, bytes_per_element=4)
        row = C.run(chip32, v100_fp32, "default + none")
        rows.append(
            {
                "network": name,
                "system": "V100 FP32 none",
                "samples_per_s": 2 * batch / row["time"],
                **row,
            }
        )
    df = pd.DataFrame(rows)
    ref = df[df["system"] == "V100 none"].set_index("network")["samples_per_s"]
    df["vs_v100"] = df["samples_per_s"] / df["network"].map(ref)
    return df


def plot(df: pd.DataFrame) -> Figure:
    """Throughput relative to the V100 (FP16, layer by layer, nothing kept), per network."""
    fig, axes = style.figure(panel=(7.5, 3.8))
    ax = axes[0, 0]
    t = df.pivot(index="network", columns="system", values="vs_v100")
    t = t.loc[C.ordered(list(df["network"])), list(dict.fromkeys(df["system"]))]
    style.bars(ax, t, reference=1.0)
    ax.set_ylabel("training throughput / V100 FP16 none")
    ax.set_title("MBS Fig. 13 analogue: WaveCore (2 cores, LPDDR4) vs V100 (peak FLOP/s)",
                 fontsize=10)  # fmt: skip
    style.legend(ax)
    return style.tidy(fig)


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's Fig. 13 row."""
    s = tables["fig13_v100"].set_index(["network", "system"])["samples_per_s"]
    nets = C.ordered(list(s.index.levels[0]))
    deep = [n for n in nets if n != "alexnet"]

    def vs(n: str, ref: str) -> float:
        return float(s[n, "WaveCore LPDDR4 MBS2"] / s[n, ref])

    row = (
        'WaveCore (LPDDR4) vs V100 (Fig. 13: "it still exhibits better training performance")',
        "WaveCore faster",
        "MBS2 on LPDDR4 vs an FP32 V100: "
        + joined(num(vs(n, "V100 FP32 none")) for n in deep)
        + f"× (AlexNet {times(vs('alexnet', 'V100 FP32 none'))}); vs the V100's FP16 tensor-core "
        "peak: "
        + joined(num(vs(n, "V100 none")) for n in deep)
        + f"× (AlexNet {times(vs('alexnet', 'V100 none'))})",
        "Our V100 runs at its peak (15.7 TFLOP/s FP32, 125 FP16), an upper bound on Caffe's speed; "
        "the paper's V100 numbers are measured. The paper's \"gap widens with depth\" does not "
        "show: "
        + style.display_name(min(deep, key=lambda n: vs(n, "V100 FP32 none")))
        + " gains least.",
    )
    return {"fig13_v100": table(["quantity", "paper", "dnnmem", "why they differ"], [row])}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

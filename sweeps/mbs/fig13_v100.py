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

    python sweeps/mbs/fig13_v100.py [--small] [--no-plot]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd

import dnnmem

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = "mbs_fig13_v100"


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    nets = {"resnet50": 32} if small else C.NETWORKS
    core = C.core(bandwidth=C.MEMORY["LPDDR4"])
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
    """Throughput relative to the V100 (layer by layer, nothing kept), per network."""
    return C.bars(
        df,
        "network",
        "system",
        "vs_v100",
        "training throughput / V100 (none)",
        "MBS Fig. 13 analogue: WaveCore (LPDDR4) vs V100 (FP16 peak)",
    )


if __name__ == "__main__":
    C.main(NAME, compute, plot)

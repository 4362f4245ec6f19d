"""The mini-batch serialization paper's energy claim in joules (docs/model/energy.md): MBS2's
saving over the Baseline on one WaveCore core (10 MiB, 150 GiB/s HBM2, 32 nm, 0.7 GHz, fp16),
in the joule model (static energy included) beside the relative ``energy`` column, and the DRAM
share of the Baseline's and MBS1's joules.

    python sweeps/energy/mbs_joules.py [--small]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mbs"))
import _mbs as C  # noqa: E402  (the MBS scripts' core, configurations and networks)

NETWORKS = ("resnet50", "inception_v3", "inception_v4")


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (network, encodings): the savings and shares, in %."""
    hw = C.core().replace(memory_type="hbm2", node="32nm", clock="700MHz")
    rows = []
    for name in NETWORKS[:1] if small else NETWORKS:
        net = C.load(name, 8 if small else 32)
        for encodings in ("", C.PAPER_ENCODINGS):
            cfg = C.configurations(hw.capacity, encodings)
            r = {k: dnnmem_result(net, hw, cfg[k]) for k in ("Baseline", "MBS1", "MBS2")}
            base, mbs1, mbs2 = r["Baseline"], r["MBS1"], r["MBS2"]
            rows.append(
                {
                    "network": name,
                    "encodings": "paper" if encodings else "default",
                    "mbs2_saved_joules_pct": 100 * (1 - mbs2.energy_j / base.energy_j),
                    "mbs2_saved_relative_pct": 100 * (1 - mbs2.energy / base.energy),
                    "baseline_dram_share_pct": 100 * base.energy_dram_j / base.energy_j,
                    "mbs1_dram_share_pct": 100 * mbs1.energy_dram_j / mbs1.energy_j,
                    "baseline_static_share_pct": 100
                    * (base.energy_static_j + base.energy_sram_leakage_j)
                    / base.energy_j,
                }
            )
    return pd.DataFrame(rows)


def dnnmem_result(net, hw, policy):  # type: ignore[no-untyped-def]
    import dnnmem

    return dnnmem.estimate(net, hw, policy=policy)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="ResNet-50 at batch 8 only")
    a = p.parse_args()
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(compute(a.small).round(1).to_string(index=False))

"""What operator fusion would change on the thesis's four networks (docs/thesis-figures.md,
"What fusion would change"; docs/model/fusion.md).

The thesis's figures keep fusion ``none`` (its Fig. 5.5 has batch-norm and activation kinds of
their own). This script evaluates the four workloads of Table 5.1 on the RTX 2080 Ti under
``lookahead`` at fusion ``none``, ``pointwise`` and ``accelerator``, at 24, 128 and 400 MiB,
and prints the traffic, the time, the steps and the share of the time in type-II steps. The full
mode writes them to ``tests/data/thesis/fusion.csv``, the numbers the page's section shows
(``tests/python/test_fusion_thesis.py`` checks the page against them and them against the
engine); ``--small`` (batch 2) only prints.

    python sweeps/thesis/fusion.py [--small]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

import dnnmem

WORKLOADS = {"resnet50": 32, "mobilenet_v2": 32, "gnmt": 32, "transformer": 128}
CAPACITIES_MIB = (24, 128, 400)
LEVELS = ("none", "pointwise", "accelerator")
DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "thesis" / "fusion.csv"


def compute(small: bool = False, networks: Iterable[str] = tuple(WORKLOADS)) -> pd.DataFrame:
    """One row per (network, capacity, level): ``traffic`` (bytes), ``time`` (s), ``steps``,
    ``type_ii_share`` (of the time, by the class of each step's first layer) and the ratios of
    traffic and time to fusion ``none``. ``networks``: a subset of the four workloads."""
    rows = []
    for name in networks:
        batch = WORKLOADS[name]
        net = dnnmem.network(name, batch=2 if small else batch)
        for mib in CAPACITIES_MIB:
            hw = dnnmem.Hardware(
                capacity=mib * 2**20, bandwidth="616GB/s", throughput="13.45TFLOPS"
            )
            for level in LEVELS:
                r = dnnmem.estimate(net, hw, policy=f"lookahead + fusion={level}")
                by_class = r.by_class()
                rows.append(
                    {
                        "network": name,
                        "capacity_mib": mib,
                        "fusion": level,
                        "steps": net.with_fusion(level).num_steps,
                        "traffic": r.traffic,
                        "time": r.time,
                        "type_ii_share": float(by_class.get("II", 0.0) / r.time),
                    }
                )
    df = pd.DataFrame(rows)
    base = df[df["fusion"] == "none"].set_index(["network", "capacity_mib"])
    key = list(zip(df["network"], df["capacity_mib"]))
    df["traffic_vs_none"] = df["traffic"].to_numpy() / base.loc[key, "traffic"].to_numpy()
    df["time_vs_none"] = df["time"].to_numpy() / base.loc[key, "time"].to_numpy()
    return df


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--small", action="store_true", help="batch 2 (seconds)")
    a = p.parse_args()
    df = compute(small=a.small)
    with pd.option_context("display.width", 200):
        print(df.round(4).to_string(index=False))
    if not a.small:  # a quick mode never writes into tests/data/
        DATA.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(DATA, index=False)
        print(f"-> {DATA}")


if __name__ == "__main__":
    main()

"""How much the modelling assumptions move the thesis figures' headline numbers (measured).

Each variant changes one assumption through the public API (the core is untouched) and
re-measures the same quantities as the baseline (lookahead, FP32, 2 FLOPs per MAC, the zoo's
network definitions, RTX 2080 Ti):

- ``ops_per_mac=1``: the thesis says "operations" without saying whether a MAC is 1 or 2 of
  them (SPEC §2); 1 halves the type-I FLOPs only, point-wise constants stay.
- ``prefetch-next`` (rule 4 with k = 1) and ``belady`` (no prefetch at all): stand-ins for a
  different prefetch / DMA ordering; ``no-lookahead``: offloads only when the space is needed
  (Fig. 4.2a), a stand-in for the offload ordering.
- ``fp16``: 2-byte elements (every tensor halves; FLOPs unchanged).
- ``variant``: another reading of the network definition — Transformer "base" (d_model 512,
  8 heads, d_ff 2048) instead of the "big" width Table 5.1's H = 1024 implies; GNMT with 4
  encoder and 4 decoder layers (the MLPerf reference) instead of the paper's 8. The CNNs follow
  keras.applications exactly and have none.

The streaming rule (a non-resident access needs no capacity) has no switch in the API; the
``none`` policy (every access streamed) bounds its effect from one side.

    python sweeps/thesis/sensitivity.py [--small] [--force]
"""

from __future__ import annotations

import argparse
import functools
from typing import Any

import _common as C
import numpy as np
import pandas as pd

import dnnmem

NAME = "sensitivity"
CAPACITIES = [c * C.MIB for c in (24, 128, 400, 500)]
THROUGHPUTS = [C.RTX_2080_TI["throughput"], C.RADEON_6900_XT["throughput"]]

#: variant name -> (policy, ops_per_mac, bytes_per_element, builder options per network)
VARIANTS: dict[str, tuple[str, int, int, dict[str, dict[str, Any]] | None]] = {
    "baseline": ("lookahead", 2, 4, None),
    "ops_per_mac=1": ("lookahead", 1, 4, None),
    "prefetch-next": ("prefetch-next", 2, 4, None),
    "belady (no prefetch)": ("belady", 2, 4, None),
    "no-lookahead": ("no-lookahead", 2, 4, None),
    "fp16": ("lookahead", 2, 2, None),
    "network variant": (
        "lookahead",
        2,
        4,
        {
            "transformer": {"d_model": 512, "heads": 8, "d_ff": 2048},
            "gnmt": {"layers": 4},
        },
    ),
    "none (all streamed)": ("none", 2, 4, None),
}


@functools.lru_cache(maxsize=32)
def _variant_network(name: str, batch: int, options: tuple) -> dnnmem.Network:
    return dnnmem.network(name, batch=batch, **dict(options))


def compute(small: bool = False, force: bool = False) -> pd.DataFrame:
    """One row per (network, variant, capacity, throughput): ``time`` (s), ``traffic``
    (bytes), ``type2_share`` (fraction of the time in type-II steps) and ``utilization``.
    ``small`` drops GNMT's 8 variants to 3 (its 26k steps dominate)."""
    names = C.workloads()
    params = {
        "networks": {n: C.WORKLOADS[n] for n in names},
        "capacity": CAPACITIES,
        "throughput": THROUGHPUTS,
        "bandwidth": C.RTX_2080_TI["bandwidth"],
        "variants": {k: repr(v) for k, v in VARIANTS.items()},
        "small": small,
    }

    def run() -> pd.DataFrame:
        rows = []
        for n in names:
            batch = C.WORKLOADS[n]
            for variant, (policy, opm, bpe, options) in VARIANTS.items():
                if small and n == "gnmt" and variant not in ("baseline", "ops_per_mac=1", "fp16"):
                    continue
                if options is not None:
                    if n not in options:
                        continue
                    net = _variant_network(n, batch, tuple(sorted(options[n].items())))
                else:
                    net = C.load(n, batch, bpe)
                for thr in THROUGHPUTS:
                    for cap in CAPACITIES:
                        r = dnnmem.estimate(
                            net,
                            policy=policy,
                            capacity=cap,
                            bandwidth=C.RTX_2080_TI["bandwidth"],
                            throughput=thr,
                            ops_per_mac=opm,
                        )
                        by = r.by_class()
                        rows.append(
                            {
                                "network": n,
                                "variant": variant,
                                "capacity": cap,
                                "throughput": thr,
                                "time": r.time,
                                "traffic": r.traffic,
                                "type2_share": float(by.get("II", 0.0)) / r.time,
                                "utilization": r.utilization,
                            }
                        )
        return pd.DataFrame(rows)

    return C.cached(NAME, params, run, force)


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per (network, variant): ``time_24``, ``time_400`` (s, 13.45 TFLOP/s), ``traffic_drop``
    and ``time_drop`` from 24 to 500 MiB (fraction), ``speedup_24``, ``speedup_400`` (time at
    13.45 / 23.04 TFLOP/s), ``type2_24`` (type-II share of the time at 24 MiB)."""
    lo, hi = THROUGHPUTS
    out = []
    for (n, v), g in df.groupby(["network", "variant"], sort=False):
        t = g.set_index(["throughput", "capacity"])
        at = lambda col, thr, cap: float(t.loc[(thr, cap * C.MIB), col])  # noqa: E731
        out.append(
            {
                "network": n,
                "variant": v,
                "time_24": at("time", lo, 24),
                "time_400": at("time", lo, 400),
                "traffic_drop": 1 - at("traffic", lo, 500) / at("traffic", lo, 24),
                "time_drop": 1 - at("time", lo, 500) / at("time", lo, 24),
                "speedup_24": at("time", lo, 24) / at("time", hi, 24),
                "speedup_400": at("time", lo, 400) / at("time", hi, 400),
                "type2_24": at("type2_share", lo, 24),
            }
        )
    s = pd.DataFrame(out)
    base = s[s.variant == "baseline"].set_index("network")
    for col in ("time_24", "time_400"):
        s[f"{col}_vs_base"] = s[col] / s["network"].map(base[col]) - 1
    return s.replace([np.inf, -np.inf], np.nan)


if __name__ == "__main__":
    p = argparse.ArgumentParser(description="Measure the sensitivity of the thesis numbers.")
    p.add_argument("--small", action="store_true")
    p.add_argument("--force", action="store_true")
    a = p.parse_args()
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summary(compute(small=a.small, force=a.force)).round(4).to_string(index=False))

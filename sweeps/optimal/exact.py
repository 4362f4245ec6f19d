"""The exact traffic optimum (the integer program, HiGHS) on small zoo networks beside
``lookahead``'s and ``lp-rounded``'s traffic and the bounds (docs/optimality.md).

For each network (batch 1, 4-byte elements) at 10, 30 and 60 % of its peak alive bytes: the
least traffic any plan of the model moves (``traffic_lower_bound(exact=True)``; ``proved``
False where the solver stopped at its time limit, the value then its dual bound), the LP and
Lagrangian bounds, the two cache managers' traffic, and the CPU seconds of the integer
program. Needs the ``optimal`` extra. ``--small`` (CI): ``mha_block`` at two capacities.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

import dnnmem
from dnnmem import optimal

NETWORKS = ["mha_block", "ncf", "alexnet", "nin", "vgg16", "resnet18"]
SHARES = [0.1, 0.3, 0.6]
TIME_LIMIT = 60.0  # s for one integer program


def compute(small: bool = False) -> pd.DataFrame:
    rows = []
    for name in ["mha_block"] if small else NETWORKS:
        net = dnnmem.network(name, batch=1)
        peak = net.schedule.peak_alive_bytes()
        for share in [0.1, 0.6] if small else SHARES:
            cap = int(peak * share)
            t0 = time.process_time()
            exact = optimal.traffic_lower_bound(
                net, capacity=cap, exact=True, time_limit=TIME_LIMIT
            )
            seconds = time.process_time() - t0
            rows.append(
                {
                    "network": name,
                    "full_uses": len(optimal._instance(net.schedule).tensor),
                    "share": share,
                    "capacity": cap,
                    "optimum": exact.value,
                    "proved": exact.exact,
                    "milp_cpu_s": seconds,
                    "lp": optimal.traffic_lower_bound(net, capacity=cap, method="lp").value,
                    "lagrangian": optimal.traffic_lower_bound(net, capacity=cap).value,
                    "lookahead": dnnmem.estimate(net, capacity=cap).traffic,
                    "lp-rounded": dnnmem.estimate(net, capacity=cap, policy="lp-rounded").traffic,
                }
            )
    return pd.DataFrame(rows)


def table(df: pd.DataFrame) -> str:
    """The page's table: bytes in MB, the others in % of the optimum."""

    def pct(x: float, opt: float) -> str:
        return f"{100 * (x / opt - 1):+.2f} %" if opt else "0"

    lines = [
        "| network (full uses) | capacity | optimum | LP | Lagrangian | `lookahead` | "
        "`lp-rounded` | MILP |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, r in df.iterrows():
        opt = r["optimum"]
        lines.append(
            f"| {r['network']} ({r['full_uses']}) | {r['share']:.0%} of peak "
            f"({r['capacity'] / 1e6:.3g} MB) | {opt / 1e6:.4g} MB"
            f"{'' if r['proved'] else ' (not proved)'} | "
            + " | ".join(pct(r[c], opt) for c in ("lp", "lagrangian", "lookahead", "lp-rounded"))
            + f" | {r['milp_cpu_s']:.2f} s |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--small", action="store_true")
    print(table(compute(ap.parse_args().small)))

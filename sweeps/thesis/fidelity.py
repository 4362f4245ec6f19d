"""Fidelity to the thesis: three calibration observations and how each reading moves them.

The thesis (Tsai, "A Performance Analytical Model for DNN Training with Focus on Memory
Subsystem", master's thesis, National Taiwan University, 2021) reports, in its Chapter 5
results, three numbers that we use as a calibration set (RTX 2080 Ti of Table 5.2:
13.45 TFLOP/s, 616 GB/s; the batches of Table 5.1; policy ``lookahead``):

- ResNet-50: the execution time falls from 24 to 500 MiB by 48.1 %;
- GNMT: the off-chip traffic (in + out) falls from 24 to 500 MiB by 96.6 %;
- Transformer: the off-chip traffic falls from 24 to 128 MiB by 67 %.

This script measures them under dnnmem's defaults, under every candidate reading of the
thesis alone (one change from the defaults each), and under the ``thesis`` reading
(:func:`dnnmem.thesis_reading`), and prints the table (``--markdown``: the table that
``docs/thesis-figures.md`` shows).

    python sweeps/thesis/fidelity.py [--markdown] [--force] [--write-doc]

``--write-doc`` rewrites only this script's generated blocks of ``docs/thesis-figures.md``
(``fidelity``, ``fidelity-sensitivity``, ``fidelity-elsewhere``, ``fidelity-checks``);
``report.py`` writes them too, with the rest of the page.
"""

from __future__ import annotations

import argparse
import functools
from dataclasses import dataclass, field
from typing import Any

import _common as C
import pandas as pd

import dnnmem

NAME = "fidelity"

#: observation -> (network of Table 5.1, quantity, capacity from, to (MiB), the thesis's value)
OBSERVATIONS: dict[str, tuple[str, str, int, int, float]] = {
    "resnet50 time drop 24→500 MiB": ("resnet50", "time", 24, 500, 0.481),
    "gnmt traffic drop 24→500 MiB": ("gnmt", "traffic", 24, 500, 0.966),
    "transformer traffic drop 24→128 MiB": ("transformer", "traffic", 24, 128, 0.67),
}


@dataclass(frozen=True)
class Variant:
    """One reading: FLOPs per MAC, bytes per element, and the zoo network (name, builder
    options) that stands for each workload of Table 5.1 it changes."""

    ops_per_mac: int = 2
    bytes_per_element: int = 4
    nets: tuple[tuple[str, str, tuple[tuple[str, Any], ...]], ...] = field(default=())
    policy: str = C.POLICY
    capacity_unit: int = C.MIB

    def network_for(self, workload: str) -> tuple[str, tuple[tuple[str, Any], ...]]:
        for w, name, options in self.nets:
            if w == workload:
                return name, options
        return workload, ()


def _v(
    ops_per_mac: int = 2,
    bytes_per_element: int = 4,
    policy: str = C.POLICY,
    **nets: tuple[str, dict],
) -> Variant:
    return Variant(
        ops_per_mac,
        bytes_per_element,
        tuple((w, n, tuple(sorted(o.items()))) for w, (n, o) in nets.items()),
        policy,
    )


#: Candidate readings, one change from the defaults each (the sensitivity table's rows).
VARIANTS: dict[str, Variant] = {
    "default (ops_per_mac=2, FP32, paper networks)": _v(),
    "ops_per_mac=1 (an operation is a MAC)": _v(ops_per_mac=1),
    "FP16 elements (2 bytes)": _v(bytes_per_element=2),
    "GNMT 4+4 layers (MLPerf reference)": _v(gnmt=("gnmt", {"layers": 4})),
    "GNMT 2+2 layers": _v(gnmt=("gnmt", {"layers": 2})),
    "GNMT without vocabulary projection": _v(gnmt=("gnmt", {"vocab_projection": False})),
    "GNMT T=25": _v(gnmt=("gnmt", {"seq_len": 25})),
    "Transformer base (d_model 512, 8 heads, d_ff 2048)": _v(
        transformer=("transformer", {"d_model": 512, "heads": 8, "d_ff": 2048})
    ),
    "Transformer 3+3 layers": _v(transformer=("transformer", {"layers": 3})),
    "Transformer without vocabulary projection": _v(
        transformer=("transformer", {"vocab_projection": False})
    ),
    "Transformer untied embeddings": _v(transformer=("transformer", {"tie_embeddings": False})),
    "Transformer vocab 33,708": _v(transformer=("transformer", {"vocab": 33708})),
    "Transformer without dropout": _v(transformer=("transformer", {"dropout": False})),
    "Transformer without dropout or vocabulary projection": _v(
        transformer=("transformer", {"dropout": False, "vocab_projection": False})
    ),
    "Transformer ReLU folded into the first FFN dense": _v(
        transformer=("transformer", {"relu_layer": False})
    ),
    "Transformer without ReLU layer, dropout or vocabulary projection": _v(
        transformer=(
            "transformer",
            {"relu_layer": False, "dropout": False, "vocab_projection": False},
        )
    ),
    "Transformer T=25": _v(transformer=("transformer", {"seq_len": 25})),
    "Transformer T=100": _v(transformer=("transformer", {"seq_len": 100})),
    "policy belady (no prefetch, offload when full)": _v(policy="belady"),
    "policy no-lookahead (Fig. 4.2a)": _v(policy="no-lookahead"),
    "scheduler split-backward (dX and dW as two steps)": _v(policy="split-backward + lookahead"),
    "streaming through the cache (Listing 1: a step's tensors occupy the cache)": _v(
        policy="lookahead(streaming=through-cache)"
    ),
    "capacities in MB = 10^6 bytes (not MiB)": Variant(capacity_unit=10**6),
}


@functools.lru_cache(maxsize=64)
def _net(name: str, batch: int, bpe: int, options: tuple) -> dnnmem.Network:
    return dnnmem.network(name, batch=batch, bytes_per_element=bpe, **dict(options))


def measure(variant: Variant) -> dict[str, float]:
    """The three observations (fractions) under ``variant`` on the RTX 2080 Ti."""
    out = {}
    for obs, (workload, quantity, lo, hi, _) in OBSERVATIONS.items():
        name, options = variant.network_for(workload)
        net = _net(name, C.WORKLOADS[workload], variant.bytes_per_element, options)
        vals = []
        for cap in (lo, hi):
            r = dnnmem.estimate(
                net,
                policy=variant.policy,
                capacity=cap * variant.capacity_unit,
                bandwidth=C.RTX_2080_TI["bandwidth"],
                throughput=C.RTX_2080_TI["throughput"],
                ops_per_mac=variant.ops_per_mac,
            )
            vals.append(r.time if quantity == "time" else r.traffic)
        out[obs] = 1 - vals[1] / vals[0]
    return out


def thesis_variant() -> Variant:
    """The ``thesis`` reading of :func:`dnnmem.thesis_reading` as a :class:`Variant`."""
    r = dnnmem.thesis_reading()
    nets = tuple(
        (w, name, tuple(sorted(opts.items())))
        for w, (name, _, opts) in r.workloads.items()
        if name != w or opts
    )
    return Variant(r.ops_per_mac, r.bytes_per_element, nets)


def compute(force: bool = False) -> pd.DataFrame:
    """One row per reading: the three observations (fractions) and their change from the
    default reading (points)."""
    variants = dict(VARIANTS)
    variants["thesis reading (dnnmem.thesis_reading())"] = thesis_variant()
    params = {"variants": {k: repr(v) for k, v in variants.items()}, "observations": OBSERVATIONS}

    def run() -> pd.DataFrame:
        return pd.DataFrame([{"reading": k, **measure(v)} for k, v in variants.items()])

    return C.cached(NAME, params, run, force)


ELSEWHERE_CAPACITIES = (24, 128, 400, 1000)
ELSEWHERE_THROUGHPUTS = (C.RTX_2080_TI["throughput"], C.RADEON_6900_XT["throughput"])


def elsewhere(force: bool = False) -> pd.DataFrame:
    """What the thesis reading changes beyond the three observations it was checked against:
    per workload of Table 5.1, capacity (24, 128, 400, 1000 MiB) and throughput (13.45 and
    23.04 TFLOP/s of Table 5.2, 616 GB/s), the time (s) and traffic (bytes) under the default
    reading and the thesis reading, and the thesis reading's change (fraction)."""
    readings = {
        "default": VARIANTS["default (ops_per_mac=2, FP32, paper networks)"],
        "thesis": thesis_variant(),
    }
    params = {
        "readings": {k: repr(v) for k, v in readings.items()},
        "capacity": ELSEWHERE_CAPACITIES,
        "throughput": ELSEWHERE_THROUGHPUTS,
    }

    def run() -> pd.DataFrame:
        rows = []
        for w, batch in C.WORKLOADS.items():
            for thr in ELSEWHERE_THROUGHPUTS:
                for cap in ELSEWHERE_CAPACITIES:
                    row: dict[str, Any] = {"network": w, "throughput": thr, "capacity": cap}
                    for k, v in readings.items():
                        name, options = v.network_for(w)
                        net = _net(name, batch, v.bytes_per_element, options)
                        r = dnnmem.estimate(
                            net,
                            policy=v.policy,
                            capacity=cap * C.MIB,
                            bandwidth=C.RTX_2080_TI["bandwidth"],
                            throughput=thr,
                            ops_per_mac=v.ops_per_mac,
                        )
                        row[f"time_{k}"], row[f"traffic_{k}"] = r.time, r.traffic
                    rows.append(row)
        d = pd.DataFrame(rows)
        d["time_change"] = d.time_thesis / d.time_default - 1
        d["traffic_change"] = d.traffic_thesis / d.traffic_default - 1
        return d

    return C.cached(NAME + "-elsewhere", params, run, force)


def markdown(df: pd.DataFrame) -> str:
    """``df`` as a markdown table (first column left-aligned, the others right-aligned)."""
    return C.markdown_table([str(c) for c in df.columns], df.itertuples(index=False))


def elsewhere_table(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`elsewhere` as printed (ms, GiB, % change)."""
    rows = []
    for r in df.itertuples():
        rows.append(
            {
                "network": r.network,
                "TFLOP/s": f"{r.throughput / C.TFLOPS:.2f}",
                "capacity (MiB)": r.capacity,
                "time default (ms)": f"{1e3 * r.time_default:.2f}",
                "time thesis (ms)": f"{1e3 * r.time_thesis:.2f}",
                "time change": f"{100 * r.time_change:+.1f} %",
                "traffic default (GiB)": f"{r.traffic_default / 2**30:.2f}",
                "traffic thesis (GiB)": f"{r.traffic_thesis / 2**30:.2f}",
                "traffic change": f"{100 * r.traffic_change:+.1f} %",
            }
        )
    return pd.DataFrame(rows)


def table(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as printed: each observation in % with its change from the default in points."""
    base = df.iloc[0]
    rows = []
    for _, r in df.iterrows():
        row = {"reading": r["reading"]}
        for obs in OBSERVATIONS:
            d = 100 * (r[obs] - base[obs])
            row[obs] = f"{100 * r[obs]:.1f} %" + ("" if r.name == 0 else f" ({d:+.1f} pt)")
        rows.append(row)
    rows.append(
        {
            "reading": "thesis (Ch. 5)",
            **{obs: f"{100 * v[4]:.1f} %" for obs, v in OBSERVATIONS.items()},
        }
    )
    return pd.DataFrame(rows)


def observations_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per observation: the thesis, the default, the thesis reading, their differences."""
    base = df.iloc[0]
    th = df[df["reading"].str.startswith("thesis reading")].iloc[0]
    rows = []
    for obs, v in OBSERVATIONS.items():
        rows.append(
            {
                "observation": obs,
                "thesis": f"{100 * v[4]:.1f} %",
                "dnnmem default": f"{100 * base[obs]:.1f} %",
                "difference (default)": f"{100 * (base[obs] - v[4]):+.1f} pt",
                "dnnmem thesis reading": f"{100 * th[obs]:.1f} %",
                "difference (reading)": f"{100 * (th[obs] - v[4]):+.1f} pt",
            }
        )
    return pd.DataFrame(rows)


def checks() -> pd.DataFrame:
    """The quantities the page's prose explains the observations with (thesis reading unless
    the row says default; RTX 2080 Ti)."""
    r = dnnmem.thesis_reading()
    rows = []

    def lstm_weights(net: dnnmem.Network) -> int:
        t = net.tensors
        return int(t[(t["role"] == "weight") & t["name"].str.contains("/W_")]["bytes"].sum())

    w_default = lstm_weights(_net("gnmt", 32, 4, ()))
    gnmt = r.network("gnmt")
    w = lstm_weights(gnmt)
    rows.append(("GNMT LSTM weights, default (8 + 8 layers)", f"{w_default / C.MIB:,.0f} MiB"))
    rows.append(("GNMT LSTM weights, thesis reading (4 + 4 layers)", f"{w / C.MIB:,.0f} MiB"))
    res = dnnmem.estimate(
        gnmt, r.hardware(capacity=24 * C.MIB), policy=r.policy, ops_per_mac=r.ops_per_mac
    )
    d = res.traffic_in - res.traffic_out
    T = 50
    rows.append(
        (
            "GNMT in − out at 24 MiB (Fig. 5.2 caption: ≈ (T − 1)·cap(W))",
            f"{d / 2**30:.1f} GiB = {d / ((T - 1) * w):.2f} × (T − 1)·cap(W) = "
            f"{d / ((2 * T - 1) * w):.2f} × (2T − 1)·cap(W)",
        )
    )
    tr = r.network("transformer")
    t = tr.tensors
    act = t[t["name"] == "Y:dec6_f_ln"]["bytes"].iloc[0]
    logits = t[t["name"] == "Y:out_proj"]["bytes"].iloc[0]
    rows.append(("Transformer activation [N·T, d_model] (N = 128, FP32)", f"{act / C.MIB:.0f} MiB"))
    rows.append(("Transformer logits [N·T, vocab]", f"{logits / C.MIB:,.0f} MiB"))
    by = {}
    for cap in (24, 128, 500):
        x = dnnmem.estimate(
            tr, r.hardware(capacity=cap * C.MIB), policy=r.policy, ops_per_mac=r.ops_per_mac
        )
        by[cap] = x
    rows.append(
        (
            "Transformer traffic at 24 / 128 / 500 MiB",
            " / ".join(f"{by[c].traffic / 2**30:.1f}" for c in (24, 128, 500)) + " GiB",
        )
    )
    none = dnnmem.estimate(
        tr, r.hardware(capacity=24 * C.MIB), policy="none", ops_per_mac=r.ops_per_mac
    ).traffic
    rows.append(
        (
            "Transformer traffic with no cache at all (policy none: every access moved once)",
            f"{none / 2**30:.1f} GiB ({by[24].traffic / none:.0%} of it is moved at 24 MiB)",
        )
    )
    rows.append(
        (
            "Transformer traffic at 128 MiB that a 64 % drop (67 % less the tolerance) needs, "
            "from the no-cache traffic",
            f"≤ {0.36 * none / 2**30:.1f} GiB (dnnmem: {by[128].traffic / 2**30:.1f} GiB at "
            f"128 MiB, {by[500].traffic / 2**30:.1f} GiB at 500 MiB)",
        )
    )
    through = {
        c: dnnmem.estimate(
            tr,
            r.hardware(capacity=c * C.MIB),
            policy="lookahead(streaming=through-cache)",
            ops_per_mac=r.ops_per_mac,
        ).traffic
        for c in (24, 128)
    }
    rows.append(
        (
            "Transformer traffic at 24 / 128 MiB, streaming through the cache",
            " / ".join(f"{through[c] / 2**30:.1f}" for c in (24, 128))
            + f" GiB (drop {1 - through[128] / through[24]:.1%})",
        )
    )
    s500 = by[500].steps
    rows.append(
        (
            "Transformer activation traffic at 500 MiB (in + out: forward → backward)",
            f"{(s500.bytes_in_activation.sum() + s500.bytes_out_activation.sum()) / 2**30:.1f}"
            f" GiB; all traffic at 500 MiB: {by[500].traffic / by[24].traffic:.0%} of that at"
            " 24 MiB",
        )
    )
    return pd.DataFrame(rows, columns=["quantity", "value"])


def block_checks() -> str:
    """The page's block: :func:`checks`."""
    return markdown(checks())


def block_observations(df: pd.DataFrame) -> str:
    """The page's block: the three observations, thesis vs default vs thesis reading."""
    return markdown(observations_table(df))


def block_sensitivity(df: pd.DataFrame) -> str:
    """The page's block: every candidate reading's three observations."""
    return markdown(table(df))


def block_elsewhere(df: pd.DataFrame) -> str:
    """The page's block: what the thesis reading changes on the four workloads."""
    return markdown(elsewhere_table(df))


def write_doc(force: bool = False) -> None:
    """Rewrite this script's generated blocks of ``docs/thesis-figures.md``."""
    import report

    d, e = compute(force=force), elsewhere(force=force)
    blocks = {
        "fidelity": block_observations(d),
        "fidelity-sensitivity": block_sensitivity(d),
        "fidelity-elsewhere": block_elsewhere(e),
        "fidelity-checks": block_checks(),
    }
    report.DOC.write_text(report.render(report.DOC.read_text(), blocks))
    print(f"fidelity: {report.DOC}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(
        description="Measure the thesis's three calibration observations under each reading."
    )
    p.add_argument("--markdown", action="store_true", help="print markdown tables")
    p.add_argument("--force", action="store_true", help="recompute even if cached")
    p.add_argument(
        "--write-doc",
        action="store_true",
        help="rewrite this script's blocks of docs/thesis-figures.md",
    )
    a = p.parse_args()
    if a.write_doc:
        write_doc(a.force)
        raise SystemExit(0)
    d = compute(force=a.force)
    for t in (observations_table(d), table(d), elsewhere_table(elsewhere(force=a.force))):
        if a.markdown:
            print(markdown(t))
        else:
            with pd.option_context(
                "display.width", 250, "display.max_columns", 20, "display.max_colwidth", 60
            ):
                print(t.to_string(index=False))
        print()

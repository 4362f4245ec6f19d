"""MBS paper §5, the Baseline's "two-level GEMM input matrix blocking": how many bytes a blocked
GEMM re-reads from DRAM inside one layer step, which dnnmem's tensor-granularity accounting does
not count (every step reads each operand once). docs/model/mbs.md ("Intra-layer re-reads of a
blocked GEMM") defines both readings; docs/seeds/mbs.md reports them.

``resident`` (the paper's text: blocking "for effective data reuse within each convolution and FC
layer", §5, and "baseline training reads weights and writes weight gradients just once per
layer", §3): a GEMM keeps one of its three matrices in the buffer when it fits (an input, or the
output at the 32-bit accumulation width) and streams the other two once; otherwise panels of the
smaller input, the larger read once per panel. ``panel`` (not in the text, a bound): the buffer
holds one array-wide panel of the weights (128 columns, §4.1) and streams the activation operand
once per panel whenever that operand does not fit.

    python sweeps/mbs/gemm_blocking.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING

import _mbs as C
import pandas as pd
from _pages import share, table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("mbs", "beyond", "gemm_blocking")

#: The two readings of the blocking (docs/model/mbs.md).
READINGS = ("resident", "panel")
#: The schedules of the paper's configurations: the Baseline, ArchOpt and IL run the default one.
SCHEDULES = {"default": ("Baseline", "IL"), "fs": ("MBS-FS",), "mbs1": ("MBS1",),
             "mbs2": ("MBS2",)}  # fmt: skip
#: WaveCore's array width: a tile of C is n = 128 columns wide (§4.1).
ARRAY_COLS = 128
#: Partial sums are accumulated in 32 bits from 16-bit data (§4.2): the output held on chip
#: while a GEMM accumulates is twice its 16-bit bytes.
ACCUMULATION = 2


def blocked_rereads(a: float, b: float, c: float, capacity: float, reading: str,
                    cols: int = 0, weight: str = "") -> float:  # fmt: skip
    """The extra DRAM bytes one GEMM reads under ``reading`` (docs/model/mbs.md): ``a`` and
    ``b`` its input operands' bytes, ``c`` its output's bytes (16-bit), ``capacity`` the
    buffer's bytes; for ``panel``, ``weight`` names the weight operand (``"a"``, ``"b"`` or
    ``""`` for none) and ``cols`` the GEMM's n, the weight's columns."""
    if reading == "resident":
        small, large = min(a, b), max(a, b)
        if small <= capacity or ACCUMULATION * c <= capacity:
            return 0.0
        return (math.ceil(small / capacity) - 1) * large
    if reading == "panel":
        if not weight:  # a weight-gradient GEMM: its output is the weight's size
            return blocked_rereads(a, b, c, capacity, "resident")
        act = b if weight == "a" else a
        return 0.0 if act <= capacity else (math.ceil(cols / ARRAY_COLS) - 1) * act
    raise ValueError(f"reading {reading!r}: expected one of {READINGS}")


def gemm_operands(net: C.dnnmem.Network) -> pd.DataFrame:
    """One row per GEMM of ``net``'s schedule: its step, ``gemm`` (``fwd``, ``dx`` or ``dw``),
    ``n``, and the bytes of its operands ``a`` (activation or output gradient), ``b`` (weight,
    or output gradient for ``dw``) and output ``c``, summed over the step's slices."""
    g = pd.DataFrame(net.schedule.gemm_table())
    acc = net.accesses
    reads = acc[acc["read"] & ~acc["write"]].groupby(["step", "role"])["bytes"].sum()
    writes = acc[acc["write"]].groupby(["step", "role"])["bytes"].sum()
    phase = net.steps.set_index("step")["phase"]

    def rd(step: int, role: str) -> float:
        return float(reads.get((step, role), 0))

    def wr(step: int, role: str) -> float:
        return float(writes.get((step, role), 0))

    rows = []
    for step, part in g.groupby("step", sort=True):
        ns = part["n"].tolist()
        if phase[step] == "fwd":
            rows.append((step, "fwd", ns[0], rd(step, "activation"), rd(step, "weight"),
                         wr(step, "activation"), "b"))  # fmt: skip
            continue
        dy, x = rd(step, "gradient"), rd(step, "activation")
        if len(ns) == 2:  # dX = dY · Wᵀ first, then dW = Xᵀ · dY (the schedule's order)
            rows.append((step, "dx", ns[0], dy, rd(step, "weight"), wr(step, "gradient"), "b"))
        rows.append((step, "dw", ns[-1], x, dy, wr(step, "weight_grad"), ""))
    return pd.DataFrame(rows, columns=["step", "gemm", "n", "a", "b", "c", "weight"])


def rereads(ops: pd.DataFrame, capacity: float, reading: str) -> pd.Series:
    """:func:`blocked_rereads` of every row of :func:`gemm_operands`."""
    return pd.Series(
        [blocked_rereads(r.a, r.b, r.c, capacity, reading, r.n, r.weight) for r in ops.itertuples()],
        index=ops.index, dtype=float,
    )  # fmt: skip


def compute(small: bool = False) -> pd.DataFrame:
    """Every network at 10 MiB (Fig. 10) and ResNet-50 also at 5 and 40 MiB (Fig. 11); ``small``:
    ResNet-50 at 10 MiB."""
    nets = {"resnet50": 32} if small else C.NETWORKS
    rows = []
    for name, batch in nets.items():
        net = C.load(name, batch)
        for mib in (5, 10, 40) if name == "resnet50" and not small else (10,):
            for sched in SCHEDULES:
                s = net if sched == "default" else net.with_scheduler(
                    f"mbs(variant={sched}, buffer={mib * C.MiB})")  # fmt: skip
                ops = gemm_operands(s)
                for reading in READINGS:
                    extra = rereads(ops, mib * C.MiB, reading)
                    rows.append({"network": name, "buffer_mib": mib, "schedule": sched,
                                 "reading": reading, "reread_bytes": float(extra.sum()),
                                 "gemms_blocked": int((extra > 0).sum())})  # fmt: skip
    return pd.DataFrame(rows)


def with_rereads(tables: dict[str, pd.DataFrame], reading: str) -> dict[str, pd.DataFrame]:
    """The saved Fig. 10 and Fig. 11 tables with ``reading``'s re-reads added to every
    configuration's traffic and the traffic ratios recomputed (the other columns unchanged:
    time and energy do not see the re-reads)."""
    rr = tables["gemm_blocking"]
    rr = rr[rr["reading"] == reading].set_index(["network", "buffer_mib", "schedule"])
    config_schedule = {c: s for s, cs in SCHEDULES.items() for c in cs}

    def extra(net: str, mib: int, config: str) -> float:
        sched = config_schedule.get(config.split(" (")[0], "")
        return float(rr["reread_bytes"].get((net, mib, sched), 0.0)) if sched else 0.0

    f10 = tables["fig10_configs"].copy()
    f10["traffic"] = f10["traffic"] + [
        extra(n, 10, c) for n, c in zip(f10["network"], f10["config"])
    ]
    base = f10[f10["config"] == "Baseline"].set_index(["network", "encodings"])["traffic"]
    f10["traffic_ratio"] = f10["traffic"] / [
        base[(n, e)] for n, e in zip(f10["network"], f10["encodings"])
    ]
    f11 = tables["fig11_buffer"].copy()
    f11["traffic"] = f11["traffic"] + [
        extra("resnet50", m, c) for m, c in zip(f11["buffer_mib"], f11["config"])
    ]
    il5 = float(f11[(f11["config"] == "IL") & (f11["buffer_mib"] == 5)]["traffic"].iloc[0])
    f11["traffic_vs_il5"] = f11["traffic"] / il5
    return {**tables, "fig10_configs": f10, "fig11_buffer": f11}  # fmt: skip


def plot(df: pd.DataFrame) -> Figure:
    """Left: ResNet-50's re-reads against the buffer; right: every network's at 10 MiB, as a
    share of the bytes the schedule's GEMMs read once (both on the default schedule: the MBS
    schedules re-read nothing in either reading)."""
    fig, axes = style.figure(1, 2, panel=(5.0, 3.6))
    d = df[df["schedule"] == "default"]
    series = {}
    for reading in READINGS:
        r = d[(d["reading"] == reading) & (d["network"] == "resnet50")]
        series[f"Baseline, IL: {reading}"] = (r["buffer_mib"], r["reread_bytes"] / 1e9)
    mbs = df[(df["schedule"] != "default") & (df["network"] == "resnet50")]
    mbs = mbs.groupby("buffer_mib")["reread_bytes"].max()
    series["MBS-FS, MBS1, MBS2: both"] = (mbs.index.to_numpy(), mbs.to_numpy() / 1e9)
    ax = axes[0, 0]
    style.lines(ax, series)
    ax.set_xlabel("global buffer (MiB)")
    ax.set_ylabel("intra-layer re-reads (GB)")
    ax.set_title("ResNet-50, 32 samples", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    at10 = d[d["buffer_mib"] == 10].pivot(index="network", columns="reading", values="reread_bytes")
    at10 = at10.reindex(C.ordered(list(at10.index)))[list(READINGS)] / 1e9
    ax = axes[0, 1]
    style.bars(ax, at10)
    ax.set_ylabel("intra-layer re-reads at 10 MiB (GB)")
    ax.set_title("Baseline and IL schedule, 10 MiB", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    style.legend(fig, below=True, ncol=3)
    fig.suptitle("MBS §5: DRAM re-reads of a blocked GEMM, 16-bit", fontsize=10)
    return fig


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The page's block: re-read bytes as a share of each schedule's Baseline traffic, per
    reading, network and buffer."""
    df = tables["gemm_blocking"]
    f10 = tables["fig10_configs"]
    base = f10[(f10["config"] == "Baseline") & (f10["encodings"] == "default")]
    base = base.set_index("network")["traffic"]
    rows = []
    for (reading, net), d in df.groupby(["reading", "network"], sort=False):
        cells = []
        for sched in SCHEDULES:
            s = d[d["schedule"] == sched].set_index("buffer_mib")["reread_bytes"]
            cells.append(" / ".join(share(s[m] / base[net], 0) for m in sorted(s.index)))
        rows.append((f"`{reading}`", style.display_name(net), *cells))
    head = ["reading", "network", "Baseline, IL", "MBS-FS", "MBS1", "MBS2"]
    return {"gemm_blocking": table(head, rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

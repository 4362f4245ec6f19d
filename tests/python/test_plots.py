"""dnnmem.plots on a small real sweep (ResNet-50, batch 1–2, a few capacities): each figure has
its title, axis labels with units, the expected lines / bars / legend entries, and data that
match the sweep; bad input raises naming the missing columns."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import typing
from collections.abc import Iterable
from typing import Union

import numpy as np
import pandas as pd
import pytest

import dnnmem

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dnnmem import plots  # noqa: E402

MIB = 2**20
CAPS = [4 * MIB, 16 * MIB, 64 * MIB]
GDDR6, HBM2E = 616e9, 1555e9  # thesis Fig. 5.4
T2080, T6900 = 13.45e12, 23.04e12  # thesis Fig. 5.3


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    """Rows as dnnmem.sweep returns them (here from Result.to_dict(), same columns)."""
    nets = {b: dnnmem.network("resnet50", batch=b) for b in (1, 2)}
    points = set()
    for cap in CAPS:
        for thr in (T2080, T6900):
            points.add((2, "lookahead", cap, GDDR6, thr))
        points.add((2, "lookahead", cap, HBM2E, T2080))
        points.add((2, "belady", cap, GDDR6, T2080))
        points.add((1, "lookahead", cap, GDDR6, T2080))
    rows = [
        dnnmem.estimate(nets[b], policy=p, capacity=c, bandwidth=bw, throughput=t).to_dict()
        for b, p, c, bw, t in sorted(points)
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def result() -> dnnmem.Result:
    return dnnmem.estimate("resnet50", batch=2, capacity="8MiB", bandwidth=GDDR6, throughput=T2080)


def legend_labels(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_import_dnnmem_does_not_import_matplotlib():
    code = "import sys, dnnmem; dnnmem.plots; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --------------------------------------------------------------------------------------------
# against capacity and batch (Figs. 5.2, 5.3, 5.4, 5.6)
# --------------------------------------------------------------------------------------------
def test_traffic_vs_capacity(sweep):
    # dnnmem.sweep returns network and policy as categoricals (grid order): the same plot.
    cat = sweep.assign(
        network=pd.Categorical(sweep["network"]),
        policy=pd.Categorical(sweep["policy"], ["lookahead", "belady", "none"]),
    )
    ax = plots.traffic_vs_capacity(cat, batch=2, bandwidth="616GB/s", throughput=T2080)
    assert ax.get_title().splitlines()[0] == "Off-chip traffic vs capacity"
    assert ax.get_title().splitlines()[1] == "resnet50 · N=2 · 616 GB/s · 13.45 TFLOPS"
    assert ax.get_xlabel() == "on-chip capacity (MiB)"
    assert ax.get_ylabel() == "traffic per iteration (MiB)"
    # Two policies remain ("none" has no rows and no line), and at these capacities their
    # traffic is the same: one in / out pair, whose legend entry names both, then the styles.
    rows = sweep[
        (sweep.batch == 2)
        & (sweep.bandwidth == GDDR6)
        & (sweep.throughput == T2080)
        & (sweep.policy == "lookahead")
    ].sort_values("capacity")
    other = sweep[
        (sweep.batch == 2)
        & (sweep.bandwidth == GDDR6)
        & (sweep.throughput == T2080)
        & (sweep.policy == "belady")
    ].sort_values("capacity")
    assert list(rows["traffic_in"]) == list(other["traffic_in"])
    assert list(rows["traffic_out"]) == list(other["traffic_out"])
    assert legend_labels(ax) == ["lookahead / belady", "traffic in", "traffic out"]
    assert len(ax.get_lines()) == 2
    line_in, line_out = ax.get_lines()[0:2]
    np.testing.assert_allclose(line_in.get_xdata(), [4, 16, 64])
    np.testing.assert_allclose(line_in.get_ydata(), rows["traffic_in"] / MIB)
    np.testing.assert_allclose(line_out.get_ydata(), rows["traffic_out"] / MIB)


def test_time_vs_capacity_with_speedup(sweep):
    ax = plots.time_vs_capacity(sweep, batch=2, bandwidth=GDDR6, policy="lookahead")
    assert ax.get_title().startswith("Iteration time vs capacity")
    assert ax.get_ylabel() == "time per iteration (ms)"
    assert ax.get_xlabel() == "on-chip capacity (MiB)"
    right = ax.figure.axes[-1]
    assert right is not ax and right.get_ylabel() == "speedup (×)"
    assert legend_labels(ax) == [
        "time 13.45 TFLOPS",
        "time 23.04 TFLOPS",
        "speedup 23.04 TFLOPS / 13.45 TFLOPS",
        "bound 23.04/13.45 = 1.71",
    ]
    rows = sweep[(sweep.batch == 2) & (sweep.bandwidth == GDDR6) & (sweep.policy == "lookahead")]
    t = rows.pivot(index="capacity", columns="throughput", values="time")
    speedup, bound = right.get_lines()
    np.testing.assert_allclose(speedup.get_ydata(), t[T2080] / t[T6900])
    np.testing.assert_allclose(bound.get_ydata(), [23.04 / 13.45] * 2)
    assert np.all(speedup.get_ydata() <= 23.04 / 13.45 + 1e-12)  # SPEC §8 P3 bounds it


def test_time_vs_capacity_without_speedup(sweep):
    ax = plots.time_vs_capacity(
        sweep, batch=[1, 2], bandwidth=GDDR6, throughput=T2080, policy="lookahead"
    )
    assert len(ax.figure.axes) == 1
    assert legend_labels(ax) == ["time N=1", "time N=2"]
    with pytest.raises(ValueError, match="speedup needs exactly two throughputs"):
        plots.time_vs_capacity(
            sweep, speedup=True, batch=2, bandwidth=GDDR6, throughput=T2080, policy="lookahead"
        )
    ax = plots.time_vs_capacity(sweep, speedup=False, batch=2, bandwidth=GDDR6, policy="lookahead")
    assert len(ax.figure.axes) == 1 and len(ax.get_lines()) == 2


def test_bandwidth_vs_capacity(sweep):
    # Default: % of each line's own peak, so that 616 GB/s and 1555 GB/s share one 0-100 scale.
    ax = plots.bandwidth_vs_capacity(sweep, batch=2, throughput=T2080, policy="lookahead")
    assert ax.get_title().startswith("Average off-chip bandwidth vs capacity")
    assert ax.get_ylabel() == "average bandwidth (% of peak)"
    assert legend_labels(ax) == [
        "average 616 GB/s",
        "average 1.555 TB/s",
        "peak bandwidth (100 %)",
    ]  # format_bandwidth's own unit
    assert ax.get_ylim() == (0, 105)
    lines = ax.get_lines()
    rows = sweep[
        (sweep.batch == 2)
        & (sweep.throughput == T2080)
        & (sweep.policy == "lookahead")
        & (sweep.bandwidth == HBM2E)
    ].sort_values("capacity")
    np.testing.assert_allclose(lines[1].get_ydata(), 100 * rows["avg_bandwidth"] / HBM2E)
    np.testing.assert_allclose(lines[2].get_ydata(), [100, 100])
    assert np.all(lines[1].get_ydata() <= 100 * (1 + 1e-12))  # never above the peak
    # Absolute, as the thesis draws it: GB/s on a log axis, each peak dotted and named on it.
    ax = plots.bandwidth_vs_capacity(
        sweep, batch=2, throughput=T2080, policy="lookahead", relative=False
    )
    assert ax.get_ylabel() == "average bandwidth (GB/s)" and ax.get_yscale() == "log"
    assert legend_labels(ax) == ["average 616 GB/s", "average 1.555 TB/s"]
    lines = ax.get_lines()
    np.testing.assert_allclose(lines[1].get_ydata(), rows["avg_bandwidth"] / 1e9)
    np.testing.assert_allclose(lines[2].get_ydata(), [616, 616])
    np.testing.assert_allclose(lines[3].get_ydata(), [1555, 1555])
    assert [t.get_text() for t in ax.texts] == ["peak 616 GB/s", "peak 1.555 TB/s"]


def test_throughput_vs_batch(sweep):
    ax = plots.throughput_vs_batch(
        sweep, bandwidth=GDDR6, throughput=T2080, policy="lookahead", capacity=["4MiB", "64MiB"]
    )
    assert ax.get_title().startswith("Training throughput vs batch size")
    assert ax.get_xlabel() == "batch size (samples)"
    assert ax.get_ylabel() == "throughput (samples/s)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
    assert legend_labels(ax) == ["4 MiB", "64 MiB"]
    assert len(ax.containers) == 2
    rows = sweep[
        (sweep.capacity == 64 * MIB)
        & (sweep.bandwidth == GDDR6)
        & (sweep.throughput == T2080)
        & (sweep.policy == "lookahead")
    ].sort_values("batch")
    heights = [p.get_height() for p in ax.containers[1]]
    np.testing.assert_allclose(heights, rows["samples_per_s"])


# --------------------------------------------------------------------------------------------
# rooflines (Fig. 5.1 and a classic one)
# --------------------------------------------------------------------------------------------
def test_modified_roofline_resnet50():
    net = dnnmem.network("resnet50", batch=1)
    ax = plots.modified_roofline(net)
    assert ax.get_title().splitlines()[0] == "Modified roofline (thesis Fig. 5.1)"
    assert ax.get_xlabel() == "reuse frequency (FLOP/byte)"
    assert ax.get_ylabel() == "attainable performance (TFLOP/s)"
    assert ax.get_xscale() == ax.get_yscale() == "log"
    L = net.layers
    n = {
        c: int(
            ((L["class"] == c) & (L["rf_fwd"] > 0)).sum()
            + ((L["class"] == c) & (L["rf_bwd"] > 0)).sum()
        )
        for c in ("I", "II")
    }
    # 616 GB/s and 13.45 TFLOP/s (RTX 2080 Ti, thesis Table 5.2): ridge 13.45e12 / 616e9.
    assert legend_labels(ax) == [
        "roof: 616 GB/s, 13.45 TFLOPS",
        "ridge point 21.8 FLOP/byte",
        f"type I ({n['I']})",
        f"type II ({n['II']})",
    ]
    ridge = ax.get_lines()[1]
    np.testing.assert_allclose(ridge.get_xdata(), [13.45e12 / 616e9] * 2)
    # Eq. 5.1: y = min(rf × bw, throughput), in TFLOP/s.
    pts = plots.layer_points(net)
    type1 = pts[pts["class"] == "I"]
    offsets = ax.collections[0].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], type1["rf"])
    np.testing.assert_allclose(offsets[:, 1], np.minimum(type1["rf"] * 616e9, 13.45e12) / 1e12)


def test_modified_roofline_several_networks_and_grid():
    ax = plots.modified_roofline(
        ["resnet50", "transformer"], phases=["fwd"], bandwidth=1555e9, throughput=19.45e12
    )  # A100, Table 5.2
    labels = legend_labels(ax)
    assert labels[:2] == ["roof: 1.555 TB/s, 19.45 TFLOPS", "ridge point 12.5 FLOP/byte"]
    assert [s.split(" (")[0] for s in labels[2:]] == [
        "resnet50 type I",
        "resnet50 type II",
        "transformer type I",
        "transformer type II",
    ]
    fig = plots.modified_roofline_grid(["resnet50", "transformer"])
    assert isinstance(fig, mpl.figure.Figure)
    assert [a.get_title().splitlines()[1].split(" ")[0] for a in fig.axes] == [
        "resnet50",
        "transformer",
    ]
    with pytest.raises(ValueError, match="phases: expected 'fwd' and/or 'bwd'"):
        plots.modified_roofline("resnet50", phases=["sideways"])
    with pytest.raises(ValueError, match="bandwidth: must be a number > 0"):
        plots.modified_roofline("resnet50", bandwidth=0)
    with pytest.raises(ValueError, match="unknown network 'nope'"):
        plots.modified_roofline("nope")


def test_roofline_of_an_estimate(result):
    ax = plots.roofline(result)
    assert ax.get_title().splitlines()[0] == "Roofline: achieved performance per step"
    assert ax.get_xlabel() == (
        "operational intensity (FLOP per link byte of the step's own off-chip accesses)"
    )
    assert ax.get_ylabel() == "achieved performance (TFLOP/s)"
    s = result.steps
    moved = s["link_streamed_in"] + s["link_streamed_out"]
    shown = s[(s["flops"] > 0) & (s["time"] > 0) & (moved > 0)]
    on_chip = int(((s["flops"] > 0) & (s["time"] > 0) & (moved == 0)).sum())
    counts = shown["class"].where(shown["phase"] != "loss", "loss").value_counts()
    expected = [f"type {c} steps ({counts[c]})" for c in ("I", "II") if c in counts]
    expected += [f"loss steps ({counts['loss']})"] if "loss" in counts else []
    expected += [f"all data on chip ({on_chip}):\nx = ∞, drawn at the edge"] if on_chip else []
    assert legend_labels(ax)[2:] == expected
    points = np.concatenate([c.get_offsets() for c in ax.collections])
    assert len(points) == len(shown) + on_chip
    assert np.all(points[:, 1] <= 13.45 * (1 + 1e-9))  # no step beats the compute roof
    with pytest.raises(TypeError, match="result: expected a dnnmem.Result"):
        plots.roofline(result.to_dict())


# --------------------------------------------------------------------------------------------
# per-step plots of estimates (Fig. 5.5, timeline)
# --------------------------------------------------------------------------------------------
def test_time_breakdown_from_results():
    net = dnnmem.network("resnet50", batch=2)
    results = {c: dnnmem.estimate(net, capacity=c) for c in (4 * MIB, 64 * MIB)}
    ax = plots.time_breakdown(results, top=3)
    assert ax.get_title() == (
        "Iteration time by layer kind\nresnet50 N=2 · lookahead · 616 GB/s · 13.45 TFLOPS"
    )
    assert ax.get_ylabel() == "time per iteration (ms)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4 MiB", "64 MiB"]
    labels = legend_labels(ax)
    assert labels[0] == "conv2d" and labels[-1] == "other" and len(labels) == 4
    # The stacked bars add up to each estimate's time (by_kind sums to Result.time).
    tops = [sum(c[i].get_height() for c in ax.containers) for i in range(2)]
    np.testing.assert_allclose(tops, [results[4 * MIB].time * 1e3, results[64 * MIB].time * 1e3])
    table = plots.breakdown_table(results, by="class")
    assert list(table.columns) == ["capacity", "class", "time"]
    ax = plots.time_breakdown(table, by="class")
    assert set(legend_labels(ax)) == set(table["class"])
    with pytest.raises(ValueError, match=r"missing column\(s\) \['kind'\]"):
        plots.time_breakdown(table, by="kind")
    with pytest.raises(ValueError, match="by: expected 'kind' or 'class'"):
        plots.time_breakdown(results, by="layer")
    with pytest.raises(ValueError, match="top: must be an integer >= 1"):
        plots.time_breakdown(results, top=0)
    with pytest.raises(TypeError, match=r"results\['x'\]: expected a dnnmem.Result"):
        plots.time_breakdown({"x": 1.0})


def test_time_breakdown_orders_capacities_by_size_and_keeps_the_tallest_bar_whole():
    """Unit-string keys were ordered as strings ("128MiB" before "24MiB") and the tallest stack
    touched the frame (thesis Fig. 5.5 too): the bars follow the capacities' sizes, whatever
    order or spelling the keys come in, and the y axis ends above the tallest bar."""
    net = dnnmem.network("resnet18", batch=2)
    keys = ["128MiB", "24MiB", "4 MiB"]
    results = {k: dnnmem.estimate(net, capacity=k) for k in keys}
    ax = plots.time_breakdown(results)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4 MiB", "24 MiB", "128 MiB"]
    tops = [sum(c[i].get_height() for c in ax.containers) for i in range(3)]
    np.testing.assert_allclose(tops, [results[k].time * 1e3 for k in ("4 MiB", "24MiB", "128MiB")])
    assert ax.get_ylim()[1] >= 1.05 * max(tops)
    # The same from a table; labels that are not sizes keep the order they come in.
    table = plots.breakdown_table(results)
    ax = plots.time_breakdown(table)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["4 MiB", "24 MiB", "128 MiB"]
    named = plots.breakdown_table({"small": results["4 MiB"], "big": results["128MiB"]})
    ax = plots.time_breakdown(named)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["small", "big"]


def test_style_module():
    """dnnmem.plots.style: fixed colours per policy, distinct looks in one figure (12 networks
    and more), numeric size order, reader names, the figure-name pattern."""
    from dnnmem.plots import style

    assert style.series_style("lookahead")["color"] == style.SERIES_COLORS["lookahead"]
    paper = style.series_style("paper ∞ SPM")
    assert paper["color"] == style.SERIES_COLORS["∞ SPM"] and paper["hatch"]
    nets = [f"net{i}" for i in range(30)]
    looks = style.styles(["lookahead", "LRU", *nets])
    assert looks["lookahead"]["color"] == style.SERIES_COLORS["lookahead"]
    as_line = {(s["color"], s["linestyle"], s["marker"]) for s in looks.values()}
    as_bar = {(s["color"], s["hatch"]) for s in looks.values()}
    assert len(as_line) == len(as_bar) == 32  # no two series alike, as lines or as bars
    assert style.sort_sizes(["128MiB", "24MiB", "4 MiB", "1GiB"]) == [
        "4 MiB",
        "24MiB",
        "128MiB",
        "1GiB",
    ]
    assert style.sort_sizes(["b", "a"]) == ["b", "a"]
    assert style.sort_sizes([2**30, 2**20]) == [2**20, 2**30]
    assert style.display_name("resnet50") == "ResNet-50" and style.display_name("x_y") == "x_y"
    assert set(dnnmem.networks()) <= set(style.NETWORK_NAMES)  # every zoo network has a name
    assert style.figure_name("cdma", "fig13", "performance") == "cdma-fig13-performance"
    assert style.figure_name("thesis", "fig5_1", "roofline") == "thesis-fig5_1-roofline"
    assert style.figure_name("energy", "beyond", "pareto_front") == "energy-beyond-pareto_front"
    for bad in (("cdma", "fig13", "Performance"), ("seed", "fig1", "x"), ("mbs", "f10", "x")):
        with pytest.raises(ValueError, match="does not follow <seed>-<figure>-<what>"):
            style.figure_name(*bad)
    assert style.geomean([1, 4]) == pytest.approx(2.0)


def test_style_bars_average_and_readable_ticks():
    """Grouped bars with an average group, legends outside, labels slanted only where they
    would overlap; a log axis labelled with its values and no minor labels."""
    from plot_checks import legend_problems, text_problems

    from dnnmem.plots import style

    table = pd.DataFrame({"vDNN": [0.5, 0.8], "ZVC": [0.7, 0.9]}, index=["squeezenet", "googlenet"])
    fig, axes = style.figure(1, 2, panel=(2.0, 2.5))
    style.bars(axes[0, 0], table, average="mean", reference=1.0)
    labels = [t.get_text() for t in axes[0, 0].get_xticklabels()]
    assert labels == ["SqueezeNet", "GoogLeNet", "average"]
    heights = [p.get_height() for p in axes[0, 0].patches]
    assert heights == pytest.approx([0.5, 0.8, 0.65, 0.7, 0.9, 0.8])
    style.lines(axes[0, 1], {"a": ([256, 1024, 4096], [1, 2, 3])})
    style.log_ticks(axes[0, 1], [256, 1024, 4096])
    style.legend(fig)
    style.tidy(fig)
    assert legend_problems(fig) == [] and text_problems(fig) == []
    assert axes[0, 0].get_xticklabels()[0].get_rotation() == 30  # narrow panel: slanted
    with pytest.raises(ValueError, match="average: expected 'geomean', 'mean' or None"):
        style.bars(axes[0, 0], table, average="median")


def test_timeline(result):
    ax = plots.timeline(result, steps=(0, 60))
    assert ax.get_title().splitlines()[0] == "Timeline of one training iteration"
    assert "steps 0–59 of" in ax.get_title()
    assert ax.get_xlabel() == "time (µs)"  # the first 60 steps end well before 1 ms
    assert [t.get_text() for t in ax.get_yticklabels()] == ["compute", "stall", "loads", "stores"]
    labels = legend_labels(ax)
    assert labels[:2] == ["compute, type I", "compute, type II"]
    assert "loads issued" in labels and "stores issued" in labels
    s = result.steps.iloc[:60]
    compute = [c for c in ax.collections if c.get_label().startswith("compute")]
    width = sum(p.get_extents().width for c in compute for p in c.get_paths())
    np.testing.assert_allclose(width, s["compute_time"].sum() * 1e6, rtol=1e-9)
    whole = plots.timeline(result)
    assert whole.get_xlabel() == "time (ms)"
    with pytest.raises(ValueError, match="selects no step"):
        plots.timeline(result, steps=(5, 5))


# --------------------------------------------------------------------------------------------
# Pareto plot, filters and errors
# --------------------------------------------------------------------------------------------
def test_plot_pareto(sweep):
    df = dnnmem.with_area(sweep[sweep.batch == 2])
    ax = plots.plot_pareto(
        df,
        "area_mm2",
        "time",
        yscale=1e-3,
        xlabel="SRAM area (mm²)",
        ylabel="time (ms)",
        title="Area vs time",
    )
    front = dnnmem.pareto(df, minimize=["area_mm2", "time"])
    assert legend_labels(ax) == [f"all points ({len(df)})", f"Pareto front ({len(front)})"]
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == (
        "Area vs time",
        "SRAM area (mm²)",
        "time (ms)",
    )
    np.testing.assert_allclose(
        ax.get_lines()[0].get_ydata(), front.sort_values(["area_mm2", "time"])["time"] * 1e3
    )
    ax = plots.plot_pareto(df, "area_mm2", "samples_per_s", maximize=["samples_per_s"])
    assert ax.get_lines()[0].get_drawstyle() == "steps-post"
    with pytest.raises(ValueError, match="maximize: \\['utilization'\\] is neither"):
        plots.plot_pareto(df, "area_mm2", "time", maximize=["utilization"])


SWEEP_PLOTS = [
    (plots.traffic_vs_capacity, "traffic_in"),
    (plots.time_vs_capacity, "time"),
    (plots.bandwidth_vs_capacity, "avg_bandwidth"),
    (plots.throughput_vs_batch, "samples_per_s"),
]


@pytest.mark.parametrize(("plot", "column"), SWEEP_PLOTS)
def test_missing_columns_are_named(sweep, plot, column):
    with pytest.raises(ValueError, match=rf"{plot.__name__}: missing column\(s\) \['{column}'\]"):
        plot(
            sweep.drop(columns=[column]), batch=2
        ) if plot is not plots.throughput_vs_batch else plot(sweep.drop(columns=[column]))
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        plot(sweep.to_dict())


def test_filters(sweep):
    with pytest.raises(ValueError, match="no rows match"):
        plots.traffic_vs_capacity(sweep, network="vgg16")
    # A value no row has: the values the column has (the message gave only the filter).
    with pytest.raises(
        ValueError,
        match=r"^time_vs_capacity: no rows match \{'policy': 'lookahed', 'bandwidth': '1TB/s'\} "
        r"\(policy has lookahead, belady; bandwidth has 616 GB/s, 1.555 TB/s\)$",
    ):
        plots.time_vs_capacity(sweep, policy="lookahed", bandwidth="1TB/s")
    with pytest.raises(ValueError, match=r"\(each filter matches rows, but none matches all\)$"):
        plots.time_vs_capacity(sweep, policy="belady", batch=1)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['policy'\]"):
        plots.traffic_vs_capacity(sweep.drop(columns=["policy"]), policy="lookahead")
    # Extra rows at the same capacity that no design-point column tells apart: refuse.
    doubled = pd.concat([sweep, sweep])
    with pytest.raises(ValueError, match="several rows share one capacity"):
        plots.traffic_vs_capacity(doubled)


def test_filters_are_typed_and_take_any_iterable(sweep):
    """The filters were typed Any (an editor or mypy could tell nothing), and a range or a
    generator was read as one value: batch=range(1, 3) matched no row."""
    functions = (
        plots.traffic_vs_capacity,
        plots.time_vs_capacity,
        plots.bandwidth_vs_capacity,
        plots.throughput_vs_batch,
    )
    want = {
        "network": "NameFilter",
        "policy": "NameFilter",
        "batch": "BatchFilter",
        "capacity": "AmountFilter",
        "bandwidth": "AmountFilter",
        "throughput": "AmountFilter",
    }
    for f in functions:
        params = inspect.signature(f).parameters
        filters = {p: params[p].annotation for p in want if p in params}
        assert filters == {p: want[p] for p in filters}, f.__name__
        assert len(filters) == 5, f.__name__
    common = importlib.import_module("dnnmem.plots._common")
    assert typing.get_args(common.AmountFilter) == (
        str,
        float,
        Iterable[Union[str, float]],
        type(None),
    )
    assert typing.get_args(common.BatchFilter) == (int, Iterable[int], type(None))
    ax = plots.time_vs_capacity(sweep, batch=range(1, 2), policy=(p for p in ["lookahead"]))
    assert "N=1" in ax.get_title() and len(ax.get_lines()) == 1


# --------------------------------------------------------------------------------------------
# what a reviewer checks by eye: legends, hidden lines, the roof, units
# --------------------------------------------------------------------------------------------
from plot_checks import legend_problems  # noqa: E402

POLICIES = ["lookahead", "lru", "none"]


@pytest.fixture(scope="module")
def grid() -> pd.DataFrame:
    """A real grid: 2 networks x 3 policies x 2 bandwidths x 2 throughputs x 3 capacities."""
    return dnnmem.sweep(
        ["resnet50", "mobilenet_v2"],
        batch=2,
        capacity=CAPS,
        bandwidth=[GDDR6, HBM2E],
        throughput=[T2080, T6900],
        policy=POLICIES,
        progress=False,
        threads=1,
    )


def _figures(grid: pd.DataFrame, sweep: pd.DataFrame, result: dnnmem.Result) -> dict:
    net = dnnmem.network("resnet50", batch=2)
    res = {c: dnnmem.estimate(net, capacity=c) for c in CAPS}
    one = grid[grid.network == "resnet50"]
    return {
        "traffic": lambda: plots.traffic_vs_capacity(one),
        "time": lambda: plots.time_vs_capacity(one),
        "speedup": lambda: plots.time_vs_capacity(one, policy="lookahead", bandwidth=GDDR6),
        "bandwidth %": lambda: plots.bandwidth_vs_capacity(one, policy="lookahead"),
        "bandwidth GB/s": lambda: plots.bandwidth_vs_capacity(
            one, policy="lookahead", relative=False
        ),
        "batch": lambda: plots.throughput_vs_batch(
            sweep, bandwidth=GDDR6, throughput=T2080, policy="lookahead"
        ),
        "breakdown": lambda: plots.time_breakdown(res),
        "timeline": lambda: plots.timeline(result, steps=(0, 60)),
        "roofline": lambda: plots.roofline(result),
        "modified roofline": lambda: plots.modified_roofline(["resnet50", "mobilenet_v2"]),
        "modified roofline grid": lambda: plots.modified_roofline_grid(["resnet50", "transformer"]),
        "pareto": lambda: plots.plot_pareto(dnnmem.with_area(one), "area_mm2", "time"),
        "overview": lambda: plots.sweep_overview(grid),
    }


def test_legends_cover_no_data_are_not_cut_off_and_show_no_hidden_line(grid, sweep, result):
    # One drawing of every figure serves both checks (drawing them is most of the cost).
    for name, draw in _figures(grid, sweep, result).items():
        drawn = draw()
        fig = getattr(drawn, "figure", drawn)
        assert legend_problems(fig) == [], name
        for ax in fig.axes:
            shown = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
            data = [
                line.get_xydata().tobytes() + str(line.get_linestyle()).encode() for line in shown
            ]
            assert len(set(data)) == len(data), (name, [line.get_label() for line in shown])
        plt.close(fig)


def test_identical_series_are_one_entry(grid):
    # Without a cache nothing depends on the bandwidth's traffic: one pair of lines, named
    # for both bandwidths; the times differ, so they stay two lines.
    none = grid[(grid.network == "resnet50") & (grid.policy == "none") & (grid.throughput == T2080)]
    ax = plots.traffic_vs_capacity(none)
    assert legend_labels(ax) == ["616 GB/s / 1.555 TB/s", "traffic in", "traffic out"]
    assert len(ax.get_lines()) == 2
    ax = plots.time_vs_capacity(none)
    assert legend_labels(ax) == ["time 616 GB/s", "time 1.555 TB/s"]


def test_sweep_overview_facets_a_real_grid(grid):
    fig = plots.sweep_overview(grid)
    # 3 policies x 2 bandwidths x 2 throughputs = 12 lines per network > 8: split by policy.
    assert len(fig.axes) == 2 * 2 * 3
    assert fig.get_suptitle() == (
        "Sweep: 72 design points; a row of panels per network × batch × policy"
    )
    for ax in fig.axes:
        assert len(legend_labels(ax)) <= plots.capacity.OVERVIEW_MAX_LINES + 2
    small = plots.sweep_overview(grid[grid.policy == "lookahead"])
    assert len(small.axes) == 2 * 2  # 4 lines per panel: one row per network
    assert [a.get_title().splitlines()[1] for a in small.axes[::2]] == [
        "resnet50 · N=2 · lookahead",
        "mobilenet_v2 · N=2 · lookahead",
    ]
    assert small.get_suptitle() == "Sweep: 24 design points; a row of panels per network × batch"
    # Without network and batch columns there is one row of panels and nothing to name.
    one = grid[(grid.policy == "lookahead") & (grid.network == "resnet50")]
    bare = plots.sweep_overview(one.drop(columns=["network", "batch"]))
    assert len(bare.axes) == 2 and bare.get_suptitle() == "Sweep: 12 design points"


@pytest.mark.parametrize("policy", list(dnnmem.parts("cache")))
def test_roofline_no_step_above_the_roof(policy):
    for name, cap in (("resnet50", 4 * MIB), ("resnet50", 64 * MIB), ("transformer", 8 * MIB)):
        r = dnnmem.estimate(
            name, batch=2, capacity=cap, policy=policy, bandwidth=GDDR6, throughput=T2080
        )
        s = r.steps
        streamed_in, streamed_out = s["bytes_streamed_in"], s["bytes_streamed_out"]
        assert (streamed_in <= s["bytes_in"]).all() and (streamed_out <= s["bytes_out"]).all()
        if policy == "none":  # every access streamed
            assert (streamed_in == s["bytes_in"]).all()
            assert (streamed_out == s["bytes_out"]).all()
        ax = plots.roofline(r)
        edge = ax.get_xlim()[1] / 1.6
        for coll in ax.collections:
            x, y = np.asarray(coll.get_offsets()).T
            roof = np.where(np.isclose(x, edge), 13.45, np.minimum(13.45, GDDR6 * x / 1e12))
            assert np.all(y <= roof * (1 + 1e-9)), (name, cap, coll.get_label())
        plt.close(ax.figure)


def _points_above_the_roof(ax, bandwidth: float, throughput: float) -> int:
    """The points of a roofline above min(throughput, bandwidth · x) (the on-chip steps drawn at
    the right edge: above the compute roof)."""
    edge = ax.get_xlim()[1] / 1.6
    above = 0
    for coll in ax.collections:
        x, y = np.asarray(coll.get_offsets()).T
        roof = np.where(np.isclose(x, edge), throughput, np.minimum(throughput, bandwidth * x))
        above += int(np.sum(y * 1e12 > roof * (1 + 1e-9)))
    return above


@pytest.mark.parametrize(
    "link",
    [
        "raw",
        "ratio(all=4)",
        "ratio(activation=3)",
        "ratio(all=0.5)",  # expands the data
        "ratio(all=2, efficiency=0.8)",
        "ratio(all=4, cap=20GB/s)",
        "zvc",
        "zvc(window=8, cap=48GB/s, throttle=offload)",
        "rle(layout=nhwc)",
    ],
)
def test_roofline_no_step_above_the_roof_for_every_link(link):
    """Issue 26: with a compressing link x counted the uncompressed bytes while a step's time
    follows the link bytes (ResNet-50 N = 32, 24 MiB, lookahead + ratio(all=4): 169 of 333 steps
    above the roof). x is FLOPs per link byte: every point is on or under the roof, every link,
    and each streamed transfer takes at least its link bytes / bandwidth."""
    for policy, cap in (("lookahead", 24 * MIB), ("vdnn-all", 24 * MIB), ("none", 0)):
        r = dnnmem.estimate(
            "resnet18", batch=4, capacity=cap, policy=f"{policy} + {link}", bandwidth=GDDR6
        )
        s = r.steps
        streamed = s["link_streamed_in"] + s["link_streamed_out"]
        assert (s["link_streamed_in"] <= s["link_in"]).all()
        assert (s["link_streamed_out"] <= s["link_out"]).all()
        assert (s["end"] - s["start"] >= streamed / GDDR6 * (1 - 1e-9)).all()
        if link == "raw":
            assert (s["link_streamed_in"] == s["bytes_streamed_in"]).all()
            assert (s["link_streamed_out"] == s["bytes_streamed_out"]).all()
        elif link == "ratio(all=4)":  # a quarter on the wire, rounded up per transfer
            moved = s["bytes_streamed_in"] + s["bytes_streamed_out"]
            assert (streamed >= moved / 4).all() and (streamed < moved / 4 + 8).all()
        ax = plots.roofline(r)
        assert _points_above_the_roof(ax, GDDR6, r.hardware.throughput) == 0, (policy, link)
        plt.close(ax.figure)


def test_roofline_issue_case_compressing_link():
    """The issue's case, in full: every step on or under the roof; the uncompressed bytes would
    have put 169 of them above it."""
    r = dnnmem.estimate("resnet50", batch=32, capacity="24MiB", policy="lookahead + ratio(all=4)")
    ax = plots.roofline(r)
    assert _points_above_the_roof(ax, r.hardware.bandwidth, r.hardware.throughput) == 0
    plt.close(ax.figure)
    s = r.steps
    bytes_x = s["flops"] / (s["bytes_streamed_in"] + s["bytes_streamed_out"])
    shown = (s["flops"] > 0) & (s["time"] > 0) & np.isfinite(bytes_x)
    perf = s["flops"] / s["time"]
    roof = np.minimum(r.hardware.throughput, r.hardware.bandwidth * bytes_x)
    assert int((perf[shown] > roof[shown] * (1 + 1e-9)).sum()) == 169


def test_plot_pareto_defaults_have_units(sweep):
    df = dnnmem.with_area(sweep[sweep.batch == 2])
    ax = plots.plot_pareto(df, "area_mm2", "time")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("SRAM area (mm²)", "time per iteration (ms)")
    assert ax.get_title() == "Pareto front: time per iteration vs SRAM area"
    front = dnnmem.pareto(df, minimize=["area_mm2", "time"]).sort_values(["area_mm2", "time"])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), front["time"] * 1e3)
    ax = plots.plot_pareto(df, "capacity", "avg_bandwidth", maximize=["avg_bandwidth"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == (
        "on-chip capacity (MiB)",
        "average off-chip bandwidth (GB/s)",
    )

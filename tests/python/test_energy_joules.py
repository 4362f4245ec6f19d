"""The joule, area and cost model (docs/model/energy.md, docs/model/cost.md): the 3-layer chain by
hand, component by component, from the published figures of data/energy.json; sweep rows equal
estimate(); monotonicity; the CACTI peer values of tests/data/; the presets' die areas and TDPs
within the stated bands."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from test_mbs import CHAIN, _net

import dnnmem
from dnnmem import energy, technology
from dnnmem.cost import dies_per_wafer, preset_check

DATA = Path(__file__).resolve().parents[1] / "data"
MBS1 = "mbs(variant=mbs1, buffer=12) + mbs-strict"
COMPONENTS = (
    "energy_sram_j",
    "energy_dram_j",
    "energy_host_link_j",
    "energy_compute_j",
    "energy_sram_leakage_j",
    "energy_static_j",
)


def _loglog(points: list[tuple[float, float]], x: float) -> float:
    points = sorted(points)
    i = 0 if x <= points[0][0] else len(points) - 2
    for j in range(len(points) - 1):
        if points[j][0] <= x <= points[j + 1][0]:
            i = j
    (x0, y0), (x1, y1) = points[i], points[i + 1]
    t = math.log(x / x0) / math.log(x1 / x0)
    return math.exp(math.log(y0) + t * (math.log(y1) - math.log(y0)))


def test_chain_joules_by_hand() -> None:
    # The chain of test_mbs_report: 341 bytes moved, 405 global-buffer bytes, 168 MACs. At 45 nm
    # every energy factor is 1 (Horowitz's node); HBM2; fp32 (no precision given).
    hw = dnnmem.Hardware(
        capacity="64KiB", bandwidth="1GB/s", throughput="1GFLOPS", memory_type="hbm2", node="45nm"
    )
    r = dnnmem.estimate(_net(CHAIN), hw, policy=MBS1)
    assert (r.traffic, r.gb_bytes, r.macs) == (341, 405, 168)
    pj = 1e-12
    assert r.energy_dram_j == pytest.approx(341 * 3.9 * 8 * pj, rel=1e-12)
    assert r.energy_host_link_j == 0
    # fp32 MAC 3.7 + 0.9 pJ; the FLOPs that are not MACs (ReLU, loss) an fp32 add, 0.9 pJ.
    assert r.energy_compute_j == pytest.approx(
        (168 * (3.7 + 0.9) + (r.flops - 2 * 168) * 0.9) * pj, rel=1e-12
    )
    # SRAM: the CACTI table (22 nm) at 64 KiB, log-log between 32 and 256 KiB, scaled 22 -> 45 nm
    # by Stillmaker & Baas (22 nm between their 20 and 32 nm), plus the wire to half the side of
    # 64 KiB of 0.346 um2 cells at 70 % efficiency.
    points = technology.table()["sram"]["points"]
    mean = [
        (dnnmem.parse_bytes(p["capacity"]), (p["read_pj_per_byte"] + p["write_pj_per_byte"]) / 2)
        for p in points
    ]
    assert (65536, (0.538516 + 0.760406) / 2) in mean  # CACTI's 64 KiB point itself
    t = math.log(22 / 20) / math.log(32 / 20)
    e22 = math.exp(math.log(0.2211) + t * (math.log(0.6593) - math.log(0.2211)))
    area = 65536 * 8 * 0.346 / 0.7 * 1e-6
    e_sram = _loglog(mean, 65536) / e22 + 0.1 * 8 * math.sqrt(area) / 2
    assert r.energy_sram_j == pytest.approx((405 + 341) * e_sram * pj, rel=1e-9)
    leak = [(dnnmem.parse_bytes(p["capacity"]), p["leakage_mw"]) for p in points]
    assert r.energy_sram_leakage_j == pytest.approx(
        _loglog(leak, 65536) * 1e-3 / e22 * r.time, rel=1e-9
    )
    # The rest of the chip: 10 % of the MAC array's peak power (1 GFLOP/s = 0.5 G MAC/s).
    assert r.energy_static_j == pytest.approx(0.1 * 0.5e9 * 4.6 * pj * r.time, rel=1e-12)
    assert r.energy_j == pytest.approx(sum(getattr(r, c) for c in COMPONENTS), rel=1e-12)
    assert r.energy_per_sample_j == r.energy_j / r.network.batch
    # The relative model is still there, unchanged.
    assert r.energy == 1.0 * 341 + 405 / 8 + 0.1085 * 168


def test_host_link_and_units_and_sweep_rows() -> None:
    hw = dnnmem.Hardware(capacity="64KiB", memory_type="pcie4", node="7nm")
    r = dnnmem.estimate(_net(CHAIN), hw, policy=MBS1)
    assert r.energy_dram_j == 0 and r.energy_host_link_j == pytest.approx(341 * 6.5 * 8e-12)
    df = dnnmem.sweep(
        "resnet18",
        capacity=["256KiB", "4MiB", "64MiB"],
        bandwidth=["100GB/s", "900GB/s"],
        hardware=dnnmem.hardware("a100", precision="bf16"),
        progress=False,
    )
    units = df.attrs["units"]
    assert units["energy_j"] == "J" and units["area_mm2"] == "mm²" and units["cost_usd"] == "USD"
    for _, row in df.iterrows():
        one = dnnmem.estimate(
            "resnet18",
            dnnmem.hardware("a100", precision="bf16"),
            capacity=int(row["capacity"]),
            bandwidth=float(row["bandwidth"]),
        ).to_dict()
        for c in ("energy_j", *COMPONENTS, "area_mm2", "area_phy_mm2", "cost_usd"):
            assert row[c] == pytest.approx(one[c], rel=1e-12), c
    total = df[list(COMPONENTS)].sum(axis=1)
    assert (df[list(COMPONENTS)] >= 0).all().all()
    assert total.to_numpy() == pytest.approx(df["energy_j"].to_numpy(), rel=1e-12)


def test_more_sram_more_area_and_leakage_fewer_dram_joules() -> None:
    df = dnnmem.sweep(
        "resnet50",
        batch=8,
        capacity=["1MiB", "8MiB", "64MiB", "512MiB"],
        hardware=dnnmem.hardware("a100", precision="bf16"),
        progress=False,
    ).sort_values("capacity")
    assert df["area_sram_mm2"].is_monotonic_increasing and df["area_mm2"].is_monotonic_increasing
    assert df["cost_die_usd"].is_monotonic_increasing
    per_s = df["energy_sram_leakage_j"] / df["time"]
    assert per_s.is_monotonic_increasing
    assert df["traffic_in"].is_monotonic_decreasing
    assert df["energy_dram_j"].is_monotonic_decreasing
    # Faster compute at the same point: less static energy, more MAC area.
    a = dnnmem.estimate("resnet18", dnnmem.Hardware(throughput="10TFLOPS"))
    b = dnnmem.estimate("resnet18", dnnmem.Hardware(throughput="40TFLOPS"))
    assert b.time < a.time and b.area_compute_mm2 == pytest.approx(4 * a.area_compute_mm2)
    assert b.energy_compute_j == pytest.approx(a.energy_compute_j)
    # More bandwidth: more PHY area and DRAM price (one GDDR6 channel per 64 GB/s).
    lo = dnnmem.estimate("resnet18", dnnmem.Hardware(bandwidth="128GB/s"))
    hi = dnnmem.estimate("resnet18", dnnmem.Hardware(bandwidth="640GB/s"))
    assert (lo.area_phy_mm2, hi.area_phy_mm2) == (2 * 1.5, 10 * 1.5)
    assert hi.cost_dram_usd == 5 * lo.cost_dram_usd


def test_nodes_and_technologies() -> None:
    assert technology.node_scale("45nm") == (1.0, 1.0)
    assert technology.node_scale("7nm") == pytest.approx((0.0943, 0.059))
    assert technology.node_scale("5nm")[0] == pytest.approx(0.0943 * math.sqrt(5 / 7))
    e = [technology.node_scale(f"{n}nm")[0] for n in (45, 32, 28, 22, 16, 12, 7, 5, 3)]
    assert e == sorted(e, reverse=True)  # smaller nodes, less energy per operation
    with pytest.raises(ValueError, match="memory_type: no energy figures for 'hbm9'"):
        dnnmem.Hardware(memory_type="hbm9")
    with pytest.raises(ValueError, match="node: expected a process node"):
        dnnmem.Hardware(node="fast")
    with pytest.raises(ValueError, match="clock: expected Hz"):
        dnnmem.Hardware(clock="fast")
    assert dnnmem.Hardware(clock="700MHz").clock == 7e8
    # Every technology of the data has its source and basis.
    t = technology.table()
    for group in ("dram", "host_links"):
        for name, entry in t[group]["technologies"].items():
            assert entry["source"] and entry["basis"] in ("published", "derived", "assumed"), name
            assert 2010 <= entry["year"] <= 2026


def test_die_cost_model() -> None:
    # 300 mm wafer, 100 mm2 dies: 706.9 - 66.6 = 640.2 gross.
    assert dies_per_wafer(100.0) == pytest.approx(
        math.pi * 150**2 / 100 - math.pi * 300 / math.sqrt(200)
    )
    a = dnnmem.estimate("resnet18", dnnmem.Hardware(node="7nm", capacity="1MiB"))
    good = dies_per_wafer(a.area_mm2) * math.exp(-a.area_mm2 / 100 * 0.1)
    assert a.cost_die_usd == pytest.approx(9346 / good)


def test_cacti_peer_values() -> None:
    # tests/data/cacti_sram_22nm.json: CACTI 7 through zigzag-dse (its provenance inside). The
    # model's SRAM table is those points, and the quoted values are among them.
    peer = json.loads((DATA / "cacti_sram_22nm.json").read_text())
    assert peer["tool"].startswith("CACTI 7") and "zigzag-dse" in peer["tool"]
    model = {p["capacity"]: p for p in technology.table()["sram"]["points"]}
    for p in peer["points"]:
        if p["node"] != technology.table()["sram"]["node"]:
            continue
        m = model[p["capacity"]]
        for k in ("read_pj_per_byte", "write_pj_per_byte", "area_mm2"):
            assert m[k] == pytest.approx(p[k], rel=1e-3), (p["capacity"], k)
    for p in peer["points_lstp_cells"]:  # leakage: the low-standby-power cells' run
        if p["node"] == technology.table()["sram"]["node"]:
            assert model[p["capacity"]]["leakage_mw"] == pytest.approx(p["leakage_mw"], rel=1e-3)
    # The model scales the 22 nm table to other nodes by Stillmaker and Baas; CACTI's own 32 and
    # 45 nm points agree within 0-30 % on energy and 10 % on leakage.
    ref = {p["capacity"]: p for p in peer["points"] if p["node"] == "22nm"}
    e22 = technology.node_scale("22nm")[0]
    for p in peer["points"]:
        if p["node"] == "22nm":
            continue
        r, f = ref[p["capacity"]], technology.node_scale(p["node"])[0] / e22
        mean = (p["read_pj_per_byte"] + p["write_pj_per_byte"]) / 2
        scaled = (r["read_pj_per_byte"] + r["write_pj_per_byte"]) / 2 * f
        assert 0.95 <= scaled / mean <= 1.35, (p["node"], p["capacity"])
        assert 0.85 <= r["leakage_mw"] * f / p["leakage_mw"] <= 1.15, (p["node"], p["capacity"])
    lstp = {(p["node"], p["capacity"]): p["leakage_mw"] for p in peer["points_lstp_cells"]}
    for node in ("32nm", "45nm"):
        f = technology.node_scale(node)[0] / e22
        for c, mw in ((c, lstp[("22nm", c)]) for c in ref):
            assert 0.5 <= mw * f / lstp[(node, c)] <= 2.0, (node, c)
    quoted = {"32KiB": (0.32, 0.54, 0.059), "256KiB": (1.29, 1.36, 0.55), "2MiB": (4.2, 4.4, 3.7)}
    for c, (rd, wr, area) in quoted.items():
        p = model[c]
        assert p["read_pj_per_byte"] == pytest.approx(rd, rel=0.05)
        assert p["write_pj_per_byte"] == pytest.approx(wr, rel=0.05)
        assert p["area_mm2"] == pytest.approx(area, rel=0.05)


def test_presets_against_published_die_areas_and_tdps() -> None:
    # docs/model/cost.md, "The check against real chips": the model is a lower bound. The bands
    # are the stated error (what the presets fall in today), not a tuning target.
    rows = {r["key"]: r for r in preset_check()}
    assert {"a100", "h100-sxm", "v100", "wavecore", "rtx2080ti"} <= set(rows)
    for key, r in rows.items():
        if r["die_mm2"]:
            assert 0.05 <= r["model_mm2"] / r["die_mm2"] <= 0.5, key
        if r["tdp_w"]:
            assert 0.1 <= r["model_w"] / r["tdp_w"] <= 0.9, key
    # A100 at bf16: 110,592 fp16 MACs (312 TFLOPS / (2 x 1.41 GHz)), each 5,824 um2 at 45 nm.
    a100 = dnnmem.hardware("a100", precision="bf16")
    macs = a100.throughput / (2 * 1.41e9)
    cols = dnnmem.estimate("resnet18", a100).to_dict()
    assert cols["area_compute_mm2"] == pytest.approx(macs * 5824e-6 * 0.059)


def test_area_budget_script_small() -> None:
    # sweeps/energy/area_budget.py in its CI mode: the fastest point under each budget fits it,
    # its shares add to 1, and the three-way front is a Pareto front of (time, energy, area).
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sweeps" / "energy"))
    import area_budget

    best = area_budget.best_under_budget(area_budget.grid(small=True))
    assert (best["area_mm2"] <= best["budget_mm2"]).all() and len(best)
    shares = best[["sram_share", "phy_share", "compute_share"]].sum(axis=1)
    assert shares.to_numpy() == pytest.approx(1.0)
    df = area_budget.thesis_front(small=True)
    front = df[df["front"]]
    assert 0 < len(front) < len(df)
    cols = ["time", "energy_j", "area_mm2"]
    for _, f in front.iterrows():  # no point dominates a front point
        better = (df[cols] <= f[cols]).all(axis=1) & (df[cols] < f[cols]).any(axis=1)
        assert not better.any()
    # Its figure: the name pattern, and the house style (legend off the data, nothing cut off
    # or overlapping, no two entries alike, titles with units).
    from plot_checks import legend_problems, style_problems, text_problems

    from dnnmem.plots.style import FIGURE_NAME

    assert FIGURE_NAME.match(area_budget.NAME)
    fig = area_budget.plot(df)
    fig.draw_without_rendering()
    problems = (
        legend_problems(fig, draw=False)
        + text_problems(fig, draw=False)
        + style_problems(fig, draw=False)
    )
    assert problems == []
    assert "time (ms), energy (J) and die area (mm²)" in fig.get_suptitle()
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "energy per iteration (J)",
        "modelled die area (mm²)",
    ]
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(labels) == len(set(labels)) == df.groupby(["throughput", "bandwidth"]).ngroups + 1


def test_mbs_joules_script_small() -> None:
    # sweeps/energy/mbs_joules.py in its CI mode (ResNet-50, batch 8): MBS2 saves more joules than
    # the relative model says (static energy falls with time), and MBS1 lowers the DRAM share.
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sweeps" / "energy"))
    import mbs_joules

    df = mbs_joules.compute(small=True)
    assert (df["mbs2_saved_joules_pct"] > df["mbs2_saved_relative_pct"]).all()
    assert (df["mbs1_dram_share_pct"] < df["baseline_dram_share_pct"]).all()
    assert ((df["baseline_static_share_pct"] > 7) & (df["baseline_static_share_pct"] < 22)).all()


def test_sram_array_paths_equal_the_scalar_formula_bit_for_bit() -> None:
    # A sweep's rows go through the array paths (NumPy element-wise); each element must be the
    # scalar function's float exactly: below, at and above one bank, 0 and 1 byte, odd sizes.
    import numpy as np

    from dnnmem.area import sram_area_at_node

    bank = technology._bank()
    caps = [0, 1, 7, 4096, bank / 3, bank - 1, bank, bank + 1, 3 * bank + 5, 24 << 20, 1 << 40]
    for node in ("5nm", "12nm", "16nm", "28nm", "45nm", 65):
        array = np.array(caps, dtype=float)
        area = sram_area_at_node(array, str(node) if node != 65 else "65nm")
        pj = technology.sram_pj_per_byte(array, node, area)
        leak = technology.sram_leakage_w(array, node)
        for i, c in enumerate(caps):
            a = float(sram_area_at_node(c, str(node) if node != 65 else "65nm"))
            assert a == area[i]
            assert technology.sram_pj_per_byte(c, node, a) == pj[i], (node, c)
            assert technology.sram_leakage_w(c, node) == leak[i], (node, c)
    assert technology.sram_leakage_w(np.array([0.0, 1.0]), "7nm")[0] == 0.0


# -- what crosses the global buffer (docs/model/energy.md, "What crosses the SRAM") --------------


def test_global_buffer_paths_by_hand() -> None:
    # The chain: 405 step bytes. MBS1 under mbs-strict streams all of its 341 off-chip bytes, so
    # bypass leaves the 405 - 341 = 64 bytes the buffer serves; `none` streams every step byte
    # (238 moved, all streamed): 0; `lookahead` moves 62 bytes, 46 of them streamed: the buffer serves
    # 238 - 46 = 192 step bytes and carries the 62 - 46 = 16 prefetched or offloaded ones: 208.
    hw = dnnmem.Hardware(
        capacity="64KiB", bandwidth="1GB/s", throughput="1GFLOPS", memory_type="hbm2", node="45nm"
    )
    net = _net(CHAIN)
    r = dnnmem.estimate(net, hw, policy=MBS1)
    e_byte = r.energy_sram_j / (405 + 341)
    assert energy.sram_joules(r) == pytest.approx(r.energy_sram_j, rel=1e-12)
    assert energy.sram_joules(r, "bypass") == pytest.approx(64 * e_byte, rel=1e-12)
    none = dnnmem.estimate(net, hw, policy="default + none")
    assert (none.traffic, none.gb_bytes, energy.sram_joules(none, "bypass")) == (238, 238, 0)
    look = dnnmem.estimate(net, hw, policy="default + lookahead")
    assert (look.traffic, look.gb_bytes) == (62, 238)
    assert energy.sram_joules(look, "bypass") == pytest.approx(208 * e_byte, rel=1e-12)
    assert energy.sram_bytes(10, 4, 3, "bypass") == 8 and energy.sram_bytes(10, 4) == 14
    with pytest.raises(ValueError, match="path must be one of"):
        energy.sram_bytes(10, 4, 3, "around")


@pytest.mark.parametrize(
    "policy", ["mbs(variant=mbs2, buffer=400) + mbs-strict", "default + lookahead"]
)
def test_global_buffer_bypass_against_the_oracle(policy: str) -> None:
    import oracle
    from test_mbs import RESIDUAL3

    net = _net(RESIDUAL3)
    r = dnnmem.estimate(net, policy=policy, capacity=400, bandwidth=10**6, throughput=10**8)
    scheduler, manager = (p.strip() for p in policy.split("+"))
    o = oracle.estimate(
        net.with_scheduler(scheduler), 400, 10**6, 10**8, manager.split("(")[0], reuse="group"
    )
    assert o["traffic_in"] + o["traffic_out"] == r.traffic_in + r.traffic_out
    e_byte = r.energy_sram_j / oracle.sram_bytes(o, r.gb_bytes)
    bypass = oracle.sram_bytes(o, r.gb_bytes, "bypass")
    assert 0 < bypass < r.gb_bytes + r.traffic
    assert energy.sram_joules(r, "bypass") == pytest.approx(bypass * e_byte, rel=1e-12)

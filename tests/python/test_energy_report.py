"""Joules, mm² and the rough price where a user reads them: the printed Result (``print(r)``,
``dnnmem estimate``), ``--json``, and the technology set from the command line (``--memory-type``,
``--node``, ``--clock``) and from a sweep's YAML file (docs/model/energy.md)."""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from test_mbs import CHAIN, _net

import dnnmem
from dnnmem.cli import main
from dnnmem.sweep_spec import read_sweep_spec
from dnnmem.units import format_energy

MBS1 = "mbs(variant=mbs1, buffer=12) + mbs-strict"
PJ = 1e-12


def _line(text: str, key: str) -> str:
    """The value printed after ``key`` in a Result's text."""
    m = re.search(rf"^  {re.escape(key)}\s+(.*)$", text, re.M)
    assert m, f"no line {key!r} in:\n{text}"
    return m.group(1)


def test_format_energy() -> None:
    assert format_energy(0.2141) == "214.1 mJ"
    assert format_energy(1.06392e-8) == "10.64 nJ"
    assert format_energy(2500.0) == "2.5 kJ"
    assert format_energy(3.0) == "3 J"
    assert format_energy(0) == "0 J"


def test_printed_result_has_joules_mm2_and_a_rough_price() -> None:
    # The chain of test_energy_joules (hand-computed there, component by component): 341 bytes
    # moved over HBM2 at 3.9 pJ/bit, so the DRAM part is 10.64 nJ.
    hw = dnnmem.Hardware(
        capacity="64KiB", bandwidth="1GB/s", throughput="1GFLOPS", memory_type="hbm2", node="45nm"
    )
    r = dnnmem.estimate(_net(CHAIN), hw, policy=MBS1)
    assert r.energy_dram_j == pytest.approx(341 * 3.9 * 8 * PJ, rel=1e-12)
    text = repr(r)
    assert _line(text, "technology") == "hbm2, 45nm, 1.545 GHz, fp32"
    energy = _line(text, "energy")
    assert energy == (
        "17.09 nJ, 4.272 nJ/sample (DRAM 62%, SRAM leakage 21%, SRAM 11%, compute 5%, static 1%)"
    )
    assert energy.startswith(f"{format_energy(r.energy_j)}, {format_energy(r.energy_j / 4)}/sample")
    # Each component as its share of the total, largest first; the zero one (host link) left out.
    shares = {
        name: float(pct)
        for name, pct in re.findall(r"([A-Za-z][A-Za-z ]*?) (\d+)%", energy.split("(")[1])
    }
    assert list(shares) == ["DRAM", "SRAM leakage", "SRAM", "compute", "static"]
    assert shares["DRAM"] == round(100 * 341 * 3.9 * 8 * PJ / r.energy_j)
    area = _line(text, "die area")
    assert area == (
        f"{r.area_mm2:.4g} mm² (SRAM {r.area_sram_mm2:.4g}, MACs {r.area_compute_mm2:.4g}, "
        f"memory PHY {r.area_phy_mm2:.4g} mm², + 30% uncore of the die)"
    )
    # One HBM2 stack's PHY is the largest block of this small design; the die adds the uncore.
    assert r.area_phy_mm2 > r.area_sram_mm2 > r.area_compute_mm2 > 0
    assert r.area_mm2 > r.area_sram_mm2 + r.area_compute_mm2 + r.area_phy_mm2
    cost = _line(text, "cost (rough)")
    assert cost.startswith(f"${r.cost_usd:,.0f} (die ${r.cost_die_usd:,.0f} + DRAM ")
    assert "rough" in cost
    # The notebook view has the same lines.
    html = r._repr_html_()
    assert "mm²" in html and "/sample" in html and "cost (rough)" in html
    # No technology given: the defaults, said so.
    plain = repr(dnnmem.estimate(_net(CHAIN), capacity="64KiB", policy=MBS1))
    assert _line(plain, "technology") == "gddr6, 12nm, 1.545 GHz, fp32 (defaults)"


def test_cli_sets_the_technology_and_prints_joules(capsys) -> None:
    argv = ["estimate", "--network", "resnet18", "--hardware", "a100", "--precision", "bf16"]
    tech = ["--memory-type", "HBM3", "--node", "5nm", "--clock", "1.8GHz"]
    assert main([*argv, *tech]) == 0
    out = capsys.readouterr().out
    r = dnnmem.estimate(
        "resnet18",
        dnnmem.hardware("a100", precision="bf16", memory_type="hbm3", node="5nm", clock="1.8GHz"),
    )
    assert out.strip() == repr(r).strip()
    assert _line(out, "technology") == "hbm3, 5nm, 1.8 GHz, bf16"
    assert f"energy               {format_energy(r.energy_j)}" in out
    # --json: the same joules, mm² and dollars, each with its unit.
    assert main([*argv, *tech, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    for key, unit in (
        ("energy_j", "J"),
        ("energy_per_sample_j", "J/sample"),
        ("energy_dram_j", "J"),
        ("area_mm2", "mm²"),
        ("area_phy_mm2", "mm²"),
        ("cost_usd", "USD"),
    ):
        assert doc[key] == pytest.approx(getattr(r, key), rel=1e-12) and doc["units"][key] == unit
    assert doc["memory_type"] == "hbm3" and doc["node"] == "5nm" and doc["clock"] == 1.8e9
    # Against the A100's own HBM2e at 7 nm and 1.41 GHz: the same traffic and DRAM joules (the
    # table gives every HBM generation 3.9 pJ/bit), 1.555 TB/s from 2 HBM3 stacks of 819 GB/s
    # instead of 4 HBM2e stacks of 460 GB/s (half the PHY area), fewer and smaller MACs
    # (1.8 GHz, 5 nm), and less energy per MAC at 5 nm.
    own = dnnmem.estimate("resnet18", dnnmem.hardware("a100", precision="bf16"))
    assert own.traffic == r.traffic == 47078304
    assert own.energy_dram_j == r.energy_dram_j == pytest.approx(47078304 * 3.9 * 8 * PJ)
    assert r.area_phy_mm2 == pytest.approx(own.area_phy_mm2 / 2) and own.area_phy_mm2 == 44
    assert r.area_compute_mm2 < own.area_compute_mm2 * 1.41 / 1.8
    assert r.energy_compute_j < own.energy_compute_j
    # Without a preset, on the default design point.
    assert main(["estimate", "--network", "resnet18", "--memory-type", "lpddr5"]) == 0
    assert _line(capsys.readouterr().out, "technology") == "lpddr5, 12nm, 1.545 GHz, fp32"


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--memory-type", "hmb3", "--memory-type: no energy figures for 'hmb3'; did you mean hbm3"),
        ("--memory-type", "sram", "--memory-type: no energy figures for 'sram' (known: hbm2, "),
        ("--node", "seven", "--node: expected a process node such as '7nm', got 'seven'"),
        ("--node", "0.1nm", "--node: '0.1nm' is outside 1-250 nm"),
        ("--clock", "fast", "--clock: expected Hz or a value such as '1.41GHz', got 'fast'"),
        ("--clock", "-1GHz", "--clock: must be a finite number of Hz > 0, got -1000000000.0"),
    ],
)
def test_cli_technology_errors_name_the_option(capsys, option, value, message) -> None:
    for preset in ([], ["--hardware", "a100"]):
        code = main(["estimate", "--network", "resnet18", *preset, option, value])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith(f"dnnmem: error: {message}"), err


def test_yaml_sets_the_technology(tmp_path) -> None:
    spec = tmp_path / "tech.yaml"
    spec.write_text(
        "network: resnet18\ncapacity: [4MiB, 16MiB]\nmemory_type: lpddr5\nnode: 5nm\nclock: 1GHz\n",
        encoding="utf-8",
    )
    args = read_sweep_spec(spec)
    hw = args["hardware"]
    assert (hw.memory_type, hw.node, hw.clock) == ("lpddr5", "5nm", 1e9)
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (
        dnnmem.Hardware().capacity,
        dnnmem.Hardware().bandwidth,
        dnnmem.Hardware().throughput,
    )
    df = dnnmem.sweep(**args, progress=False)
    one = dnnmem.estimate("resnet18", hw, capacity="16MiB")
    row = df[df["capacity"] == 16 * 2**20].iloc[0]
    assert row["energy_j"] == pytest.approx(one.energy_j, rel=1e-12)
    assert row["area_mm2"] == pytest.approx(one.area_mm2, rel=1e-12)
    # LPDDR5 (and 5 nm) is not the default GDDR6 at 12 nm.
    default = dnnmem.estimate("resnet18", capacity="16MiB")
    assert row["energy_dram_j"] != pytest.approx(default.energy_dram_j)
    # With a preset: its technology overridden, its bandwidth kept.
    spec.write_text("network: resnet18\nhardware: a100\nnode: 5nm\n", encoding="utf-8")
    hw = read_sweep_spec(spec)["hardware"]
    assert (hw.memory_type, hw.node, hw.clock) == ("hbm2e", "5nm", 1.41e9)
    assert hw.bandwidth == dnnmem.hardware("a100").bandwidth


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("memory_type: hmb2e\n", "memory_type: no energy figures for 'hmb2e'; did you mean hbm2e"),
        ("hardware: a100\nmemory_type: hmb2e\n", "memory_type: no energy figures for 'hmb2e'"),
        ("node: 7xm\n", "node: expected a process node such as '7nm', got '7xm'"),
        ("clock: [1GHz, 2GHz]\n", "clock: expected one value (a sweep has one technology)"),
        ("memory_typ: hbm3\n", "unknown key 'memory_typ' (did you mean 'memory_type'?)"),
    ],
)
def test_yaml_technology_errors_name_the_key(tmp_path, body, message) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(textwrap.dedent("network: resnet18\n" + body), encoding="utf-8")
    with pytest.raises(ValueError) as e:
        read_sweep_spec(spec)
    assert str(e.value).startswith(f"{spec}: {message}"), str(e.value)

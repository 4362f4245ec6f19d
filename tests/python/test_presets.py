"""Hardware presets: the shipped data (python/dnnmem/data/hardware.json), dnnmem.hardware() and
dnnmem.hardware_presets(), and docs/hardware.md staying in sync with the data.

Table 5.2 of the thesis (Tsai 2021, p. 31), the values checked verbatim below:

    Hardware        Peak FP32 FLOPs  LLC size (MB)  off-chip mem BW (GB/s)  Memory type
    i9-10980XE      2.765 T          24.75          94                      DDR4
    RTX 2080 Ti     13.45 T          5.5            616                     GDDR6
    Radeon 6900 XT  23.04 T          128            512                     GDDR6
    A100            19.45 T          40             1555                    HBM2e

The thesis's "MB" cache sizes are MiB (SPEC §4), so e.g. 24.75 MB is 24.75 · 2^20 = 25,952,256 B.
"""

from __future__ import annotations

import importlib.util
import json
import math
from importlib import resources
from pathlib import Path

import pytest

import dnnmem
from dnnmem import presets
from dnnmem.units import parse_bandwidth, parse_bytes

ROOT = Path(__file__).resolve().parents[2]
SOURCE_JSON = ROOT / "python" / "dnnmem" / "data" / "hardware.json"
MiB = 2**20

CHIPS = presets.load_presets()
PRECISIONS = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "unspecified"}
KINDS = {"cpu", "gpu", "tpu", "npu"}

# key: (JSON capacity, bandwidth, fp32 throughput, memory type, capacity B, bandwidth B/s, FLOP/s)
TABLE_5_2 = {
    "i9-10980xe": ("24.75MiB", "94GB/s", "2.765TFLOPS", "DDR4", 24.75 * MiB, 94e9, 2.765e12),
    "rtx2080ti": ("5.5MiB", "616GB/s", "13.45TFLOPS", "GDDR6", 5.5 * MiB, 616e9, 13.45e12),
    "rx6900xt": ("128MiB", "512GB/s", "23.04TFLOPS", "GDDR6", 128 * MiB, 512e9, 23.04e12),
    "a100": ("40MiB", "1555GB/s", "19.45TFLOPS", "HBM2e", 40 * MiB, 1555e9, 19.45e12),
}


def _figures(entry: dict) -> set[str]:
    """The figure paths an entry must source: every number it states (null capacity too: its
    source says why it is missing)."""
    figs = {"capacity", "bandwidth", "year"}
    if entry["memory"] is not None:
        figs.add("memory")
    figs |= {f"throughput.{p}" for p in entry["throughput"]}
    figs |= {f"extra.{k}" for k in entry.get("extra", {})}
    if entry.get("compute"):  # the compute model (array shape) is a figure of the paper too
        figs.add("compute")
    # the energy, area and cost model's inputs and checks (docs/model/cost.md)
    figs |= {k for k in ("process", "clock", "die_area", "tdp") if k in entry}
    return figs


# --- thesis Table 5.2 ---------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(TABLE_5_2))
def test_table_5_2_verbatim(key: str) -> None:
    cap_s, bw_s, thr_s, mem_type, cap, bw, thr = TABLE_5_2[key]
    e = CHIPS[key]
    assert (e["capacity"], e["bandwidth"], e["throughput"]["fp32"]) == (cap_s, bw_s, thr_s)
    assert e["memory_type"] == mem_type
    assert e["default_precision"] == "fp32" and "thesis" in e["tags"]
    for fig in ("capacity", "bandwidth", "throughput.fp32"):
        assert "Table 5.2 (p. 31)" in e["sources"][fig]
    hw = dnnmem.hardware(key)
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (cap, bw, thr)


def test_thesis_group_is_table_5_2() -> None:
    df = dnnmem.hardware_presets(group="thesis")
    assert list(df["key"].unique()) == list(TABLE_5_2)
    fp32 = df[df["precision"] == "fp32"].set_index("key")
    for key, (*_, cap, bw, thr) in TABLE_5_2.items():
        assert (
            fp32.at[key, "capacity"],
            fp32.at[key, "bandwidth"],
            fp32.at[key, "throughput"],
        ) == (cap, bw, thr)
    assert fp32.at["i9-10980xe", "capacity"] == 25_952_256


def test_default_hardware_is_the_thesis_rtx2080ti() -> None:
    # Hardware()'s defaults (616 GB/s, 13.45 TFLOPS) are the thesis's RTX 2080 Ti, with the
    # 24 MiB on chip that the command line also defaults to; Hardware() states no precision.
    hw = dnnmem.hardware("rtx2080ti", capacity="24MiB", name="")
    assert hw.precision == "fp32" and hw.bytes_per_element == 4
    plain = hw.replace(precision=None, memory_type=None, node=None, clock=None)
    assert plain == dnnmem.Hardware()
    # The energy model's defaults for a Hardware that names no technology are that chip's.
    from dnnmem import technology

    assert (hw.memory_type, hw.node, hw.clock) == (
        technology.DEFAULT_MEMORY,
        technology.DEFAULT_NODE,
        technology.DEFAULT_CLOCK,
    )


# --- the data -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(CHIPS))
def test_every_figure_has_a_source(key: str) -> None:
    e = CHIPS[key]
    figs = _figures(e)
    assert set(e["sources"]) == figs, f"{key}: sources must cover exactly {sorted(figs)}"
    for fig, text in e["sources"].items():
        assert isinstance(text, str) and len(text) >= 20, f"{key}.{fig}: source too thin"
    for fig, why in e.get("approximate", {}).items():
        assert fig in figs and isinstance(why, str) and why, f"{key}: approximate {fig!r}"


@pytest.mark.parametrize("key", list(CHIPS))
def test_schema(key: str) -> None:
    e = CHIPS[key]
    if "compute" in e:  # a policy part of kind compute, in its string form
        assert dnnmem.Policy(compute=e["compute"]).compute is not None
    for field, typ in (
        ("name", str),
        ("vendor", str),
        ("year", int),
        ("kind", str),
        ("capacity_kind", str),
        ("bandwidth", str),
        ("notes", str),
        ("default_precision", str),
        ("throughput", dict),
        ("sources", dict),
    ):
        assert isinstance(e[field], typ), f"{key}.{field}"
    assert 2010 <= e["year"] <= 2026
    assert e["kind"] in KINDS and e["kind"] in e["tags"]
    assert all(isinstance(a, str) for a in e.get("aliases", []))
    assert set(e["throughput"]) <= PRECISIONS and e["default_precision"] in e["throughput"]
    assert e["capacity"] is None or parse_bytes(e["capacity"]) > 0
    assert e["memory"] is None or parse_bytes(e["memory"]) > 0
    assert e["memory_type"] is None or isinstance(e["memory_type"], str)
    assert parse_bandwidth(e["bandwidth"]) >= 1e9
    for name, value in e.get("extra", {}).items():
        parse = (
            parse_bandwidth
            if name.endswith("bandwidth")
            else (presets._rate if name.endswith("throughput") else parse_bytes)
        )
        assert parse(value) > 0
    # Every precision turns into a Hardware (unpublished capacities need an override).
    cap = {} if e["capacity"] is not None else {"capacity": "1MiB"}
    for prec, rate in e["throughput"].items():
        hw = dnnmem.hardware(key, precision=prec, **cap)
        assert hw.throughput == round(presets._rate(rate)) and hw.throughput >= 1e12
        assert hw.name == f"{e['name']} ({prec})"


def test_top_level_file() -> None:
    raw = json.loads(SOURCE_JSON.read_text(encoding="utf-8"))
    assert raw["schema_version"] == 1 and set(raw) == {"schema_version", "about", "chips"}
    assert {
        "h100-sxm",
        "h200",
        "b200",
        "mi300x",
        "tpu-v4",
        "tpu-v5e",
        "igo-edge-npu",
        "igo-server-npu",
        "wavecore",
        "onsram",
        "titan-x-maxwell",
        "titan-xp",
    } <= set(raw["chips"])


def test_shipped_json_is_the_source_file() -> None:
    shipped = resources.files("dnnmem").joinpath("data", "hardware.json").read_text("utf-8")
    assert json.loads(shipped) == json.loads(SOURCE_JSON.read_text(encoding="utf-8")), (
        "installed dnnmem/data/hardware.json differs from the source tree: reinstall the package"
    )


def test_load_presets_returns_a_copy() -> None:
    copy = presets.load_presets()
    copy["a100"]["bandwidth"] = "1GB/s"
    assert dnnmem.hardware("a100").bandwidth == 1555e9


# --- figures worth cross-checking -----------------------------------------------------------------


def test_derived_npu_throughputs() -> None:
    # Kim et al. MICRO 2023 Table 3: 45x45 PEs at 1 GHz; 128x128 PEs at 1050 MHz; 2 FLOP per MAC.
    assert dnnmem.hardware("igo-edge-npu").throughput == 45 * 45 * 2 * 1e9
    assert dnnmem.hardware("igo-server-npu").throughput == 128 * 128 * 2 * 1.05e9
    # WaveCore: the paper's 45 TOPS (FP16) vs 2 cores x 128^2 PEs x 2 x 0.7 GHz = 45.9e12.
    assert dnnmem.hardware("wavecore").throughput == pytest.approx(2 * 128**2 * 2 * 0.7e9, rel=0.02)
    assert dnnmem.hardware("wavecore").bandwidth == 300 * 2**30


def test_dense_is_half_of_sparse() -> None:
    # NVIDIA's H100 SXM datasheet: BF16 1,979 and FP8 3,958 TFLOPS with sparsity.
    assert dnnmem.hardware("h100-sxm", precision="bf16").throughput == 1979e12 / 2
    assert dnnmem.hardware("h100-sxm", precision="fp8").throughput == 3958e12 / 2
    # HGX B200: FP16/BF16 36 PFLOPS for 8 GPUs with sparsity.
    assert dnnmem.hardware("b200", precision="bf16", capacity=0).throughput == 36e15 / 8 / 2


def test_tops_read_as_flops() -> None:
    assert dnnmem.hardware("mi300x", precision="int8").throughput == 2614.9e12
    assert dnnmem.hardware("tpu-v5e", precision="int8", capacity="1MiB").throughput == 393e12
    assert presets._rate("2GOPS") == 2e9 and presets._rate("2GFLOPS") == 2e9


# --- lookup -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["RTX 2080 Ti", "rtx2080ti", "GeForce-RTX-2080-TI", "NVIDIA GeForce RTX 2080 Ti", " 2080 ti "],
)
def test_name_is_case_and_punctuation_insensitive(name: str) -> None:
    assert dnnmem.hardware(name) == dnnmem.hardware("rtx2080ti")


def test_aliases() -> None:
    assert dnnmem.hardware("Radeon 6900 XT").capacity == 128 * MiB
    assert dnnmem.hardware("TPU v4").name == "Google TPU v4 (bf16)"
    assert dnnmem.hardware("H100").name == "NVIDIA H100 SXM (fp32)"
    assert dnnmem.hardware("Titan X").bandwidth == 336e9
    assert dnnmem.hardware("Titan Xp").bandwidth == 548e9


def test_default_precision() -> None:
    assert dnnmem.hardware("tpu-v4").throughput == 275e12  # bf16: no FP32 peak
    assert dnnmem.hardware("onsram").name == "OnSRAM baseline accelerator (unspecified)"
    assert dnnmem.hardware("a100", precision="bf16").throughput == 312e12


def test_overrides() -> None:
    hw = dnnmem.hardware("a100", capacity="80MiB")
    assert (hw.capacity, hw.bandwidth, hw.throughput) == (80 * MiB, 1555e9, 19.45e12)
    assert hw.name == "NVIDIA A100 (40 GB) (fp32)"
    hw = dnnmem.hardware("a100", bandwidth="2039GB/s", throughput=1e12, name="A100 80GB-ish")
    assert (hw.capacity, hw.bandwidth, hw.throughput, hw.name) == (
        40 * MiB,
        2039e9,
        1e12,
        "A100 80GB-ish",
    )
    assert dnnmem.hardware("b200", capacity="126MiB").capacity == 126 * MiB


def test_preset_feeds_estimate() -> None:
    # TINY (test_estimate_api.py) at batch 2 moves 364 + 220 = 584 B; at capacity 0 on the OnSRAM
    # accelerator (32 GB/s, 3 TFLOP/s) every step is memory-bound (at most 48 FLOP per 116 B,
    # far below the 93.75 FLOP/B ridge), so the time is 584 B / 32e9 B/s.
    tiny = {
        "name": "tiny",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4]},
            {"name": "fc1", "kind": "dense", "inputs": ["x"], "units": 3},
            {"name": "act", "kind": "relu", "inputs": ["fc1"]},
            {"name": "fc2", "kind": "dense", "inputs": ["act"], "units": 2},
        ],
    }
    hw = dnnmem.hardware("onsram", capacity=0)
    r = dnnmem.estimate(dnnmem.load_network(tiny, batch=2), hardware=hw)
    assert r.traffic == 584
    assert r.time == pytest.approx(584 / 32e9, rel=1e-12)


# --- errors -------------------------------------------------------------------------------------


def test_unknown_name_lists_close_matches_and_all_keys() -> None:
    with pytest.raises(ValueError) as info:
        dnnmem.hardware("rtx2080")
    msg = str(info.value)
    assert msg.startswith(
        "unknown hardware 'rtx2080'; did you mean rtx2080ti, rtx3090? (known: "
        "i9-10980xe, rtx2080ti, rx6900xt, a100, h100-sxm, "
    )
    assert all(key in msg for key in CHIPS)
    with pytest.raises(ValueError, match=r"^unknown hardware 'zzz' \(known: i9-10980xe, "):
        dnnmem.hardware("zzz")


def test_unknown_precision_lists_the_chips_precisions() -> None:
    with pytest.raises(ValueError) as info:
        dnnmem.hardware("rtx2080ti", precision="bf16")
    assert str(info.value) == "precision: rtx2080ti has no 'bf16' peak (has: fp32)"
    with pytest.raises(ValueError) as info:
        dnnmem.hardware("tpu-v4", precision="fp32")
    assert str(info.value) == "precision: tpu-v4 has no 'fp32' peak (has: bf16, int8)"


def test_unpublished_capacity_needs_an_override() -> None:
    for key in ("b200", "tpu-v5e"):
        with pytest.raises(
            ValueError,
            match=rf"^capacity: the on-chip capacity of {key} is not "
            r"published \(not published by .*pass capacity=",
        ):
            dnnmem.hardware(key)


def test_bad_arguments() -> None:
    with pytest.raises(
        TypeError,
        match=r"^hardware: unknown override\(s\) \['cache'\]; valid: "
        r"capacity, bandwidth, throughput, name, compute, memory_type, node, clock$",
    ):
        dnnmem.hardware("a100", cache="1MiB")
    with pytest.raises(TypeError, match=r"^name: expected a chip name string, got int$"):
        dnnmem.hardware(100)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^capacity: "):
        dnnmem.hardware("a100", capacity="-1MiB")
    with pytest.raises(ValueError) as info:
        dnnmem.hardware_presets(group="fpga")
    assert str(info.value) == (
        "group: unknown group 'fpga' (valid: cpu, current, gpu, npu, seed, thesis, tpu)"
    )


def test_exported() -> None:
    assert {"hardware", "hardware_presets"} <= set(dnnmem.__all__)
    assert dnnmem.hardware is presets.hardware
    assert dnnmem.Hardware is dnnmem.hardware("a100").__class__


def test_names_do_not_collide() -> None:
    seen: dict[str, str] = {}
    for key, e in CHIPS.items():
        for label in {presets._normalize(x) for x in (key, e["name"], *e.get("aliases", []))}:
            assert seen.setdefault(label, key) == key, f"{label!r}: {key} and {seen[label]}"


# --- the DataFrame ------------------------------------------------------------------------------


def test_dataframe_columns_and_dtypes() -> None:
    df = dnnmem.hardware_presets()
    assert list(df.columns) == list(presets._COLUMNS)
    assert {c: str(t) for c, t in df.dtypes.items()} == presets._COLUMNS
    assert len(df) == sum(len(e["throughput"]) for e in CHIPS.values())
    assert (df.groupby("key", sort=False)["default"].sum() == 1).all()
    assert (df["ridge_point"] == df["throughput"] / df["bandwidth"]).all()
    b200 = df[df["key"] == "b200"]
    assert b200["capacity"].isna().all()
    # approximate is per row: B200's fp32 and tf32 peaks are marked, its bf16 peak is not.
    assert list(b200["approximate"]) == [True, True, False, False, False]
    h100 = df[(df["key"] == "h100-sxm") & (df["precision"] == "bf16")].iloc[0]
    assert (h100["capacity"], h100["bandwidth"], h100["throughput"], h100["memory"]) == (
        50 * MiB,
        3.35e12,
        989.5e12,
        80e9,
    )
    assert math.isclose(h100["ridge_point"], 989.5e12 / 3.35e12)
    assert df[df["key"] == "h200"]["approximate"].all()  # the L2 size is borrowed from H100
    assert df[df["key"] == "titan-x-maxwell"]["approximate"].all()
    # Each column's unit (there were none in the names or attrs of capacity, bandwidth ...).
    assert {c: u for c, u in df.attrs["units"].items() if u} == {
        "year": "year",
        "capacity": "bytes",
        "bandwidth": "bytes/s",
        "throughput": "FLOP/s",
        "ridge_point": "FLOP/byte",
        "memory": "bytes",
    }
    assert list(df.attrs["units"]) == list(df.columns)


def test_dataframe_groups() -> None:
    seeds = dnnmem.hardware_presets(group="seed")
    assert set(seeds["key"]) == {
        "igo-edge-npu",
        "igo-server-npu",
        "wavecore",
        "v100",
        "onsram",
        "titan-x-maxwell",
        "titan-xp",
        "rtx3090",
    }
    assert set(dnnmem.hardware_presets(group="tpu")["key"]) == {"tpu-v4", "tpu-v5e"}
    assert set(dnnmem.hardware_presets(group="cpu")["key"]) == {"i9-10980xe"}


# --- docs/hardware.md ---------------------------------------------------------------------------


def test_doc_is_in_sync_with_the_data() -> None:
    spec = importlib.util.spec_from_file_location(
        "gen_hardware_table", ROOT / "docs" / "gen_hardware_table.py"
    )
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert gen.main(["--check"]) == 0, "stale docs/hardware.md: python docs/gen_hardware_table.py"
    doc = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    assert (
        "| `rtx2080ti` | NVIDIA GeForce RTX 2080 Ti | NVIDIA | 2018 | thesis, gpu | 5.5MiB" in doc
    )
    # The check really compares: a changed figure makes it fail.
    chips = json.loads(SOURCE_JSON.read_text(encoding="utf-8"))["chips"]
    chips["a100"]["bandwidth"] = "2039GB/s"
    assert gen.updated(doc, chips) != doc

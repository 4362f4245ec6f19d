"""What a new user runs into first (issue 16, "found by trying it as a new user"): precision
and element size, the defaults, optional packages checked before the work, the command line's
messages and help, and the documentation of the sweep format."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

import dnnmem
from dnnmem import sweep_spec
from dnnmem.cli import _parser, main

ROOT = Path(__file__).resolve().parents[2]
MiB = 2**20


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- precision sets both the throughput and the element size --------------------------------


def test_preset_precision_sets_the_element_size_of_networks_given_by_name():
    hw = dnnmem.hardware("a100", precision="bf16", capacity="50MiB")
    assert (hw.precision, hw.bytes_per_element, hw.throughput) == ("bf16", 2, 312e12)
    r = dnnmem.estimate("gpt2", hw, batch=8)
    assert r.network.bytes_per_element == 2
    two = dnnmem.estimate(dnnmem.network("gpt2", batch=8, bytes_per_element=2), hw)
    assert (r.time, r.traffic_in, r.traffic_out) == (two.time, two.traffic_in, two.traffic_out)
    # The 4-byte network moves twice the bytes of each tensor: the silent 2x error of before.
    with pytest.warns(dnnmem.PrecisionWarning, match="bf16 means 2-byte elements"):
        four = dnnmem.estimate(dnnmem.network("gpt2", batch=8), hw)
    assert four.traffic > 1.5 * r.traffic and four.time > r.time
    assert "2 B/element" in repr(r) and "precision=bf16" in repr(r)


def test_each_precision_implies_its_element_size():
    sizes = {
        p: dnnmem.hardware("h100-sxm", precision=p).bytes_per_element
        for p in ("fp32", "tf32", "bf16", "fp16", "fp8")
    }
    assert sizes == {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2, "fp8": 1}
    assert dnnmem.hardware("tpu-v4").bytes_per_element == 2  # its default precision, bf16
    npu = dnnmem.hardware("igo-edge-npu", precision="unspecified")
    assert npu.precision == "unspecified" and npu.bytes_per_element is None
    # The interleaved-gradient NPUs default to bf16 (docs/model/interleaved.md, element size).
    assert dnnmem.hardware("igo-edge-npu").bytes_per_element == 2
    assert dnnmem.Hardware().precision is None  # states none: networks keep their own size
    with pytest.raises(ValueError, match="precision: unknown precision 'bf17'"):
        dnnmem.Hardware(precision="bf17")
    assert dnnmem.Hardware(precision="fp16").replace(capacity=0).precision == "fp16"


def test_sweep_follows_the_hardware_precision():
    hw = dnnmem.hardware("a100", precision="fp16")
    df = dnnmem.sweep(
        "resnet50", batch=2, capacity=["8MiB", "64MiB"], hardware=hw, progress=False, threads=1
    )
    for row in df.itertuples():
        want = dnnmem.estimate(
            dnnmem.network("resnet50", batch=2, bytes_per_element=2),
            hw.replace(capacity=int(row.capacity)),
        )
        assert (row.time, row.traffic_in) == (want.time, want.traffic_in)
    with pytest.warns(dnnmem.PrecisionWarning):
        dnnmem.sweep(
            dnnmem.network("resnet50", batch=2),
            capacity="8MiB",
            hardware=hw,
            progress=False,
            threads=1,
        )


def test_cli_precision_sets_both_and_bytes_per_element_overrides_loudly(capsys):
    args = [
        "estimate",
        "--network",
        "gpt2",
        "--batch",
        "2",
        "--hardware",
        "a100",
        "--precision",
        "bf16",
        "--capacity",
        "50MiB",
    ]
    code, out, err = run(capsys, *args)
    hw = dnnmem.hardware("a100", precision="bf16", capacity="50MiB")
    assert code == 0 and err == ""
    assert out.strip() == repr(dnnmem.estimate("gpt2", hw, batch=2)).strip()
    assert "2 B/element" in out.splitlines()[0]
    # An explicit element size wins, and the mix is said on stderr (no warning traceback).
    code, out, err = run(capsys, *args, "--bytes-per-element", "4")
    assert code == 0
    assert err.startswith("dnnmem: note: --bytes-per-element 4 with precision bf16")
    assert "4 B/element" in out.splitlines()[0]
    # Without a preset, --bytes-per-element alone sets the element size.
    code, out, _ = run(capsys, "estimate", "--network", "resnet50", "--bytes-per-element", "2")
    assert code == 0 and "2 B/element" in out.splitlines()[0]


def test_sweep_spec_precision_sets_the_element_size(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        "network: resnet50\nhardware: a100\nprecision: bf16\ncapacity: 8MiB\n", encoding="utf-8"
    )
    kwargs = sweep_spec.read_sweep_spec(spec)
    assert kwargs["hardware"].precision == "bf16"
    df = dnnmem.sweep(**kwargs, progress=False, threads=1)
    want = dnnmem.estimate(
        dnnmem.network("resnet50", bytes_per_element=2),
        dnnmem.hardware("a100", precision="bf16", capacity="8MiB"),
    )
    assert df["time"].iloc[0] == want.time
    spec.write_text("network: resnet50\nprecision: bf16\n", encoding="utf-8")
    with pytest.raises(ValueError, match="precision: needs a hardware preset"):
        sweep_spec.read_sweep_spec(spec)


# --- one rule for the defaults ------------------------------------------------------------


def test_cli_and_python_share_the_defaults(capsys):
    code, out, _ = run(capsys, "estimate", "--network", "resnet50")
    assert code == 0
    r = dnnmem.estimate("resnet50")
    assert out.strip() == repr(r).strip()
    assert (r.network.batch, r.hardware.capacity, r.policy) == (1, 24 * MiB, "lookahead")
    assert (r.hardware.bandwidth, r.hardware.throughput) == (616e9, 13.45e12)
    df = dnnmem.sweep("resnet50", progress=False, threads=1)
    assert (df["batch"][0], df["capacity"][0]) == (1, 24 * MiB)
    code, out, _ = run(capsys, "summary", "resnet50")
    assert code == 0 and out == dnnmem.network("resnet50").summary() + "\n"


def test_every_result_repr_names_its_design_point():
    r = dnnmem.estimate("resnet50", batch=2, capacity="8MiB", policy="lru", ops_per_mac=1)
    head = repr(r).splitlines()[0]
    assert head == (
        "<dnnmem.Result resnet50, batch=2, 4 B/element, policy=lru, ops_per_mac=1, "
        "Hardware(capacity=8 MiB, bandwidth=616 GB/s, throughput=13.45 TFLOPS)>"
    )
    html = r._repr_html_()
    for part in ("batch=2", "policy=lru", "capacity=8 MiB", "4 B/element"):
        assert part in html


# --- optional packages: checked before the work, the extra named ---------------------------


def _block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for m in modules:
        monkeypatch.setitem(sys.modules, m, None)


def _no_sweep(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the engine's calls instead of making them."""
    calls: list[int] = []
    monkeypatch.setattr(sys.modules["dnnmem.sweep"], "_run", lambda *a, **k: calls.append(1))
    return calls


def test_sweep_to_parquet_without_pyarrow_fails_before_the_work(capsys, monkeypatch, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("network: resnet50\ncapacity: [8MiB, 16MiB]\n", encoding="utf-8")
    calls = _no_sweep(monkeypatch)
    _block(monkeypatch, "pyarrow", "fastparquet")
    out = tmp_path / "x.parquet"
    code, stdout, err = run(capsys, "sweep", str(spec), "-o", str(out), "--no-progress")
    assert code == 2 and stdout == "" and calls == [] and not out.exists()
    assert err.startswith("dnnmem: error: --out") and 'pip install ".[parquet]"' in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(ImportError, match=r'out= \(a Parquet file\) needs .*"parquet" extra'):
        dnnmem.sweep("resnet50", out=tmp_path / "y.parquet", progress=False)
    assert calls == []


def test_sweep_plot_without_matplotlib_fails_before_the_work(capsys, monkeypatch, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("network: resnet50\n", encoding="utf-8")
    calls = _no_sweep(monkeypatch)
    _block(monkeypatch, "matplotlib")
    code, _, err = run(
        capsys, "sweep", str(spec), "-o", str(tmp_path / "x.csv"), "--plot", str(tmp_path / "x.png")
    )
    assert code == 2 and calls == [] and 'pip install ".[plot]"' in err
    assert "--plot needs the package 'matplotlib'" in err


def test_plots_without_matplotlib_name_the_extra(monkeypatch):
    df = dnnmem.sweep("resnet50", capacity=["8MiB", "16MiB"], progress=False, threads=1)
    _block(monkeypatch, "matplotlib")
    with pytest.raises(ImportError, match=r'drawing plots needs .*pip install "?\.\[plot\]'):
        dnnmem.plots.time_vs_capacity(df)
    with pytest.raises(ImportError, match=r"\.\[plot\]"):
        dnnmem.plots.modified_roofline_grid("resnet50")


@pytest.mark.parametrize(
    "suffix, module, extra",
    [
        (".keras", "keras", "keras"),
        (".h5", "keras", "keras"),
        (".pt2", "torch", "torch"),
        (".onnx", "onnx", "onnx"),
    ],
)
def test_import_without_its_package_names_the_extra(
    capsys, monkeypatch, tmp_path, suffix, module, extra
):
    _block(monkeypatch, module)
    model = tmp_path / f"m{suffix}"
    model.write_bytes(b"")
    code, out, err = run(capsys, "import", str(model), "-o", str(tmp_path / "m.json"))
    assert code == 2 and out == ""
    assert err == (
        f"dnnmem: error: importing {suffix} files needs the package {module!r}, "
        f'which is not installed: pip install {module}, or dnnmem\'s "{extra}" '
        f'extra: pip install ".[{extra}]" in a dnnmem clone\n'
    )


# --- command line: names, numbers, help, summary ------------------------------------------


def test_mistyped_network_lists_the_names_and_suggests(capsys):
    code, _, err = run(capsys, "estimate", "--network", "resnet5")
    assert code == 2
    assert "(did you mean resnet50, " in err  # the closest first
    assert "; built-in networks: alexnet, " in err and "vit_b16" in err
    code, _, err = run(capsys, "summary", "mobilenetv2")
    assert code == 2 and "did you mean mobilenet_v2" in err
    with pytest.raises(
        ValueError,
        match=r"network: 'resnet5' is neither a file nor a built-in "
        r"network \(did you mean resnet50, ",
    ):
        dnnmem.estimate("resnet5")
    with pytest.raises(ValueError, match=r"unknown network 'gtp2' \(did you mean gpt2"):
        dnnmem.network("gtp2")


def test_a_name_given_for_a_file_and_a_file_for_a_name_say_which_function(tmp_path):
    """load_network("resnet18") said only "cannot read the file", network("net.json") only
    "unknown network" with the built-in names."""
    with pytest.raises(
        dnnmem.NetworkError,
        match=r"^resnet18: cannot read the file: No such file or directory \(the built-in "
        r"network: dnnmem.network\('resnet18'\)\)$",
    ):
        dnnmem.load_network("resnet18")
    with pytest.raises(
        ValueError,
        match=r"^unknown network 'nets/my\.json' \(a network file is read by "
        r"dnnmem.load_network\('nets/my\.json'\)\); built-in networks: alexnet, ",
    ):
        dnnmem.network("nets/my.json")
    with pytest.raises(dnnmem.NetworkError, match=r"No such file or directory$"):
        dnnmem.load_network(tmp_path / "resnet18")  # a path, not the name: no hint


def test_plain_numbers_are_base_units(capsys):
    assert dnnmem.parse_bandwidth("616e9") == 616e9
    assert dnnmem.parse_throughput("13.45e12") == 13.45e12
    assert dnnmem.parse_bandwidth(" 1000 ") == 1000.0
    code, plain, _ = run(
        capsys,
        "estimate",
        "--network",
        "resnet50",
        "--capacity",
        "8388608",
        "--bandwidth",
        "616e9",
        "--throughput",
        "13.45e12",
    )
    code2, units, _ = run(
        capsys,
        "estimate",
        "--network",
        "resnet50",
        "--capacity",
        "8MiB",
        "--bandwidth",
        "616GB/s",
        "--throughput",
        "13.45TFLOPS",
    )
    assert code == code2 == 0 and plain == units
    with pytest.raises(ValueError, match="unknown unit 'G'"):
        dnnmem.parse_bandwidth("616G")


def _helps() -> dict[str, str]:
    parser = _parser()
    texts = {"dnnmem": parser.format_help()}
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, p in sub.choices.items():  # type: ignore[union-attr]
        texts[name] = p.format_help()
    return texts


def test_help_is_plain_text():
    for name, text in _helps().items():
        assert not re.search(r"``|:(func|class|mod|meth|attr|data):", text), (name, text)


def test_import_help_lists_every_format():
    text = _helps()["import"]
    for ext in (".cfg", ".onnx", ".keras", ".h5", ".pt2"):
        assert ext in text, ext


def test_sweep_summary_is_per_network(capsys, tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(
        textwrap.dedent("""\
        network: [resnet50, mobilenet_v2]
        capacity: [8MiB, 64MiB]
        policy: [lookahead, none]
        """),
        encoding="utf-8",
    )
    out_csv = tmp_path / "x.csv"
    code, out, _ = run(capsys, "sweep", str(spec), "-o", str(out_csv), "--no-progress")
    assert code == 0
    lines = out.splitlines()
    assert (
        lines[0] == f"8 design points -> {out_csv}; fastest design point of each network "
        f"(time per iteration):"
    )
    df = dnnmem.sweep(
        ["resnet50", "mobilenet_v2"],
        capacity=["8MiB", "64MiB"],
        policy=["lookahead", "none"],
        progress=False,
        threads=1,
    )
    for line, name in zip(lines[1:3], ("resnet50", "mobilenet_v2")):
        best = df[df.network == name].sort_values("time").iloc[0]
        assert line == (
            f"  {name} (batch 1): {dnnmem.format_time(best['time'])} at "
            f"{dnnmem.format_bytes(best['capacity'])}, 616 GB/s, 13.45 TFLOPS, "
            f"{best['policy']}"
        )
    assert len(lines) == 3


# --- the sweep format, the README and the extras -------------------------------------------


def _doc_example() -> str:
    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    section = text.split("## The YAML format", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.S).group(1)  # type: ignore[union-attr]


def test_the_yaml_format_is_documented_key_by_key(tmp_path):
    text = (ROOT / "docs" / "sweeps.md").read_text(encoding="utf-8")
    section = text.split("## The YAML format", 1)[1].split("\n## ", 1)[0]
    for key in sweep_spec._KEYS:
        assert f"| `{key}` |" in section, key
    spec = tmp_path / "example.yaml"
    spec.write_text(_doc_example(), encoding="utf-8")
    kwargs = sweep_spec.read_sweep_spec(spec)
    df = dnnmem.sweep(**kwargs, progress=False)
    assert set(df["network"]) == {"resnet50", "mobilenet_v2"}
    assert set(df["policy"]) == {"lookahead", "lru"}
    assert len(df) == 2 * 2 * 2 * 13 * 2  # networks x batches x policies x capacities x bws


def test_readme_installs_from_a_clone_and_notebook_extra_is_complete():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 'pip install "dnnmem[' not in readme and "pip install 'dnnmem[" not in readme
    assert 'pip install ".[plot]"' in readme
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        tomllib = pytest.importorskip("tomli")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    names = {re.split(r"[<>=\[; ]", r, maxsplit=1)[0] for r in extras["notebook"]}
    assert {"jupyterlab", "ipywidgets"} <= names


def test_a_preset_without_a_published_capacity_takes_the_capacity_given(capsys, tmp_path):
    """estimate(net, "b200", capacity=...) and sweep(hardware="b200", capacity=[...]) failed
    with "pass capacity=..." although it was passed (the preset was resolved first); so did a
    YAML sweep with `hardware: b200` and a capacity axis."""
    want = dnnmem.estimate("resnet18", dnnmem.hardware("b200", capacity="50MiB"))
    got = dnnmem.estimate("resnet18", "b200", capacity="50MiB")
    assert (got.time, got.traffic_in, got.hardware) == (want.time, want.traffic_in, want.hardware)
    df = dnnmem.sweep("resnet18", hardware="b200", capacity=["50MiB"], progress=False, threads=1)
    assert (df["time"].tolist(), df["throughput"].tolist()) == ([want.time], [75e12])
    spec = tmp_path / "b200.yaml"
    spec.write_text("network: resnet18\nhardware: b200\ncapacity: [50MiB]\n", encoding="utf-8")
    code, out, _ = run(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"), "--no-progress")
    assert code == 0 and "resnet18 (batch 1): " in out
    with pytest.raises(ValueError, match=r"^hardware: capacity: the on-chip capacity of b200"):
        dnnmem.estimate("resnet18", "b200")  # none given: still refused
    code, _, err = run(capsys, "estimate", "--network", "resnet18", "--hardware", "b200")
    assert code == 2 and err.endswith("(here: --capacity 50MiB)\n")

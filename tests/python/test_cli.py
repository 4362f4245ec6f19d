"""The command line: each subcommand's output and its one-line errors with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pandas as pd
import pytest

import dnnmem
from dnnmem.cli import main

MiB = 2**20


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_networks_and_policies(capsys):
    code, out, _ = run(capsys, "networks")
    assert code == 0 and out.split() == dnnmem.networks()
    code, out, _ = run(capsys, "policies")
    lines = out.splitlines()
    assert code == 0 and [x for x in lines if not x.startswith(" ")] == [
        "scheduler:",
        "cache:",
        "link:",
        "compute:",
    ]
    cache = lines[lines.index("cache:") + 1 : lines.index("link:")]
    assert [x.split()[0] for x in cache if not x.startswith("   ")] == list(dnnmem.parts("cache"))
    assert "first=dx|dw (default dx)" in out


def test_estimate_prints_the_result_of_the_api(capsys):
    code, out, _ = run(
        capsys, "estimate", "--network", "resnet50", "--batch", "2", "--capacity", "8MiB"
    )
    assert code == 0
    r = dnnmem.estimate(
        "resnet50", batch=2, capacity="8MiB", bandwidth="616GB/s", throughput="13.45TFLOPS"
    )
    assert out.strip() == repr(r).strip()


def test_estimate_with_a_preset_and_an_override(capsys):
    code, out, _ = run(
        capsys,
        "estimate",
        "--network",
        "resnet50",
        "--batch",
        "2",
        "--hardware",
        "a100",
        "--capacity",
        "8MiB",
    )
    assert code == 0
    hw = dnnmem.hardware("a100", capacity="8MiB")
    assert hw.capacity == 8 * MiB and hw.bandwidth == 1555e9
    assert out.strip() == repr(dnnmem.estimate("resnet50", hw, batch=2)).strip()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["estimate", "--network", "nosuchnet"], "nosuchnet"),
        (["estimate", "--network", "resnet50", "--capacity", "12 parsecs"], "capacity"),
        (["estimate", "--network", "resnet50", "--policy", "lifo"], "policy"),
        (["estimate", "--network", "resnet50", "--hardware", "rtx9999"], "rtx9999"),
        (
            ["estimate", "--network", "resnet50", "--precision", "fp16"],
            "--precision needs --hardware",
        ),
        (["sweep", "missing.yaml", "-o", "x.parquet"], "missing.yaml"),
        # A signed value is the option's own error (argparse said "--capacity: expected one
        # argument", taking -5MiB for an option), and --steps -3 was ignored.
        (
            ["estimate", "--network", "resnet50", "--capacity", "-5MiB"],
            "capacity: must be a finite amount >= 0, got '-5MiB'",
        ),
        (
            ["estimate", "--network", "resnet50", "--bandwidth", "-.5TB/s"],
            "bandwidth: must be a finite amount >= 0, got '-.5TB/s'",
        ),
        (["summary", "resnet50", "--steps", "-3"], "--steps: must be >= 0, got -3"),
    ],
)
def test_errors_are_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("dnnmem: error: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_presets_lists_table_5_2(capsys):
    code, out, _ = run(capsys, "presets", "--group", "thesis")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) >= 4
    assert any("2080" in line and "616" in line for line in lines)


def write_spec(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "spec.yaml"
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def test_sweep_from_yaml_equals_the_api(capsys, tmp_path):
    pytest.importorskip("pyarrow")
    spec = write_spec(
        tmp_path,
        """\
        network: resnet50
        batch: 2
        capacity: {start: 8MiB, stop: 12MiB, step: 2MiB}
        bandwidth: [616GB/s, 1555GB/s]
        throughput: 13.45TFLOPS
        policy: [lookahead, none]
        threads: 1
        """,
    )
    out = tmp_path / "out.parquet"
    code, text, _ = run(capsys, "sweep", str(spec), "-o", str(out), "--no-progress")
    assert code == 0 and "12 design points" in text
    got = pd.read_parquet(out)
    assert sorted(got["capacity"].unique()) == [8 * MiB, 10 * MiB, 12 * MiB]
    want = dnnmem.sweep(
        "resnet50",
        batch=2,
        capacity=["8MiB", "10MiB", "12MiB"],
        bandwidth=["616GB/s", "1555GB/s"],
        throughput="13.45TFLOPS",
        policy=["lookahead", "none"],
        threads=1,
        progress=False,
    )
    key = ["policy", "capacity", "bandwidth"]
    got = got.sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    assert got["time"].tolist() == want["time"].tolist()
    assert got["traffic_in"].tolist() == want["traffic_in"].tolist()


def test_sweep_to_csv_with_a_preset(capsys, tmp_path):
    spec = write_spec(
        tmp_path,
        """\
        network: resnet50
        batch: 2
        hardware: rtx2080ti
        capacity: [4MiB]
        """,
    )
    out = tmp_path / "out.csv"
    code, _, _ = run(capsys, "sweep", str(spec), "-o", str(out), "--no-progress")
    assert code == 0
    df = pd.read_csv(out)
    assert len(df) == 1 and df["bandwidth"][0] == 616e9 and df["capacity"][0] == 4 * MiB


def test_a_csv_write_that_fails_after_the_sweep_keeps_the_rows(capsys, tmp_path, monkeypatch):
    """-o x.csv was written after the work straight to x.csv: a full disk lost the rows (and left
    a partial file). Now through a temporary file, and a failure keeps a copy it names."""
    spec = write_spec(tmp_path, "network: resnet50\nbatch: 2\ncapacity: [4MiB, 8MiB]\n")
    out = tmp_path / "out.csv"
    out.write_text("an earlier result\n", encoding="utf-8")
    spare = tmp_path / "spare"
    spare.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spare))
    real = pd.DataFrame.to_csv

    def disk_full(self: pd.DataFrame, path: object, *args: object, **kwargs: object) -> object:
        if Path(str(path)).parent == tmp_path:  # the disk of out.csv is full
            Path(str(path)).write_text("network,ba", encoding="utf-8")  # a partial file
            raise OSError(28, "No space left on device")
        return real(self, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", disk_full)
    code, _, err = run(capsys, "sweep", str(spec), "-o", str(out), "--no-progress")
    (copy,) = spare.glob("dnnmem-sweep-*.csv")
    assert code == 2 and err == (
        f"dnnmem: error: --out: could not write {str(out)!r}: No space left on device; its 2 "
        f"rows are in {str(copy)!r}: move that file to {str(out)!r}\n"
    )
    assert out.read_text(encoding="utf-8") == "an earlier result\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "spare", "spec.yaml"]
    assert pd.read_csv(copy)["capacity"].tolist() == [4 * MiB, 8 * MiB]


@pytest.mark.parametrize(
    "body, message",
    [
        (  # was "unknown key(s) ['capacty'] (known: [...])", no suggestion
            "network: resnet50\ncapacty: 1MiB\n",
            "bad.yaml: unknown key 'capacty' (did you mean 'capacity'?) (known: bandwidth, ",
        ),
        ("batch: 2\n", "key 'network' is missing"),
        ("network: resnet50\ncapacity: {start: 2MiB, stop: 1MiB, step: 1MiB}\n", "below start"),
        ("network: resnet50\ncapacity: {start: 1MiB, stop: 2MiB}\n", "needs exactly start, stop"),
        ("- just\n- a list\n", "a mapping"),
        ("network: [resnet50\n", "not valid YAML"),
        (  # named the file, not the key: "bad.yaml: expected an integer, got 1.5"
            "network: resnet50\nbatch: {start: 1, stop: 4, step: 1.5}\n",
            "bad.yaml: batch: range step: expected an integer, got 1.5",
        ),
        (  # was "'nets/missing.json' is neither a file nor a built-in network" and the names
            "network: [resnet50, nets/missing.json]\n",
            "network: no file 'nets/missing.json', neither next to the YAML file (",
        ),
        (  # was "policy: a range needs exactly start, stop and step (...)"
            "network: resnet50\npolicy: {cache: lru}\n",
            "policy: expected a policy's name or string form (lru, 'split-backward + lru'), or a "
            "list of them; got a mapping {'cache': 'lru'}",
        ),
        (  # was "name: expected a chip name string, got list", without the file
            "network: resnet50\nhardware: [a100, v100]\n",
            "hardware: expected one preset's name (dnnmem presets), got list",
        ),
        # Values the sweep refuses name the file too (were "policy: unknown part ...").
        ("network: resnet50\npolicy: lookahed\n", "bad.yaml: policy: unknown part 'lookahed'"),
        ("network: resnet50\ncapacity: []\n", "bad.yaml: capacity: no values given"),
        ("network: resnet50\nthreads: many\n", "bad.yaml: threads: must be an integer >= 1"),
        (  # a YAML sweep takes the grid's bound as a key too
            "network: resnet50\ncapacity: [1MiB, 2MiB, 3MiB]\nmax_points: 2\n",
            "bad.yaml: max_points: the grid has 3 points (network 1 × policy 1 × capacity 3 × "
            "bandwidth 1 × throughput 1), more than max_points=2",
        ),
    ],
)
def test_sweep_spec_errors_name_the_file_and_key(capsys, tmp_path, body, message):
    spec = tmp_path / "bad.yaml"
    spec.write_text(body, encoding="utf-8")
    code, _, err = run(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.parquet"))
    assert code == 2 and str(spec) in err and message in err


def test_thesis_capacity_range_has_489_points():
    from dnnmem.sweep_spec import expand_range

    caps = expand_range("capacity", {"start": "24MiB", "stop": "1000MiB", "step": "2MiB"})
    assert len(caps) == 489 and caps[0] == 24 * MiB and caps[-1] == 1000 * MiB


def test_a_range_too_long_is_refused_before_it_is_built():
    """A mistyped step (1B for 1MiB) asked for 4e10 capacities: the list was built before its
    length was checked, and the process was killed for memory. Under a 1 GiB address-space
    limit, the old order ran out of memory within seconds."""
    code = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))
        from dnnmem.sweep_spec import expand_range
        try:
            expand_range("capacity", {"start": "1MiB", "stop": "40000MiB", "step": "1B"})
        except ValueError as e:
            print(e)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(Path(dnnmem.__file__).parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert (done.returncode, done.stdout.strip()) == (
        0,
        "capacity: range has 41941991425 values; refusing more than 10,000,000 "
        "(is the step '1B' meant?)",
    )


@pytest.mark.parametrize("argv", [["networks"], ["estimate", "--network", "resnet18"]])
def test_output_into_a_closed_pipe_ends_quietly(argv):
    """`dnnmem networks | head -1`: a reader that stops reading is not an error of the
    command (it printed "dnnmem: error: [Errno 32] Broken pipe" and exited 2)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader at all: the first write fails, every time
    env = dict(os.environ, PYTHONPATH=str(Path(dnnmem.__file__).parents[1]))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "dnnmem", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, "")


def test_a_bad_threads_option_is_not_blamed_on_the_file(capsys, tmp_path):
    spec = write_spec(tmp_path, "network: resnet50\n")
    code, _, err = run(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"), "--threads=-2")
    assert (code, err) == (
        2,
        "dnnmem: error: threads: must be an integer >= 1 (or None for all cores), got -2\n",
    )


def test_plot_format_is_checked_before_the_sweep_and_the_file_named(capsys, tmp_path):
    """--plot fig.xyz failed after the sweep with matplotlib's "Format 'xyz' is not supported";
    --plot fig wrote fig.png and said "plot -> fig"."""
    pytest.importorskip("matplotlib")
    spec = write_spec(tmp_path, "network: resnet18\ncapacity: [1MiB, 2MiB]\n")
    out = tmp_path / "o.csv"
    code, _, err = run(capsys, "sweep", str(spec), "-o", str(out), "--plot", "fig.xyz")
    assert code == 2 and err.startswith("dnnmem: error: --plot: 'fig.xyz': no image format 'xyz'")
    assert "pdf, pgf, png" in err and not out.exists()  # nothing was evaluated
    fig = tmp_path / "fig"
    code, stdout, _ = run(capsys, "sweep", str(spec), "-o", str(out), "--plot", str(fig))
    assert code == 0 and f"plot -> {fig}.png\n" in stdout
    assert (tmp_path / "fig.png").is_file() and not fig.exists()

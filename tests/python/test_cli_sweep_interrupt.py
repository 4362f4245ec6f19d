"""``dnnmem sweep`` and Ctrl-C (issue 26, item 7): exit 130 with one line saying how many points
are done and how to resume, no summary of a partial grid, no raw warning; a resumed run says it
resumed, and a rerun of a complete sweep says it evaluated nothing.

Ctrl-C is injected where the real one lands, in the engine's call (``dnnmem.sweep._run``): the
second (network, batch) group raises ``KeyboardInterrupt`` as it starts.
"""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dnnmem
from dnnmem.cli import main

sweep_module = importlib.import_module("dnnmem.sweep")  # dnnmem.sweep is the function

SPEC = "network: resnet18\nbatch: [1, 2]\ncapacity: [0, 1MiB, 4MiB]\n"


def _interrupt_the_second_group(monkeypatch: pytest.MonkeyPatch) -> None:
    real_run = sweep_module._run
    calls: list[int] = []

    def run(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_run(*args, **kwargs)

    monkeypatch.setattr(sweep_module, "_run", run)


def _sweep(capsys: pytest.CaptureFixture[str], spec: Path, out: Path) -> tuple[int, str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning reaching the user would be a raw one
        code = main(["sweep", str(spec), "-o", str(out), "--no-progress", "--threads", "1"])
    o, e = capsys.readouterr()
    return code, o, e


def test_ctrl_c_exits_130_and_a_rerun_resumes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: exit 0, a SweepInterrupted warning with its source line, and "6 design points ->
    ...; fastest design point of each network" printed for the 3 points of a partial grid."""
    pytest.importorskip("pyarrow")
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    out = tmp_path / "r.parquet"
    with monkeypatch.context() as m:
        _interrupt_the_second_group(m)
        code, stdout, stderr = _sweep(capsys, spec, out)
    assert code == 130
    assert stdout == ""  # no summary of a partial grid
    assert stderr == (
        f"dnnmem: interrupted: partial: 3 of 6 points in {out}, rerun the same command to resume\n"
    )
    assert pd.read_parquet(out)["batch"].tolist() == [1, 1, 1]

    code, stdout, stderr = _sweep(capsys, spec, out)  # the same command again
    assert code == 0 and stderr == ""
    lines = stdout.splitlines()
    assert lines[0] == f"resumed: 3 of 6 points were in {out} already; evaluated the other 3"
    assert lines[1].startswith(f"6 design points -> {out}; fastest design point")
    full = pd.read_parquet(out)
    assert len(full) == 6
    api = dnnmem.sweep("resnet18", batch=[1, 2], capacity=[0, "1MiB", "4MiB"], progress=False)
    assert full["time"].tolist() == api["time"].tolist()

    code, stdout, stderr = _sweep(capsys, spec, out)  # and once more: nothing left to do
    assert code == 0 and stderr == ""
    assert stdout.splitlines()[0] == (
        f"all 6 points were in {out} already: none evaluated (delete the file to evaluate "
        f"them again)"
    )


def test_ctrl_c_on_a_csv_sweep_leaves_the_csv_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    out = tmp_path / "r.csv"
    out.write_text("an earlier, complete result\n", encoding="utf-8")
    _interrupt_the_second_group(monkeypatch)
    code, stdout, stderr = _sweep(capsys, spec, out)
    assert code == 130 and stdout == ""
    assert stderr == (
        f"dnnmem: interrupted: 3 of 6 points were done, and are not written: a .csv is written "
        f"once the sweep completes ({out} is as it was). Rerun the same command to start over, "
        f"or write to a .parquet file, whose finished points a rerun keeps\n"
    )
    assert out.read_text(encoding="utf-8") == "an earlier, complete result\n"


def test_ctrl_c_while_the_points_are_prepared(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC, encoding="utf-8")

    def interrupted(*args: Any, **kwargs: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_module, "_prepare", interrupted)
    code, stdout, stderr = _sweep(capsys, spec, tmp_path / "r.csv")
    assert (code, stdout) == (130, "")
    assert stderr == (
        "dnnmem: interrupted: no point was evaluated yet; rerun the same command to start the "
        "sweep\n"
    )


def test_sweep_interrupted_names_out_and_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: "sweep interrupted: returning the 3 of 6 points that finished", no word of out=
    or of resuming."""
    pytest.importorskip("pyarrow")
    _interrupt_the_second_group(monkeypatch)
    out = tmp_path / "r.parquet"
    kw: dict[str, Any] = {"batch": [1, 2], "capacity": [0, "1MiB", "4MiB"], "progress": False}
    with pytest.warns(dnnmem.SweepInterrupted) as w:
        df = dnnmem.sweep("resnet18", out=out, **kw)
    assert str(w[0].message) == (
        f"sweep interrupted: returning the 3 of 6 points that finished; they are in "
        f"out={str(out)!r}: run the same sweep with out={str(out)!r} again to resume (only "
        f"the other 3 points are evaluated)"
    )
    assert df.attrs["interrupted"] and df.attrs["points"] == 6 and df.attrs["reused"] == 0
    monkeypatch.undo()
    _interrupt_the_second_group(monkeypatch)
    with pytest.warns(dnnmem.SweepInterrupted) as w:
        dnnmem.sweep("resnet18", **kw)
    assert str(w[0].message) == (
        "sweep interrupted: returning the 3 of 6 points that finished; to keep finished points "
        "across runs, pass out='results.parquet': a run with the same out= evaluates only the "
        "points not in it yet"
    )
    monkeypatch.undo()
    df = dnnmem.sweep("resnet18", out=out, **kw)
    assert df.attrs["interrupted"] is False
    assert (df.attrs["points"], df.attrs["reused"], df.attrs["evaluated"]) == (6, 3, 3)

"""The notebooks run top to bottom (in their small mode) and are stored without outputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def _notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def test_there_are_notebooks():
    assert "quickstart.ipynb" in [p.name for p in _notebooks()]


@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.name)
def test_stored_without_outputs(path: Path):
    # Outputs in git make every re-run a diff and can leak local paths.
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name}: cell {i} has outputs"
            assert cell.get("execution_count") is None, f"{path.name}: cell {i} has a count"


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("path", _notebooks(), ids=lambda p: p.name)
def test_runs_in_small_mode(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("DNNMEM_NOTEBOOK_SMALL", "1")
    # The kernel's own inline backend turns figures into image/png outputs (no GUI needed).
    monkeypatch.delenv("MPLBACKEND", raising=False)
    # Notebooks that cache results write under the working directory: keep the checkout clean.
    monkeypatch.setenv("DNNMEM_RESULTS_DIR", str(tmp_path / "results"))
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()
    errors = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert not errors, [(o["ename"], o["evalue"]) for o in errors]
    # Every code cell ran, and the figures came out as images.
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code")
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    ]
    if path.name == "quickstart.ipynb":
        # One image per plot cell: the cells leave pyplot's figure to the inline backend (a
        # trailing ``ax.figure`` drew each a second time).
        assert len(images) == 4
    if path.name == "seeds.ipynb":
        # One image per plot cell: its figures are matplotlib Figures, not pyplot's (which the
        # inline backend would draw a second time).
        assert len(images) == 5
        # The nonsensical compositions print their ValueError, which names both parts.
        printed = "".join(
            o.get("text", "")
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.get("outputs", [])
            if o.get("output_type") == "stream"
        )
        assert "cache manager 'vdnn-all' needs a training schedule" in printed
        assert "scheduler 'inference' has none" in printed
    assert os.environ["DNNMEM_NOTEBOOK_SMALL"] == "1"

"""The docs' examples as a reader uses them (issue 26): the process-pool example of
docs/sweeps.md runs when pasted into a script (before: no ``if __name__ == "__main__":``, so each
spawned worker re-ran the sweep and Python stopped it), and the counts the README writes come
from the code.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import dnnmem

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks(page: Path, section: str) -> list[str]:
    """The ```python blocks of one section (## heading) of a Markdown page."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end > 0 else len(text)]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


def test_the_process_pool_example_runs_as_a_script(tmp_path: Path) -> None:
    (example,) = _python_blocks(ROOT / "docs/sweeps.md", "Executors")
    assert 'if __name__ == "__main__":' in example and "ProcessPoolExecutor" in example
    script = tmp_path / "pool_sweep.py"
    script.write_text(example, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    # pandas prints the fastest time per network: both networks, one line each.
    lines = done.stdout.splitlines()
    assert [x.split()[0] for x in lines if x.split()[:1] in (["resnet18"], ["mobilenet_v2"])] == [
        "resnet18",
        "mobilenet_v2",
    ]
    # Each worker imported the script without sweeping (the guard): no second sweep's output.
    assert done.stdout.count("mobilenet_v2") == 1


def test_the_dask_example_has_the_guard() -> None:
    """Dask's LocalCluster starts processes too ("Nanny failed to start" without the guard).
    Running it costs a cluster start-up; the guard and the names it needs are checked here."""
    example = _python_blocks(ROOT / "docs/sweeps.md", "Dask and SLURM")[0]
    assert 'if __name__ == "__main__":' in example
    compile(example, "dask_example.py", "exec")
    for name in ("nets = ", "caps = ", "import dnnmem.cluster"):
        assert name in example


_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}


@pytest.mark.parametrize(
    "page", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("*.md"))]
)
def test_counts_of_built_in_parts_come_from_the_code(page: str) -> None:
    """README said "15 built-in networks" and "six policies" when the code had 33 networks and
    16 cache managers. A count of networks or parts a page writes equals the code's."""
    path = ROOT / page if page == "README.md" else ROOT / "docs" / page
    text = " ".join(path.read_text(encoding="utf-8").split())
    counts = {
        "built-in networks": len(dnnmem.networks()),
        "cache managers": len(dnnmem.parts("cache")),
        "schedulers": len(dnnmem.parts("scheduler")),
        "compute models": len(dnnmem.parts("compute")),
    }
    words = "|".join(_NUMBER_WORDS)
    for what, n in counts.items():
        for m in re.finditer(rf"\b(\d+|{words}) {what}\b", text, flags=re.I):
            said = m.group(1).lower()
            value = int(said) if said.isdigit() else _NUMBER_WORDS[said]
            assert value == n, f"{page}: '{m.group(0)}', but the code has {n} {what}"

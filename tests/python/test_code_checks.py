"""The checks people expect of a Python package: ruff (lint and format) and mypy, clean.

Their configuration is in pyproject.toml ([tool.ruff], [tool.mypy]); the test extra installs
both. Without them (a bare environment) these tests are skipped, with the reason shown.
"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[test]')")
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def test_ruff_lint_is_clean() -> None:
    done = _run("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_format_is_clean() -> None:
    done = _run("ruff", "format", "--no-cache", "--check", ".")
    assert done.returncode == 0, "run `ruff format .`:\n" + done.stdout + done.stderr


def test_mypy_is_clean() -> None:
    # files, strictness and the untyped third-party modules: [tool.mypy] in pyproject.toml
    done = _run("mypy", "--no-incremental", "--cache-dir", "/dev/null")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout


# What a user clones is all they have: no file may point into the team's reading folder or to a
# path of the machine it was written on, or cite a paper by that folder's file names (papers are
# cited by title and section), or send a reader to that folder's contract files (the model is in
# docs/model/, the reference values in tests/python/test_reference_*.py).
# (Spelled in pieces, so that this file does not contain what it forbids.)
_FORBIDDEN = (
    "../" + "shared",
    "/" + "work" + "/",
    *(f"seeds/{n:03d}" for n in range(5)),
    "SPEC" + "-reference.md",
    "SPEC" + ".md",
)
_TEXT = {
    ".py",
    ".pyi",
    ".md",
    ".json",
    ".yaml",
    ".yml",
    ".toml",
    ".cpp",
    ".hpp",
    ".txt",
    ".sh",
    ".cfg",
}


def _tracked_files() -> list[pathlib.Path]:
    done = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [ROOT / line for line in done.stdout.splitlines() if line]


def test_no_file_points_outside_the_repository() -> None:
    hits = []
    for path in _tracked_files():
        if path.suffix not in _TEXT or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{path.relative_to(ROOT)}: {bad}" for bad in _FORBIDDEN if bad in text]
    assert not hits, "\n".join(hits)

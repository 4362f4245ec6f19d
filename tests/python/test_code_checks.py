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

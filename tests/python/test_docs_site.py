"""The documentation site: `mkdocs build --strict` passes (a broken link, a public name missing
from the API reference or without a docstring fails it), and the hooks that make its pages."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import subprocess
import sys
import textwrap
import types

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
NEEDED = ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "griffe")
missing = [
    m
    for m in NEEDED
    if importlib.util.find_spec(m.split(".")[0]) is None or importlib.util.find_spec(m) is None
]
pytestmark = pytest.mark.skipif(
    bool(missing),
    reason=f"the docs extra is not installed "
    f"(missing {', '.join(missing)}): pip install -e '.[docs]'",
)


def _load(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_strict_build_has_every_chapter(site) -> None:
    for page in ROOT.joinpath("docs").rglob("*.md"):
        rel = page.relative_to(ROOT / "docs").with_suffix("")
        html = (
            site / rel / "index.html" if rel.name != "index" else site / rel.parent / "index.html"
        )
        assert html.is_file(), rel


def test_api_reference_renders_the_public_api(site) -> None:
    text = (site / "api" / "index.html").read_text(encoding="utf-8")
    ids = set(re.findall(r'id="(dnnmem\.[\w.]+)"', text))
    # The names `from .x import x` hides behind a submodule are there under their real path.
    assert {
        "dnnmem.estimate.estimate",
        "dnnmem.sweep.sweep",
        "dnnmem.Network",
        "dnnmem.Network.layers",
        "dnnmem.zoo.network",
        "dnnmem.parse_bytes",
    } <= ids
    assert ":func:" not in text and ":class:" not in text  # Sphinx roles became code
    plots = (site / "api" / "plots" / "index.html").read_text(encoding="utf-8")
    assert "<table>" in plots and "=====" not in plots  # the reST table of dnnmem.plots


def test_home_gallery_and_notebooks(site) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "dnnmem estimates what the on-chip memory" in home
    gallery = (site / "gallery" / "index.html").read_text(encoding="utf-8")
    for img in ROOT.joinpath("docs", "images").rglob("*.png"):
        assert img.relative_to(ROOT / "docs").as_posix() in gallery, img
    for nb in ROOT.joinpath("notebooks").glob("*.ipynb"):
        page = (site / "notebooks" / nb.stem / "index.html").read_text(encoding="utf-8")
        text = re.sub(r"<[^>]+>", "", page)  # the code is highlighted: one span per token
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        first_code = next(c for c in cells if c["cell_type"] == "code")
        assert "".join(first_code["source"]).splitlines()[0] in text, nb.name


def test_readme_links_fitted_to_the_site() -> None:
    hooks = _load("mkdocs_hooks")
    text = (
        "See [the model](docs/model/index.md), [sweeps](docs/sweeps.md#format), "
        "[`demo.yaml`](sweeps/demo.yaml), [site](https://example.org) and "
        "![fig](docs/images/a.png)."
    )
    assert hooks.readme_as_index(text) == (
        "See [the model](model/index.md), [sweeps](sweeps.md#format), `demo.yaml`, "
        "[site](https://example.org) and ![fig](images/a.png)."
    )


def test_nav_picks_up_new_pages(tmp_path) -> None:
    hooks = _load("mkdocs_hooks")
    docs = tmp_path / "docs"
    for page in (
        "sweeps.md",
        "networks.md",
        "new-chapter.md",
        "model/index.md",
        "model/timeline.md",
        "model/appendix.md",
        "model/schedule.md",
        "seeds/paper.md",
        "api/index.md",
        "deep/er/page.md",
    ):
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        (docs / page).write_text("# t\n")
    # The model's index links its pages in reading order: the navigation follows it.
    (docs / "model" / "index.md").write_text("[2](schedule.md) then [4](timeline.md#x)\n")
    config = types.SimpleNamespace(docs_dir=str(docs), nav=None)
    nav = hooks.on_config(config).nav
    sections = {k: v for entry in nav for k, v in entry.items()}
    assert sections["The model"] == [
        "model/index.md",
        "model/schedule.md",
        "model/timeline.md",
        "model/appendix.md",
    ]
    assert sections["User guide"] == ["networks.md", "sweeps.md", "new-chapter.md"]
    assert sections["Reproductions"] == ["seeds/paper.md"]
    assert sections["API reference"] == ["api/index.md"]
    assert sections["More"] == ["deep/er/page.md"]


def test_api_check_flags_missing_pages_and_docstrings(tmp_path, monkeypatch) -> None:
    hooks = _load("mkdocs_hooks")
    pkg = tmp_path / "src" / "fakepkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        textwrap.dedent('''
        """A package."""
        from .core import core
        __all__ = ["core", "Thing", "bare", "LIMIT", "UNDOCUMENTED"]

        #: The limit, documented the Sphinx way.
        LIMIT = 3
        UNDOCUMENTED = 4

        class Thing:
            """A thing."""
            def method(self):
                pass

        def bare():
            pass
        ''')
    )
    (pkg / "core.py").write_text('def core():\n    """The core function."""\n')
    api = tmp_path / "api"
    api.mkdir()
    (api / "index.md").write_text("::: fakepkg\n\n::: fakepkg.core.core\n")
    monkeypatch.setattr(hooks, "API_MODULES", ["fakepkg"])
    problems = hooks.api_problems(api, tmp_path / "src")
    assert sorted(problems) == [
        "fakepkg.Thing.method has no docstring",
        "fakepkg.UNDOCUMENTED has no docstring",
        "fakepkg.bare has no docstring",
    ]
    (api / "index.md").write_text("::: fakepkg\n")  # `core` hides behind the submodule
    assert "fakepkg.core (fakepkg.core.core) is on no page of docs/api/" in hooks.api_problems(
        api, tmp_path / "src"
    )


def test_docstring_rewrites() -> None:
    roles = _load("griffe_sphinx_roles")
    assert (
        roles.roles_to_code("see :func:`dnnmem.sweep` and :class:`~dnnmem.Network`")
        == "see `dnnmem.sweep` and `Network`"
    )
    table = "a\n\n=== =====\nx   y\n=== =====\n1   two\n3   a|b\n=== =====\n\nend"
    assert (
        roles.simple_tables_to_markdown(table)
        == "a\n\n| x | y |\n|---|---|\n| 1 | two |\n| 3 | a\\|b |\n\nend"
    )
    lines = ["x = 1", "#: first", "#: second", "LIMIT = 3"]
    assert roles.comment_docstring(lines, 4) == "first second"
    assert roles.comment_docstring(lines, 1) is None


def test_notebook_page_keeps_the_title_first() -> None:
    hooks = _load("mkdocs_hooks")
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["# Quick\n", "Intro."]},
            {"cell_type": "code", "source": ["import dnnmem\n", "dnnmem.networks()"]},
            {"cell_type": "code", "source": ["  "]},
        ]
    }
    page = hooks.notebook_as_markdown(nb, "notebooks/q.ipynb")
    assert page.startswith('# Quick\n\n!!! note "Notebook `notebooks/q.ipynb`"')
    assert page.endswith("Intro.\n\n```python\nimport dnnmem\ndnnmem.networks()\n```\n")

"""MkDocs hooks for the documentation site (mkdocs.yml): pages made from the repository.

- ``index.md``: README.md, its ``docs/`` links rewritten for the site, links to other files of
  the repository turned into plain code (the site holds only docs/).
- ``gallery.md``: every figure under ``docs/images/``, captioned with the alt text of the page
  that shows it and linked to that page.
- ``notebooks/<name>.md``: each notebook of ``notebooks/`` (stored without outputs): its
  Markdown cells as they are, its code cells as Python blocks.
- The navigation, from the files present: known chapters in reading order, then any other
  page, so a new page (``docs/model/…``, ``docs/seeds/…``) appears without editing this file.
- A warning (an error under ``mkdocs build --strict``) for every public object of the API
  reference without a docstring.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

log = logging.getLogger("mkdocs.hooks.dnnmem")

ROOT = Path(__file__).resolve().parents[1]

#: Chapters in reading order (a missing one is skipped); pages not named here come after.
GUIDE = [
    "network-format.md",
    "networks.md",
    "hardware.md",
    "estimator.md",
    "policies.md",
    "sweeps.md",
    "analysis.md",
    "optimality.md",
    "importers.md",
    "performance.md",
]
REPRODUCTIONS = ["thesis-figures.md"]
API = ["api/index.md", "api/plots.md", "api/importers.md", "api/cluster.md"]
#: Modules of the API reference whose public names must have docstrings.
API_MODULES = ["dnnmem", "dnnmem.plots", "dnnmem.importers", "dnnmem.cluster"]

_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*([^)\s]+)\s*\)")


def _title(md: str, fallback: str) -> str:
    m = re.search(r"^#\s+(.+)$", md, re.M)
    return m.group(1).strip() if m else fallback


def _pages(docs: Path, sub: str = "") -> list[str]:
    base = docs / sub if sub else docs
    if not base.is_dir():
        return []
    return sorted(p.relative_to(docs).as_posix() for p in base.glob("*.md"))


def index_order(docs: Path, section: str, pages: list[str]) -> list[str]:
    """A section's pages: its ``index.md`` first, then the pages in the order the index first
    links them, then any other page alphabetically."""
    index = f"{section}/index.md"
    order = [index] if index in pages else []
    if order:
        text = (docs / index).read_text(encoding="utf-8")
        for _, _, target in _LINK.findall(text):
            page = posixpath.normpath(posixpath.join(section, target.split("#")[0]))
            if page in pages and page not in order:
                order.append(page)
    return order + [p for p in pages if p not in order]


def readme_as_index(text: str) -> str:
    """README.md with its links fitted to the site (``docs/x.md`` → ``x.md``)."""

    def fix(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if re.match(r"^[a-z]+://|^#|^mailto:", target):
            return m.group(0)
        if target.startswith("docs/"):
            return f"{bang}[{label}]({target[len('docs/') :]})"
        return label if label.startswith("`") else f"`{label}`"  # a file outside the site

    return _LINK.sub(fix, text)


def notebook_as_markdown(nb: dict[str, Any], path: str) -> str:
    """A notebook as a page: Markdown cells as they are, code cells as Python blocks."""
    note = (
        f'!!! note "Notebook `{path}`"\n    Stored without outputs; the code is shown as '
        f'written. Run it with `jupyter lab {path}` after `pip install ".[notebook]"`.\n'
    )
    out: list[str] = []
    for cell in nb.get("cells", []):
        src = "".join(cell.get("source", []))
        if cell.get("cell_type") == "markdown":
            out.append(src)
        elif cell.get("cell_type") == "code" and src.strip():
            out.append(f"```python\n{src}\n```")
    # The note goes under the notebook's title (its first heading), else on top.
    first = out[0].split("\n", 1) if out and out[0].startswith("# ") else None
    if first:
        out[0:1] = [first[0], note] + ([first[1].strip("\n")] if len(first) > 1 else [])
    else:
        out.insert(0, note)
    return "\n\n".join(out) + "\n"


def gallery(docs: Path) -> str:
    """Every image under docs/images/, with the caption and page of its first use."""
    used: dict[str, tuple[str, str, str]] = {}  # image path (from docs/) -> alt, page, title
    for page in sorted(docs.rglob("*.md")):
        rel = page.relative_to(docs).as_posix()
        text = page.read_text(encoding="utf-8")
        for alt, target in _IMAGE.findall(text):
            src = posixpath.normpath(posixpath.join(posixpath.dirname(rel), target))
            used.setdefault(src, (alt, rel, _title(text, rel)))
    lines = [
        "# Gallery",
        "",
        "Every figure of this documentation, each linked to the page that explains it. "
        "They are drawn by `dnnmem.plots` (and `sweeps/thesis/` for the thesis's "
        "figures) from the data the pages describe.",
        "",
    ]
    images = sorted(
        p.relative_to(docs).as_posix()
        for p in (docs / "images").rglob("*")
        if p.suffix.lower() in (".png", ".svg", ".jpg", ".jpeg")
    )
    for sub in sorted({posixpath.dirname(i) for i in images}):
        if sub != "images":
            lines += [f"## {posixpath.basename(sub).capitalize()}", ""]
        for img in (i for i in images if posixpath.dirname(i) == sub):
            alt, page, title = used.get(img, (posixpath.basename(img), "", ""))
            lines += [f"![{alt}]({img})", ""]
            lines += [f"*{alt}* — from [{title}]({page})." if page else f"*{alt}*", ""]
    return "\n".join(lines)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    docs = Path(config.docs_dir)
    known = set(GUIDE + REPRODUCTIONS + API)
    nav: list[Any] = [{"Home": "index.md"}]
    model = _pages(docs, "model")
    if model:
        nav.append({"The model": index_order(docs, "model", model)})
    guide = [p for p in GUIDE if (docs / p).is_file()]
    others = [p for p in _pages(docs) if p not in known]
    nav.append({"User guide": guide + others})
    repro = [p for p in REPRODUCTIONS if (docs / p).is_file()]
    repro += index_order(docs, "seeds", _pages(docs, "seeds"))
    nav.append({"Reproductions": repro})
    nav.append({"Gallery": "gallery.md"})
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if notebooks:
        nav.append({"Notebooks": [f"notebooks/{p.stem}.md" for p in notebooks]})
    nav.append({"API reference": [p for p in API if (docs / p).is_file()]})
    placed = set(model) | set(guide) | set(others) | set(repro) | set(API)
    rest = [p.relative_to(docs).as_posix() for p in sorted(docs.rglob("*.md"))]
    rest = [p for p in rest if p not in placed and p != "index.md"]
    if rest:
        nav.append({"More": rest})
    config.nav = nav
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    docs = Path(config.docs_dir)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    files.append(File.generated(config, "index.md", content=readme_as_index(readme)))
    files.append(File.generated(config, "gallery.md", content=gallery(docs)))
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = notebook_as_markdown(
            json.loads(nb.read_text(encoding="utf-8")), f"notebooks/{nb.name}"
        )
        files.append(File.generated(config, f"notebooks/{nb.stem}.md", content=text))
    return files


def _directives(api_dir: Path) -> list[tuple[str, list[str] | None]]:
    """The ``::: identifier`` blocks of the API pages, with their ``members: [...]`` if any."""
    out: list[tuple[str, list[str] | None]] = []
    for page in sorted(api_dir.glob("*.md")):
        for block in re.split(r"^(?=::: )", page.read_text(encoding="utf-8"), flags=re.M):
            m = re.match(r"::: ([\w.]+)", block)
            if m:
                members = re.search(r"^\s+members:\s*\[([^\]]*)\]", block, re.M)
                names = [n.strip() for n in members.group(1).split(",")] if members else None
                out.append((m.group(1), names))
    return out


def api_problems(api_dir: Path, search_path: Path) -> list[str]:
    """What the API reference lacks: a public name of :data:`API_MODULES` (its ``__all__``)
    rendered on no page, or rendered without a docstring (it, or a public method of it)."""
    import griffe

    loader = griffe.GriffeLoader(
        search_paths=[str(search_path)], extensions=griffe.load_extensions(_extension())
    )
    for name in API_MODULES:
        loader.load(name)
    loader.resolve_aliases(implicit=False, external=False)
    col = loader.modules_collection

    def real_path(module: griffe.Module, name: str) -> str:
        # `from .estimate import estimate` leaves Griffe a submodule under the name; the import
        # table says what the name really is.
        return module.imports.get(name, f"{module.path}.{name}")

    def final(path: str) -> Any:
        try:
            obj = col[path]
        except (KeyError, ValueError):
            return None
        return obj.final_target if obj.is_alias else obj

    rendered: set[str] = set()
    for ident, members in _directives(api_dir):
        obj = final(ident)
        if obj is None:
            continue  # mkdocstrings reports it
        if not obj.is_module:
            rendered.add(obj.path)
            continue
        names = members if members is not None else list(obj.exports or [])
        for n in names:
            target = final(f"{obj.path}.{n}")
            if target is not None and (members is not None or not target.is_module):
                rendered.add(target.path)

    problems = []
    for name in API_MODULES:
        module = col[name]
        for export in module.exports or []:
            export = export if isinstance(export, str) else export.name
            path = real_path(module, export)
            target = final(path)
            if target is None or target.is_module or export == "__version__":
                continue  # submodules (dnnmem.plots) have pages of their own
            if target.path not in rendered:
                problems.append(f"{name}.{export} ({target.path}) is on no page of docs/api/")
    for path in sorted(rendered):
        obj = final(path)
        if not obj.docstring:
            problems.append(f"{path} has no docstring")
        if obj.is_class:
            for mname, member in obj.members.items():
                m = member.final_target if member.is_alias else member
                if not mname.startswith("_") and not m.is_attribute and not m.docstring:
                    problems.append(f"{path}.{mname} has no docstring")
    return problems


def _extension() -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "griffe_sphinx_roles", ROOT / "scripts" / "griffe_sphinx_roles.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SphinxRoles()


def on_pre_build(config: MkDocsConfig) -> None:
    for problem in api_problems(Path(config.docs_dir) / "api", ROOT / "python"):
        log.warning("API reference: %s", problem)


def on_post_build(config: MkDocsConfig) -> None:
    # So that a plain `mkdocs build` says where the site is.
    log.info("documentation site written to %s", os.path.relpath(config.site_dir))

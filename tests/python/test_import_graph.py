"""The package's import graph has no circle, and the core imports no particular part.

Every ``import`` and ``from … import`` of ``python/dnnmem`` counts, wherever it stands (module
level, inside a function, under ``if TYPE_CHECKING``): each is a tie a reader has to follow. An
import of ``a.b.c`` from outside the package ``a.b`` also ties the importer to ``a/b/__init__.py``,
which Python runs first. The root ``dnnmem/__init__.py`` is left out: it is the package's face,
which names the API for the type checker and imports each module on first use.

The graph is read from the source with :mod:`ast`, nothing is imported.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2] / "python" / "dnnmem"


def _modules(root: pathlib.Path) -> dict[str, tuple[pathlib.Path, bool]]:
    """Dotted name -> (file, is a package), ``.py`` files and the compiled modules' stubs."""
    out = {}
    for path in sorted([*root.rglob("*.py"), *root.rglob("*.pyi")]):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, package)
    return out


def import_graph(root: pathlib.Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (see the module docstring)."""
    modules = _modules(root)
    top = root.name

    def owner(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, (path, package) in modules.items():
        here = name if package else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                    base = ".".join(anchor + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{base}.{alias.name}"  # a submodule, or a name in `base`
                    targets.add((full if full in modules else owner(base)) or "")
            elif isinstance(node, ast.Import):
                targets.update(owner(a.name) or "" for a in node.names)
        targets = {t for t in targets if t.split(".")[0] == top and t != name}
        for t in list(targets):  # the enclosing packages Python runs first
            parent = t.rpartition(".")[0]
            while "." in parent:
                if not (name == parent or name.startswith(parent + ".")):
                    targets.add(parent)
                parent = parent.rpartition(".")[0]
        graph[name] = targets
    face = top  # the root package: see the module docstring
    return {m: {t for t in ts if t != face} for m, ts in graph.items() if m != face}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _ties(graph: dict[str, set[str]], component: list[str]) -> str:
    return "\n".join(f"  {a} -> {b}" for a in component for b in sorted(graph[a]) if b in component)


def test_the_checker_finds_a_circle(tmp_path: pathlib.Path) -> None:
    # The check itself, on a small package: a lazy import inside a function and one under
    # TYPE_CHECKING close a circle; an import of a subpackage's module ties to its __init__.
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a\n")
    (pkg / "a.py").write_text("from .b import x\n")
    (pkg / "b.py").write_text("def f():\n    from .c import y\n")
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n"
    )
    (pkg / "d.py").write_text("from .sub.leaf import z\n")
    (pkg / "sub" / "__init__.py").write_text("from ..e import w\n")
    (pkg / "sub" / "leaf.py").write_text("from . import other\n")
    (pkg / "sub" / "other.py").write_text("")
    (pkg / "e.py").write_text("import pkg.d\n")
    graph = import_graph(pkg)
    assert graph["pkg.b"] == {"pkg.c"} and graph["pkg.c"] == {"pkg.a"}
    assert graph["pkg.d"] == {"pkg.sub.leaf", "pkg.sub"}
    assert graph["pkg.sub.leaf"] == {"pkg.sub.other"}  # inside its package: no tie to sub
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.e", "pkg.sub"]]


def test_the_package_has_no_import_circle() -> None:
    graph = import_graph()
    assert "dnnmem.estimate" in graph and "dnnmem.zoo.resnet" in graph  # the graph was read
    found = circles(graph)
    assert not found, "import circles:\n" + "\n\n".join(_ties(graph, c) for c in found)


def test_the_core_imports_no_particular_part() -> None:
    # A part's Python side (a link's tables, an energy model's columns, a paper's report) is
    # reached through dnnmem.registry: the core names none of them (STYLE, the last section).
    graph = import_graph()
    core = ("network", "hardware", "part", "policy", "estimate", "sweep")
    parts = {"dnnmem.compression", "dnnmem.cdma", "dnnmem.energy"}
    for name in core:
        assert not graph[f"dnnmem.{name}"] & parts, (name, graph[f"dnnmem.{name}"] & parts)
    assert {"dnnmem.compression", "dnnmem.energy"} <= graph["dnnmem.registry"]

"""A Griffe extension for the API reference: reStructuredText idioms in docstrings to Markdown.

The docstrings are NumPy style, written for help() and Sphinx alike: they name other objects as
``:func:`estimate``` or ``:class:`~dnnmem.Network``` and a few hold a reST "simple table"
(columns under ``====`` rules). Markdown would show both verbatim; here the roles become code
spans (```estimate```, ```Network```) and the tables Markdown tables. Double-backtick literals
are already Markdown code spans.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")
_RULE = re.compile(r"^\s*=+(?: +=+)+\s*$")  # a simple table's rule: runs of "=" with spaces


def roles_to_code(text: str) -> str:
    """``:func:`a.b``` → ```a.b```; ``:func:`~a.b``` → ```b```."""
    return _ROLE.sub(
        lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text
    )


def simple_tables_to_markdown(text: str) -> str:
    """reST simple tables (rule, header, rule, rows, rule) → Markdown tables."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not (_RULE.match(lines[i]) and i + 2 < len(lines) and _RULE.match(lines[i + 2])):
            out.append(lines[i])
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"=+", lines[i])]
        end = next((j for j in range(i + 3, len(lines)) if _RULE.match(lines[j])), None)
        if end is None:
            out.append(lines[i])
            i += 1
            continue

        def cells(line: str) -> list[str]:
            bounds = [*starts[1:], None]
            return [line[a:b].strip().replace("|", "\\|") for a, b in zip(starts, bounds)]

        out.append("| " + " | ".join(cells(lines[i + 1])) + " |")
        out.append("|" + "---|" * len(starts))
        out += ["| " + " | ".join(cells(row)) + " |" for row in lines[i + 3 : end] if row.strip()]
        i = end + 1
    return "\n".join(out)


def comment_docstring(lines: list[str], lineno: int) -> str | None:
    """The ``#:`` comment lines just above line ``lineno`` (1-based), Sphinx's way to document
    a constant, as one text; None without any."""
    found: list[str] = []
    i = lineno - 2
    while i >= 0 and lines[i].lstrip().startswith("#:"):
        found.insert(0, lines[i].lstrip()[2:].strip())
        i -= 1
    return " ".join(found) or None


class SphinxRoles(griffe.Extension):
    """Rewrite roles and simple tables in every docstring as it is loaded; give constants
    documented by ``#:`` comments that text as their docstring."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        # Each object as it is created (its docstring is final by then), modules included.
        if obj.docstring is None and obj.is_attribute and obj.lineno and obj.filepath:
            path = obj.filepath if isinstance(obj.filepath, Path) else None
            text = path and comment_docstring(
                path.read_text(encoding="utf-8").splitlines(), obj.lineno
            )
            if text:
                obj.docstring = griffe.Docstring(text, lineno=obj.lineno, parent=obj)
        if obj.docstring is not None:
            obj.docstring.value = simple_tables_to_markdown(roles_to_code(obj.docstring.value))

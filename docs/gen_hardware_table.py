"""Regenerate the preset tables in docs/hardware.md from python/dnnmem/data/hardware.json.

    python docs/gen_hardware_table.py           # rewrite docs/hardware.md between the markers
    python docs/gen_hardware_table.py --check   # exit 1 if docs/hardware.md is out of date

Only the text between the BEGIN/END markers is generated; the prose around it is hand-written.
Values are printed as the unit strings of the JSON file, so the doc shows exactly what the data
says. tests/python/test_presets.py runs the check, so a doc that drifts from the data fails CI.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "python" / "dnnmem" / "data" / "hardware.json"
DOC = ROOT / "docs" / "hardware.md"
BEGIN = "<!-- BEGIN GENERATED: docs/gen_hardware_table.py -->"
END = "<!-- END GENERATED -->"


def _cell(entry: dict, field: str, value: object) -> str:
    if value is None:
        return "unpublished" if field == "capacity" else "—"
    mark = " ≈" if field in entry.get("approximate", {}) else ""
    return f"{value}{mark}".replace("|", "\\|")


def render(chips: dict) -> str:
    """The generated part of docs/hardware.md (markers excluded)."""
    lines = [
        "| key | chip | vendor | year | tags | on-chip capacity | off-chip bandwidth "
        "| dense peak by precision | off-chip memory |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, e in chips.items():
        peaks = ", ".join(
            f"{p}{'*' if p == e['default_precision'] else ''} {_cell(e, 'throughput.' + p, v)}"
            for p, v in e["throughput"].items()
        )
        cap = _cell(e, "capacity", e["capacity"])
        mem = _cell(e, "memory", e["memory"])
        if e.get("memory_type"):
            mem = f"{mem} {e['memory_type']}" if e["memory"] else e["memory_type"]
        lines.append(
            f"| `{key}` | {e['name']} | {e['vendor']} | {_cell(e, 'year', e['year'])} "
            f"| {', '.join(e['tags'])} | {cap} ({e['capacity_kind']}) "
            f"| {_cell(e, 'bandwidth', e['bandwidth'])} | {peaks} | {mem} |"
        )
    lines += [
        "",
        "`*` marks the chip's default precision; `≈` marks a figure listed under "
        "`approximate` (see its note below).",
        "",
    ]
    for key, e in chips.items():
        lines += [f"### `{key}`: {e['name']}", "", e["notes"], ""]
        for field, why in e.get("approximate", {}).items():
            lines.append(f"- approximate `{field}`: {why}")
        for field, source in e["sources"].items():
            lines.append(f"- `{field}`: {source}")
        extra = e.get("extra", {})
        if extra:
            lines.append("- extra figures: " + ", ".join(f"`{k}` = {v}" for k, v in extra.items()))
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def updated(doc: str, chips: dict) -> str:
    """``doc`` with the text between the markers replaced by :func:`render`."""
    head, sep, rest = doc.partition(BEGIN)
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise ValueError(f"{DOC}: missing {BEGIN!r} or {END!r}")
    return f"{head}{BEGIN}\n{render(chips)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the doc is out of date")
    args = parser.parse_args(argv)
    chips = json.loads(DATA.read_text(encoding="utf-8"))["chips"]
    doc = DOC.read_text(encoding="utf-8")
    new = updated(doc, chips)
    if args.check:
        if new != doc:
            print(f"{DOC} is out of date; run python docs/gen_hardware_table.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

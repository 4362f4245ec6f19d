"""One part of a policy: a name from one of the core's four registries and its options.

A part is written ``name`` or ``name(key=value, ...)`` (``"ratio(activation=2, cap=200GB/s)"``);
its options are checked against what the part declares in the C++ registry
(``cpp/src/registry.cpp``) and converted to base units (bytes, bytes/s, FLOP/s). A
:class:`dnnmem.Policy` (:mod:`dnnmem.policy`) composes four of them; a :class:`dnnmem.Network`
takes its scheduler as one, a :class:`dnnmem.Hardware` its compute model.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, Union

from . import _core
from .units import parse_bandwidth, parse_bytes, parse_throughput

__all__ = ["Part", "PartLike", "parts"]

#: The four kinds of part, in the order a policy's string form lists them.
KINDS = ("scheduler", "cache", "link", "compute")
#: What each kind's name is in messages.
KIND_LABELS = {
    "scheduler": "scheduler",
    "cache": "cache manager",
    "link": "link",
    "compute": "compute model",
}
DEFAULTS = {"scheduler": "default", "cache": "lookahead", "link": "raw", "compute": "peak"}

_UNIT_PARSERS = {"bytes": parse_bytes, "bytes/s": parse_bandwidth, "FLOP/s": parse_throughput}


@lru_cache(maxsize=1)
def _registry() -> dict[str, dict[str, Any]]:
    """name -> the core's description of that part (kind, description, options)."""
    return {p["name"]: p for p in _core.parts()}


def parts(kind: str | None = None) -> dict[str, dict[str, Any]]:
    """Every registered part (or those of one ``kind``): name -> ``kind``, ``description`` and
    ``options`` (each with ``name``, ``type``, ``unit``, ``description``, ``default`` and its
    range or ``choices``)."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind: must be one of {', '.join(KINDS)}, got {kind!r}")
    return {n: p for n, p in _registry().items() if kind is None or p["kind"] == kind}


# Prefixes to write an option's value with its unit, largest first (binary ones for bytes).
_PREFIXES = {
    "bytes": [
        (2.0**40, "TiB"),
        (2.0**30, "GiB"),
        (2.0**20, "MiB"),
        (2.0**10, "KiB"),
        (1e12, "TB"),
        (1e9, "GB"),
        (1e6, "MB"),
        (1e3, "kB"),
    ],
    "bytes/s": [(1e12, "TB/s"), (1e9, "GB/s"), (1e6, "MB/s"), (1e3, "kB/s")],
    "FLOP/s": [(1e15, "PFLOPS"), (1e12, "TFLOPS"), (1e9, "GFLOPS"), (1e6, "MFLOPS")],
}


def _format_value(v: float | str, unit: str = "") -> str:
    """An option's value as the string form writes it: with its unit when that reads back to
    exactly the same number (``200GB/s``), else as a plain number."""
    if isinstance(v, str):
        return v
    parse = _UNIT_PARSERS.get(unit)
    for scale, suffix in _PREFIXES.get(unit, []):
        short = f"{v / scale:.6g}"
        if (
            v >= scale
            and "e" not in short
            and parse is not None
            and float(parse(short + suffix)) == v
        ):
            return short + suffix
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _unit_of(kind: str, name: str, option: str) -> str:
    for o in _registry().get(name, {}).get("options", []):
        if o["name"] == option:
            return str(o["unit"])
    return ""


@dataclasses.dataclass(frozen=True)
class Part:
    """One part of a policy: its kind, its name and the options given (base units)."""

    kind: str
    name: str
    options: tuple[tuple[str, float | str], ...] = ()

    @property
    def option_dict(self) -> dict[str, float | str]:
        """The options given, as a dict."""
        return dict(self.options)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        shown = (
            f"{k}={_format_value(v, _unit_of(self.kind, self.name, k))}" for k, v in self.options
        )
        return f"{self.name}({', '.join(shown)})"


def _option_value(part: str, spec: Mapping[str, Any], value: Any) -> float | str:
    """One option's value checked for type and converted to base units."""
    where = f"{part}: option {spec['name']!r}"
    if spec["type"] == "choice":
        if not isinstance(value, str) or value not in spec["choices"]:
            raise ValueError(f"{where} must be one of {', '.join(spec['choices'])}, got {value!r}")
        return value
    if isinstance(value, bool):
        raise ValueError(f"{where} must be a number, got {value!r}")
    if isinstance(value, str):
        parse = _UNIT_PARSERS.get(spec["unit"])
        try:
            number = float(value)  # a bare number: base units
        except ValueError:
            if parse is None:
                raise ValueError(f"{where} must be a number, got {value!r}") from None
            try:
                number = float(parse(value))
            except ValueError as e:
                raise ValueError(
                    f"{where} must be a number in {spec['unit']} or a value with "
                    f"a unit, got {value!r}: {str(e).split(': ', 1)[-1]}"
                ) from None
    elif isinstance(value, (int, float)) or hasattr(value, "__float__"):
        number = float(value)
    else:
        raise ValueError(f"{where} must be a number, got {type(value).__name__}")
    if not math.isfinite(number):
        raise ValueError(f"{where} must be finite, got {value!r}")
    # The core's checks, here, where the policy is read: before a part's Python side uses the
    # value (zvc(target=2) reached the sparsity calibration, whose error named no option).
    if spec["type"] == "integer" and not number.is_integer():
        raise ValueError(f"{where} must be a whole number, got {_plain(number)}")
    low, high = float(spec.get("min", -math.inf)), float(spec.get("max", math.inf))
    exclusive = bool(spec.get("min_exclusive", False))
    if (number <= low if exclusive else number < low) or number > high:
        bounds = f"{'>' if exclusive else '>='} {_plain(low)}"
        if math.isfinite(high):
            bounds += f" and <= {_plain(high)}"
        raise ValueError(f"{where} must be {bounds}, got {_plain(number)}")
    return number


def _plain(v: float) -> str:
    """A number as the core's messages write it: whole numbers below 10^15 in full, anything
    else in the shortest form that reads back to it (``0.1``, ``1e+18``)."""
    return str(int(v)) if v.is_integer() and abs(v) < 1e15 else repr(v)


def _make_part(kind: str | None, name: str, options: Mapping[str, Any]) -> Part:
    """A Part of `kind` (None: whatever kind `name` is), its options checked against the
    registry: names, types and ranges (the core checks them again when it prepares it)."""
    reg = _registry()
    if name not in reg:
        label = KIND_LABELS[kind] if kind else "part"
        names = [n for n, p in reg.items() if kind is None or p["kind"] == kind]
        raise ValueError(
            f"policy: unknown {label} {name!r}{_hint(name, names)} ({_valid_names(kind)})"
        )
    entry = reg[name]
    if kind is not None and entry["kind"] != kind:
        raise ValueError(
            f"policy: {name!r} is a {KIND_LABELS[entry['kind']]}, not a {KIND_LABELS[kind]}"
        )
    label = f"{KIND_LABELS[entry['kind']]} {name!r}"
    specs = {o["name"]: o for o in entry["options"]}
    out = []
    for key, value in options.items():
        if key not in specs:
            valid = ", ".join(specs) or "none"
            hint = _hint(key, specs) if isinstance(key, str) else ""
            raise ValueError(f"{label}: unknown option {key!r}{hint} (valid: {valid})")
        out.append((key, _option_value(label, specs[key], value)))
    order = list(specs)
    out.sort(key=lambda kv: order.index(kv[0]))  # one canonical order: the declaration's
    return Part(entry["kind"], name, tuple(out))


def _hint(word: str, known: Iterable[str]) -> str:
    """``"; did you mean lookahead?"`` for a mistyped name, ``"; options go in parentheses:
    split-backward(order=alg1)"`` for a known name written with ``:`` or ``=``, else ``""``."""
    known = list(known)
    for sep in (":", "="):
        head, found, rest = word.partition(sep)
        if found and head in known:
            return (
                f"; options go in parentheses: {head}({rest if sep == ':' else 'key=value, ...'})"
            )
    close = difflib.get_close_matches(word.lower(), known, n=3, cutoff=0.6)
    if not close:
        return ""
    return f"; did you mean {' or '.join(close)}?"


def _valid_names(kind: str | None = None) -> str:
    """The registered names, by kind, for messages."""
    out = []
    for k in KINDS if kind is None else (kind,):
        names = [n for n, p in _registry().items() if p["kind"] == k]
        out.append(f"{KIND_LABELS[k]}s: {', '.join(names)}")
    return "; ".join(out)


def _split_top(text: str, sep: str) -> list[str]:
    """Split at `sep` outside parentheses."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"policy: unbalanced ')' in {text!r}")
        elif ch == sep and depth == 0:
            out.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise ValueError(f"policy: unbalanced '(' in {text!r}")
    out.append(text[start:])
    return out


def _parse_part(text: str, kind: str | None = None) -> Part:
    """``name`` or ``name(k=v, ...)``."""
    text = text.strip()
    m = re.fullmatch(r"([^()\s]+)\s*(?:\((.*)\))?", text, flags=re.S)
    if not m:
        raise ValueError(
            f"policy: cannot read part {text!r} (expected name or "
            f"name(key=value, ...); {_valid_names(kind)})"
        )
    options: dict[str, str] = {}
    if m.group(2) is not None and m.group(2).strip():
        for item in _split_top(m.group(2), ","):
            if "=" not in item:
                raise ValueError(f"policy: option {item.strip()!r} of {m.group(1)!r} has no '='")
            k, v = (s.strip() for s in item.split("=", 1))
            if k in options:
                raise ValueError(f"policy: option {k!r} of {m.group(1)!r} given twice")
            options[k] = v
    return _make_part(kind, m.group(1), options)


PartLike = Union[str, Part, "tuple[str, Mapping[str, Any]]", None]


def _as_part(kind: str, value: PartLike) -> Part | None:
    if value is None:
        return None
    if isinstance(value, Part):
        if value.kind != kind:
            raise ValueError(
                f"policy: {value.name!r} is a {KIND_LABELS[value.kind]}, not a {KIND_LABELS[kind]}"
            )
        return value
    if isinstance(value, str):
        return _parse_part(value, kind)
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], Mapping):
        return _make_part(kind, value[0], value[1])
    raise TypeError(
        f"policy: {kind} must be a name, 'name(options)', (name, dict) or a Part, "
        f"got {type(value).__name__}"
    )


#: The fusion levels (docs/model/fusion.md): an option of every scheduler, written on its own
#: in a policy's string form (``"lookahead + fusion=pointwise"``).
FUSION_LEVELS = ("none", "pointwise", "accelerator")


def _fusion_level(value: Any, where: str = "fusion") -> str:
    """A fusion level, checked."""
    if not isinstance(value, str) or value not in FUSION_LEVELS:
        raise ValueError(
            f"{where}: must be one of {', '.join(FUSION_LEVELS)}, got {value!r} "
            "(docs/model/fusion.md)"
        )
    return value


def _with_fusion(part: Part, level: str | None) -> Part:
    """The scheduler `part` with its option ``fusion`` set to `level` (None: kept as given);
    ``none``, the default, is left out so that one policy has one spelling."""
    options = part.option_dict
    if level is not None:
        options["fusion"] = level
    if options.get("fusion") == "none":
        del options["fusion"]
    if options == part.option_dict:
        return part
    return _make_part("scheduler", part.name, options)

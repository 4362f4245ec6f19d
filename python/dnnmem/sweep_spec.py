"""Sweep specifications in YAML, for ``dnnmem sweep SPEC.yaml``.

A specification names the grid ``dnnmem.sweep`` evaluates (every key: docs/sweeps.md, "The YAML
format")::

    network: [resnet50, mobilenet_v2]   # built-in names or JSON files (relative to the YAML)
    batch: 32                           # a value or a list
    hardware: rtx2080ti                 # optional preset: defaults for the three below
    precision: fp32                     # with hardware: its peak and the element size
    capacity: {start: 24MiB, stop: 1000MiB, step: 2MiB}   # a range (stop included) ...
    bandwidth: [616GB/s, 1555GB/s]      # ... or a list, or one value
    throughput: 13.45TFLOPS
    memory_type: hbm2e                  # optional: the energy / area / cost model's technology
    node: 7nm                           # (default: the preset's, else gddr6, 12 nm, 1.545 GHz)
    clock: 1.41GHz
    policy: [lookahead, "split-backward + lru + ratio(activation=2)"]   # policies (docs/policies.md)
    fusion: [none, pointwise]           # optional: each policy at each level (docs/model/fusion.md)
    threads: 2                          # optional
    ops_per_mac: 2                      # optional

Every value accepts the unit strings of :mod:`dnnmem.units` (or plain numbers in base units).
Unknown keys are errors naming the file and the key.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .hardware import FIELD_PARSERS

__all__ = ["read_sweep_spec", "expand_range"]

#: The keys that set the technology of the energy, area and cost model (Hardware's fields).
_TECHNOLOGY = ("memory_type", "node", "clock")

_KEYS = {
    "network",
    "batch",
    "hardware",
    "capacity",
    "bandwidth",
    "throughput",
    "policy",
    "fusion",
    "threads",
    "ops_per_mac",
    "max_points",
    "precision",
    *_TECHNOLOGY,
}


def expand_range(key: str, spec: dict[str, Any]) -> list[float]:
    """The values of ``{start, stop, step}`` (``stop`` included when it is on the grid).

    Values are parsed with the unit parser of ``key`` (capacity, bandwidth, throughput) or
    taken as integers (batch). Exact integer arithmetic, so 24MiB to 1000MiB in 2MiB steps
    gives exactly 489 capacities.
    """
    missing = {"start", "stop", "step"} - set(spec)
    extra = set(spec) - {"start", "stop", "step"}
    if missing or extra:
        raise ValueError(
            f"{key}: a range needs exactly start, stop and step "
            f"(missing {sorted(missing)}, unknown {sorted(extra)})"
        )
    parse = FIELD_PARSERS.get(key)
    start, stop, step = (
        parse(spec[k]) if parse is not None else _int(f"{key}: range {k}", spec[k])
        for k in ("start", "stop", "step")
    )
    if not step > 0:
        raise ValueError(f"{key}: range step must be positive, got {spec['step']!r}")
    if stop < start:
        raise ValueError(f"{key}: range stop {spec['stop']!r} is below start {spec['start']!r}")
    count = int((stop - start) // step) + 1
    if count > MAX_RANGE_VALUES:  # before the list is built: a mistyped step must not fill memory
        raise ValueError(
            f"{key}: range has {count} values; refusing more than {MAX_RANGE_VALUES:,} "
            f"(is the step {spec['step']!r} meant?)"
        )
    return [start + i * step for i in range(count)]


#: The most values one range may expand to.
MAX_RANGE_VALUES = 10_000_000


def _int(where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{where}: expected an integer, got {v!r}")
    return v


#: The keys whose value may be a range {start, stop, step}.
_RANGES = ("batch", "capacity", "bandwidth", "throughput")


def _values(key: str, value: Any) -> Any:
    if isinstance(value, dict) and key in _RANGES:
        return expand_range(key, value)
    if isinstance(value, dict) and key == "policy":
        raise ValueError(
            "policy: expected a policy's name or string form (lru, "
            f"'split-backward + lru'), or a list of them; got a mapping {value!r}"
        )
    return value  # a network's document (a mapping) included


class _DuplicateKey(ValueError):
    """A key given twice in one mapping of a YAML file."""


#: The deepest nesting of lists and mappings a sweep specification may have (that of the
#: network format, whose documents a sweep may hold inline).
_MAX_DEPTH = 64


def _depth(node: Any) -> int:
    """Levels of lists and mappings in a composed YAML node (iteratively: no recursion)."""
    import yaml

    deepest, stack = 0, [(node, 1)]
    while stack:
        n, d = stack.pop()
        if isinstance(n, yaml.SequenceNode):
            stack.extend((c, d + 1) for c in n.value)
        elif isinstance(n, yaml.MappingNode):
            stack.extend((c, d + 1) for kv in n.value for c in kv)
        else:
            continue
        deepest = max(deepest, d)
    return deepest


def _load_yaml(path: Path) -> Any:
    """The document of a YAML file, with errors that name the file: a key given twice in one
    mapping (YAML keeps the last silently), nesting deeper than :data:`_MAX_DEPTH`, text that
    is neither UTF-8 nor UTF-16 / UTF-32 with a byte-order mark (read from the bytes, as YAML
    allows: PowerShell's ``>`` writes UTF-16)."""
    import yaml

    class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    def mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict:
        lines: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            key = loader.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in lines:
                raise _DuplicateKey(
                    f"key {key!r} is given twice (lines {lines[key]} and {line}); YAML would "
                    f"keep the last silently: remove one"
                )
            lines[key] = line
        return loader.construct_mapping(node)

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    too_deep = (
        f"{path}: nested more than {_MAX_DEPTH} levels deep (lists and mappings inside each "
        f"other); a sweep's values need two at most: a list of values, or a range "
        f"{{start, stop, step}}"
    )
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ValueError(f"{path}: cannot read the file: {e.strerror}") from None
    loader = Loader(data)
    try:
        node = loader.get_single_node()
        if node is not None and _depth(node) > _MAX_DEPTH:
            raise ValueError(too_deep)
        doc = None if node is None else loader.construct_document(node)
    except _DuplicateKey as e:
        raise ValueError(f"{path}: {e}") from None
    except yaml.reader.ReaderError as e:
        raise ValueError(
            f"{path}: not a text file in UTF-8 (or UTF-16 / UTF-32 with a byte-order mark): "
            f"{e.reason} at byte {e.position}"
        ) from None
    except yaml.YAMLError as e:
        if "maximum nesting depth" in str(e):  # libyaml's own limit, met while parsing
            raise ValueError(too_deep) from None
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    except RecursionError:  # the pure-Python parser (no libyaml), before the check above
        raise ValueError(too_deep) from None
    finally:
        loader.dispose()
    if isinstance(doc, str) and data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise ValueError(
            f"{path}: the file starts with a UTF-16 byte-order mark ({data[:2]!r}) but its "
            f"text does not read as UTF-16 mappings; save it as UTF-8"
        )
    return doc


def _did_you_mean(key: str) -> str:
    """``" (did you mean 'capacity'?)"`` for a mistyped key, else ``""``."""
    import difflib

    close = difflib.get_close_matches(key.lower(), sorted(_KEYS), n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def read_sweep_spec(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a YAML sweep specification into keyword arguments of :func:`dnnmem.sweep`.

    Network entries that are files are resolved relative to the YAML file. A ``hardware``
    preset (and ``precision``) becomes the ``hardware=`` argument: it fills in capacity,
    bandwidth and throughput not given, and its precision sets the networks' element size.

    Raises
    ------
    ValueError
        Naming the file and the key for anything malformed.
    """
    path = Path(path)
    doc = _load_yaml(path)
    if not isinstance(doc, dict):
        raise ValueError(
            f"{path}: a sweep specification is a mapping of keys to values, "
            f"got {type(doc).__name__}"
        )
    unknown = sorted(set(doc) - _KEYS, key=str)
    if unknown:
        hints = [f"{k!r}{_did_you_mean(k)}" if isinstance(k, str) else repr(k) for k in unknown]
        raise ValueError(
            f"{path}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(hints)} "
            f"(known: {', '.join(sorted(_KEYS))})"
        )
    if "network" not in doc:
        raise ValueError(f"{path}: key 'network' is missing")
    try:
        args = {
            k: _values(k, v)
            for k, v in doc.items()
            if k not in ("hardware", "precision", *_TECHNOLOGY)
        }
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    nets = args["network"] if isinstance(args["network"], list) else [args["network"]]
    resolved = []
    for n in nets:
        candidate = path.parent / str(n)
        looks_like_a_file = isinstance(n, str) and (n.lower().endswith(".json") or "/" in n)
        if looks_like_a_file and not candidate.is_file() and not os.path.isfile(n):
            raise ValueError(
                f"{path}: network: no file {n!r}, neither next to the YAML file "
                f"({candidate}) nor in the working directory"
            )
        resolved.append(str(candidate) if isinstance(n, str) and candidate.is_file() else n)
    args["network"] = resolved if isinstance(args["network"], list) else resolved[0]
    if "precision" in doc and "hardware" not in doc:
        raise ValueError(
            f"{path}: precision: needs a hardware preset (key 'hardware'), whose "
            f"peak at that precision it selects"
        )
    technology = {k: doc[k] for k in _TECHNOLOGY if k in doc}
    for k, v in technology.items():
        if isinstance(v, (list, dict)):
            raise ValueError(
                f"{path}: {k}: expected one value (a sweep has one technology), got "
                f"{type(v).__name__}; for several, one file each"
            )
    if technology:
        from .hardware import Hardware

        try:  # checked here, so that the message names the key, with or without a preset
            alone = Hardware(**technology)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        if "hardware" not in doc:
            args["hardware"] = alone
    if "hardware" in doc:
        from .presets import hardware as preset

        options = {"precision": doc["precision"]} if "precision" in doc else {}
        options.update(technology)
        if "capacity" in doc:  # the preset's is not used, and may be unpublished (b200)
            options["capacity"] = 0
        if not isinstance(doc["hardware"], str):
            raise ValueError(
                f"{path}: hardware: expected one preset's name (dnnmem presets), got "
                f"{type(doc['hardware']).__name__}; for several chips, one file each"
            )
        try:
            hw = preset(doc["hardware"], **options)
        except ValueError as e:
            raise ValueError(f"{path}: hardware: {e}") from None
        # The preset gives the defaults of capacity, bandwidth and throughput, and its precision
        # the element size of the networks (dnnmem.sweep's hardware=).
        args["hardware"] = hw
    return args

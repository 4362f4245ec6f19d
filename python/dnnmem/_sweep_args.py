"""The arguments of :func:`dnnmem.sweep`: each axis as a list of validated values, the policies and
networks of a sweep resolved once each, and the points as a DataFrame (the Cartesian grid or an
explicit list). Split from ``sweep.py``, which evaluates the points and assembles the rows."""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import _core
from ._lazy import LazyModule
from .estimate import NetworkLike, _check_has_steps, _network
from .hardware import Hardware
from .network import Network
from .policy import Policy
from .policy import policy as as_policy
from .sweep_spec import expand_range

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

#: The columns that name a point (the key of ``out=`` resume).
INPUT_COLUMNS = ["network", "batch", "policy", "capacity", "bandwidth", "throughput"]


# -- arguments ----------------------------------------------------------------------------------


def _values(name: str, value: Any) -> list:
    """A scalar or a sequence of values of one axis, as a non-empty list."""
    if isinstance(value, (str, bytes, int, float, np.number)) or value is None:
        return [value]
    if isinstance(value, Hardware):
        raise TypeError(
            f"{name}: expected a value or a list of values, got a Hardware (pass it as hardware=)"
        )
    if isinstance(value, Mapping) and name in ("capacity", "bandwidth", "throughput", "batch"):
        return list(expand_range(name, dict(value)))  # {start, stop, step}, as in a YAML sweep
    try:
        out = list(value)
    except TypeError:
        raise TypeError(
            f"{name}: expected a value or a list of values, got {type(value).__name__}"
        ) from None
    if not out:
        raise ValueError(f"{name}: no values given")
    if name in ("capacity", "bandwidth", "throughput", "batch", "policy"):
        for v in out:
            if isinstance(v, (list, tuple, set, frozenset, Mapping)) or (
                isinstance(v, np.ndarray) and v.ndim > 0
            ):
                inner = "a range" if isinstance(v, Mapping) else f"a {type(v).__name__}"
                example = _EXAMPLES[name]
                alone = "" if name == "policy" else ", or one range {start, stop, step} alone"
                raise ValueError(
                    f"{name}: expected a value or a list of values, got {inner} inside the "
                    f"list: {_short_repr(value)} (one flat list, e.g. {example}{alone})"
                )
    return out


#: An axis's list of values, in messages.
_EXAMPLES = {
    "capacity": "[1MiB, 2MiB]",
    "bandwidth": "[616GB/s, 900GB/s]",
    "throughput": "[13.45TFLOPS, 20TFLOPS]",
    "batch": "[16, 32]",
    "policy": "[lookahead, lru]",
}


def _short_repr(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters (a value can be huge)."""
    import reprlib

    r = reprlib.Repr()
    r.maxstring = r.maxother = limit
    text = r.repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_field(name: str, values: Iterable[Any]) -> list | np.ndarray:
    """Parse and validate capacity / bandwidth / throughput values the way Hardware does (unit
    strings, rounding to whole bytes/s and FLOP/s), so a row equals estimate() exactly."""
    values = list(values)
    if (
        name == "capacity"
        and values
        and all(
            isinstance(v, (int, np.integer))
            and not isinstance(v, (bool, np.bool_))
            and 0 <= v <= 2**62
            for v in values
        )
    ):
        # Whole bytes, valid: exact (through float64, a capacity above 2^53 would round).
        return np.array([int(v) for v in values], dtype=np.int64)
    if values and all(
        isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
        for v in values
    ):
        # Plain numbers, all valid: Hardware's checks and rounding (half to even), vectorised.
        # Any invalid value takes the path below, for Hardware's own message.
        a = np.asarray(values, dtype=np.float64)
        valid = np.isfinite(a) & (a >= (0 if name == "capacity" else 1)) & (a <= 2.0**62)
        if name == "capacity":
            valid &= (a == 0) | (np.rint(a) >= 1)  # parse_bytes refuses a size that rounds to 0
        if valid.all():
            return np.rint(a).astype(np.int64) if name == "capacity" else np.rint(a)
    cache: dict[Any, Any] = {}
    out = []
    for v in values:
        key = (type(v), v) if not (isinstance(v, float) and math.isnan(v)) else ("nan",)
        if key not in cache:
            if isinstance(v, np.generic):
                v = v.item()
            cache[key] = getattr(Hardware(**{name: v}), name)
        out.append(cache[key])
    return out


class _Policies:
    """The policies of a sweep by their string form (the ``policy`` column), each parsed once,
    its compute model the hardware's when it names none."""

    def __init__(self, hardware_compute: str) -> None:
        self.compute = hardware_compute
        self.by_label: dict[str, Policy] = {}
        self._seen: dict[Any, str] = {}

    def label(self, p: Any) -> str:
        key = p if isinstance(p, (str, Policy)) else id(p)
        if key not in self._seen:
            composition = as_policy(p).with_compute(self.compute)
            label = str(composition)
            self.by_label[label] = composition
            self._seen[key] = label
        return self._seen[key]


def _check_threads(threads: int | None) -> int:
    """`threads` as the engine takes it (0: its default), capped with a warning at
    ``_core.max_sweep_threads()`` (4 per processor): more only add overhead, and thousands can
    exhaust the process's memory. (The engine also never starts more threads than points.)"""
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise ValueError(
            f"threads: must be an integer >= 1 (or None for all cores), got {threads!r}"
        )
    limit = int(_core.max_sweep_threads())
    if threads > limit:
        warnings.warn(
            f"threads: {int(threads)} requested, using {limit} (at most 4 per processor)",
            RuntimeWarning,
            stacklevel=3,
        )
        return limit
    return int(threads)


class _Networks:
    """The networks of a sweep by label, each resolved once per batch."""

    def __init__(self, network: Any, bytes_per_element: int | None = None) -> None:
        # Names, files and documents are loaded at this element size (None: 4 bytes).
        self.bytes_per_element = bytes_per_element
        self.sources: dict[str, NetworkLike] = {}
        # The batches of Network objects given under one name (None: a name, file or dict):
        # [resnet50 at N=8, resnet50 at N=16] is one network at two batches, not one.
        self.batches: dict[str, list[int | None]] = {}
        self._cache: dict[tuple[str, int | None], Network] = {}
        items = (
            []
            if network is None
            else (list(network) if isinstance(network, (list, tuple)) else [network])
        )
        for item in items:
            net = _network(item, None, bytes_per_element)  # a Network as given, at its batch
            label = net.name
            if label in self.sources and not self._same(label, net):
                raise ValueError(f"network: two different networks are both named {label!r}")
            if label in self.sources and self._cache[(label, None)].scheduler != net.scheduler:
                raise ValueError(
                    f"network: {label!r} is given with two schedulers "
                    f"({self._cache[(label, None)].scheduler!r} and {net.scheduler!r}); give it "
                    f"once and name the schedulers or fusion levels in the policies"
                )
            own = self.batches.setdefault(label, [])
            b = item.batch if isinstance(item, Network) else None
            if b not in own:
                own.append(b)
            if label not in self.sources:
                self.sources[label] = item
                self._cache[(label, None)] = net

    def _same(self, label: str, net: Network) -> bool:
        return self._cache[(label, None)].to_dict() == net.to_dict()

    def get(self, label: Any, batch: int | None) -> Network:
        """The network called `label` (or, if none is, the network `label` names) at `batch`."""
        if not isinstance(label, str):
            raise TypeError(
                f"points: column 'network' holds names (str), got "
                f"{type(label).__name__}; pass networks as network="
            )
        if label not in self.sources:
            net = _network(label, None, self.bytes_per_element)
            self.sources[label] = label
            self._cache[(label, None)] = net
        key = (label, batch)
        base = self._cache[(label, None)]
        _check_has_steps(base)
        if key not in self._cache:
            self._cache[key] = _network(base, batch)
        return self._cache[key]


#: The most points a grid of :func:`dnnmem.sweep` may have unless ``max_points=`` says more: a
#: point takes about 1.5 kB of memory while the sweep runs (the grid, the engine's columns and
#: the DataFrame assembled from them; measured 1.45-1.75 kB) and 340 bytes as a row of the
#: DataFrame returned (47 columns), so a million points peak near 1.5 GB, what a laptop holds.
MAX_POINTS = 1_000_000
#: Bytes of memory a point of a sweep takes at the peak (for the message of the limit).
_PEAK_BYTES_PER_POINT = 1500


def _check_grid_size(
    networks: _Networks,
    axes: Mapping[str, list],
    max_points: int | None,
) -> None:
    """Refuse a grid of more than ``max_points`` points before it is built, naming its size,
    its axes and the two ways on."""
    if max_points is None:
        return
    others = ("policy", "capacity", "bandwidth", "throughput")
    sizes: dict[str, int]
    if axes["batch"] == [None]:  # each network at its own batch(es)
        own = sum(len(networks.batches.get(label, [None])) for label in networks.sources)
        sizes = {"network" if own == len(networks.sources) else "network and batch": own}
    else:
        sizes = {"network": len(networks.sources), "batch": len(axes["batch"])}
    sizes.update({k: len(axes[k]) for k in others})
    total = math.prod(sizes.values())
    if total <= max_points:
        return
    # The axis to split over: the one with the fewest values whose sweeps each fit, else the
    # longest.
    fits = [k for k, n in sizes.items() if n > 1 and total // n <= max_points]
    split = min(fits, key=lambda k: sizes[k]) if fits else max(sizes, key=lambda k: sizes[k])
    factors = " × ".join(f"{k} {n:,}" for k, n in sizes.items())
    raise _too_many_points(
        f"the grid has {total:,} points ({factors}), more than max_points={max_points:,}",
        total,
        "about",
        f"e.g. one per {split} value; ",
        f"pass max_points={total} if the memory is there (in a YAML sweep, max_points: {total})",
    )


def _too_many_points(what: str, points: int, bound: str, example: str, raise_it: str) -> ValueError:
    """The error of a sweep beyond ``max_points``: ``what``, the memory ``points`` need
    (``bound``: "about", "at least"), and the two ways on (split, ``example``; or ``raise_it``)."""
    from .units import format_bytes

    return ValueError(
        f"max_points: {what}; at about {format_bytes(_PEAK_BYTES_PER_POINT, False)} each while "
        f"the sweep runs it would need {bound} "
        f"{format_bytes(points * _PEAK_BYTES_PER_POINT, False)} of memory. Split it into sweeps "
        f"of fewer points ({example}they can share one out= file), or {raise_it}"
    )


def _check_range_length(axes: Mapping[str, Any], max_points: int | None) -> None:
    """Refuse a Python ``range`` on an axis with more values than ``max_points`` before it is
    listed (``capacity=range(2**30)`` would fill the memory before the grid is counted): its
    values are distinct, so the grid has at least that many points."""
    for name, value in axes.items():
        if max_points is not None and isinstance(value, range) and len(value) > max_points:
            raise _too_many_points(
                f"{name}={value!r} alone has {len(value):,} values, so the grid has more than "
                f"max_points={max_points:,} points",
                len(value),
                "at least",
                "",
                "raise max_points= if the memory is there",
            )


def _explicit(points: Any, defaults: dict[str, list], given: Iterable[str] = ()) -> pd.DataFrame:
    """Explicit points: a DataFrame or a list of dicts with some of INPUT_COLUMNS; a missing
    column takes the single value of the keyword argument of that name. A keyword of
    ``given`` with several values is an error: points are not crossed with it."""
    if isinstance(points, pd.DataFrame):
        df = points.copy()
    else:
        try:
            rows = list(points)
        except TypeError:
            raise TypeError(
                f"points: expected a DataFrame or a list of dicts, got {type(points).__name__}"
            ) from None
        if not all(isinstance(r, dict) for r in rows):
            raise TypeError("points: expected a DataFrame or a list of dicts")
        df = pd.DataFrame(rows)
    unknown = [c for c in df.columns if c not in INPUT_COLUMNS]
    if unknown:
        raise ValueError(f"points: unknown column(s) {unknown} (valid: {', '.join(INPUT_COLUMNS)})")
    if df.empty:
        raise ValueError("points: no points given")
    for c in INPUT_COLUMNS:
        if c not in df.columns:
            df[c] = None
        df[c] = df[c].astype(object)
        missing = df[c].isna().to_numpy()
        if c in given and len(defaults[c]) > 1 and not missing.any():
            raise ValueError(
                f"points: {c}= has {len(defaults[c])} values, and every point has its own "
                f"{c}; points are not crossed with {c}= (add a point per value, or give one)"
            )
        if missing.any():  # a point without this field takes the keyword argument's value
            vals = defaults[c]
            if len(vals) != 1:
                raise ValueError(
                    f"points: no {c!r} for {int(missing.sum())} point(s), and "
                    f"{c}= has {len(vals)} values (give one, or fill the column)"
                )
            df.loc[missing, c] = vals[0]
    return df[INPUT_COLUMNS].reset_index(drop=True)

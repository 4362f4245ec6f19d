"""One look for every figure: the package's plots, the seed scripts' (``sweeps/``) and the
notebooks'.

The rules, and the helper that keeps each:

- **Legends outside the data**, right of the axes or below them, never over a bar or a line:
  :func:`legend` (one axes, or one legend for a whole figure of panels).
- **One colour per policy everywhere**: :data:`SERIES_COLORS` maps the names a reader sees
  (``lookahead``, ``vDNN``, ``MBS2``, ``OnSRAM-Static``, …) to fixed colours; :func:`styles` gives
  the series of one figure their colours, the fixed ones first, then distinct colours, line
  styles and markers for the rest (enough for 40 series: ``onsram spm_size`` draws 12 networks).
  A value from a paper is the colour of what it is compared with, hatched (bars) or dashed
  (lines).
- **Numbers in numeric order**: :func:`size_key` and :func:`sort_sizes` order ``"24MiB"`` before
  ``"128MiB"``; :func:`log_ticks` labels a log axis with the values drawn (no ``2.4×10⁰`` minor
  labels).
- **Averages where the paper shows them**: :func:`bars` appends a geometric-mean or mean group.
- **Names a reader knows**: :data:`NETWORK_NAMES` (``resnet50`` → ``ResNet-50``) and
  :func:`display_name`; tick labels wrapped or slanted so that none overlaps (:func:`tick_labels`).
- **One file-name pattern**: :func:`figure_name` (``<seed>-<figure>-<what>``, e.g.
  ``cdma-fig13-performance``).

matplotlib is imported only inside the functions that draw.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._lazy import LazyModule
from .._optional import require
from ..units import format_bytes, parse_bytes

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
else:
    np = LazyModule("numpy")
    pd = LazyModule("pandas")

__all__ = [
    "NETWORK_NAMES",
    "SERIES_COLORS",
    "SEEDS",
    "TOPICS",
    "display_name",
    "series_style",
    "styles",
    "figure",
    "legend",
    "bars",
    "lines",
    "tick_labels",
    "overlapping",
    "shown_ticklabels",
    "tidy",
    "log_ticks",
    "size_key",
    "sort_sizes",
    "size_label",
    "geomean",
    "figure_name",
]

# -- names -----------------------------------------------------------------------------------
#: The zoo's networks as their papers write them.
NETWORK_NAMES: dict[str, str] = {
    "alexnet": "AlexNet",
    "bert_base": "BERT-base",
    "bert_large": "BERT-large",
    "bert_tiny": "BERT-tiny",
    "densenet121": "DenseNet-121",
    "dlrm": "DLRM",
    "efficientnet_b0": "EfficientNet-B0",
    "faster_rcnn": "Faster R-CNN",
    "gnmt": "GNMT",
    "gnmt_thesis": "GNMT (thesis)",
    "googlenet": "GoogLeNet",
    "gpt2": "GPT-2",
    "inception_v3": "Inception-v3",
    "inception_v4": "Inception-v4",
    "mha_block": "Multi-Head Attn",
    "mobilenet_v1": "MobileNetV1",
    "mobilenet_v2": "MobileNetV2",
    "ncf": "NCF",
    "nin": "NiN",
    "overfeat": "OverFeat",
    "ptb_lstm": "PTB LSTM",
    "resnet101": "ResNet-101",
    "resnet18": "ResNet-18",
    "resnet50": "ResNet-50",
    "resnext50_32x4d": "ResNeXt-50",
    "resnext50c32": "ResNeXt-50 (Keras)",
    "squeezenet": "SqueezeNet",
    "ssd300": "SSD300",
    "t5_large": "T5-large",
    "t5_small": "T5-small",
    "transformer": "Transformer",
    "transformer_thesis": "Transformer (thesis)",
    "vgg16": "VGG-16",
    "vit_b16": "ViT-B/16",
    "yolov3": "YOLOv3",
}


def display_name(name: Any) -> str:
    """The name a reader knows: a zoo network's paper name, anything else as it is."""
    text = str(name)
    return NETWORK_NAMES.get(text, text)


# -- colours ---------------------------------------------------------------------------------
_GRAY, _LIGHT_GRAY = "#7f7f7f", "#c7c7c7"
#: A fixed colour per policy, configuration or data source, by the name a figure gives it. The
#: names that appear in one figure have distinct colours (a test checks every seed figure); a
#: name keeps its colour in every figure.
SERIES_COLORS: dict[str, str] = {
    # Baselines and bounds (every seed).
    "none": _GRAY,
    "Baseline": _GRAY,
    "No SPM Mgmt": _GRAY,
    "ArchOpt": _GRAY,
    "Baseline (no double buffering)": "#4d4d4d",
    "sequential (dX then dW)": _GRAY,
    "∞ SPM": "#222222",
    "oracle": "#222222",
    "dY oracle": "#222222",
    "paper": _LIGHT_GRAY,
    "average": "#555555",
    "geomean": "#555555",
    "dnnmem": "#1f77b4",
    # The thesis's cache manager and the classic ones.
    "lookahead": "#1f77b4",
    "LRU": "#d62728",
    "FIFO": "#9467bd",
    # OnSRAM.
    "1-Step": "#ff7f0e",
    "OnSRAM-Static": "#2ca02c",
    "OnSRAM-Static, thesis order": "#98df8a",
    "OnSRAM-Static, split": "#17becf",
    "Eager W/B": "#8c564b",
    "Eager Spec": "#e377c2",
    "Eager W/B, 64 entries": "#c49c94",
    "Eager Spec, 64 entries": "#f7b6d2",
    # cDMA: vDNN's offload and the links that compress it.
    "vDNN": "#bcbd22",
    "RLE": "#ff7f0e",
    "ZVC": "#2ca02c",
    "zlib": "#9467bd",
    "ZVC, bandwidth-aware": "#98df8a",
    "vDNN + ZVC": "#dbdb8d",
    "lookahead + ZVC": "#aec7e8",
    # Mini-batch serialization.
    "IL": "#ff7f0e",
    "MBS-FS": "#8c564b",
    "MBS1": "#9467bd",
    "MBS2": "#2ca02c",
    "MBS2 strict": "#2ca02c",
    "MBS2, exact grouping": "#98df8a",
    "MBS2, training footprint": "#17becf",
    "MBS1, fit trusted": "#c5b0d5",
    "MBS2, fit trusted": "#00441b",
    "MBS2 + lookahead": "#08306b",
    # Interleaved gradient order: the ladder's rungs.
    "Interleaving": "#ff7f0e",
    "+ Rearrangement (Alg. 1)": "#9467bd",
    "+ Rearrangement (ideal)": "#2ca02c",
    "+ Partitioning": "#d62728",
    "+ Partitioning (joint)": "#17becf",
    "KNN": "#1f77b4",
    "rule": "#ff7f0e",
}

# The colours of series without a fixed one, in order (tab10 without its gray), then again with
# other line styles and markers.
_CYCLE = [
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#bcbd22",
    "#17becf",
    "#393b79",
    "#ad494a",
    "#637939",
]
_LINESTYLES = ["-", "--", "-.", ":"]
_MARKERS = ["o", "s", "^", "D", "v", "P"]
#: Hatch of a bar that holds a paper's value.
PAPER_HATCH = "///"


def _paper_base(label: str) -> str | None:
    """``"∞ SPM"`` for ``"paper ∞ SPM"`` / ``"paper: ∞ SPM"``; ``""`` for ``"paper"``; None if
    the label is not a paper's value."""
    m = re.match(r"^paper\b[:,]?\s*(.*)$", label)
    return None if m is None else m.group(1)


_HATCHES = [None, "..", "xx", "\\\\"]


def series_style(label: str, index: int = 0) -> dict[str, Any]:
    """The style of one series: ``color``, ``linestyle``, ``marker``, ``hatch``.

    A name of :data:`SERIES_COLORS` has its fixed colour, a solid line and no hatch;
    ``"paper <name>"`` has the colour of ``<name>``, a dashed line and a hatch (``"paper"``
    alone: light gray); any other label takes entry ``index`` of the cycle: 12 colours, then the
    same colours with another line style, marker and hatch (bars), and so on.
    """
    base = _paper_base(label)
    paper = base is not None
    key = base if base else label
    if paper and not base:
        color, turn = SERIES_COLORS["paper"], 0
    elif key in SERIES_COLORS:
        color, turn = SERIES_COLORS[key], 0
    else:
        color, turn = _CYCLE[index % len(_CYCLE)], index // len(_CYCLE)
    if paper:  # light with a hatch in the colour of what it is compared with
        return {"color": color, "fill": _light(color), "linestyle": "--", "marker": "s",
                "hatch": PAPER_HATCH}  # fmt: skip
    return {
        "color": color,
        "linestyle": _LINESTYLES[turn % len(_LINESTYLES)],
        "marker": _MARKERS[turn % len(_MARKERS)],
        "hatch": _HATCHES[turn % len(_HATCHES)],
    }


def _light(color: str, share: float = 0.55) -> str:
    """``color`` mixed with ``share`` of white."""
    rgb = [int(color[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * share):02x}" for c in rgb)


def _fixed(label: str) -> bool:
    base = _paper_base(label)
    return (base if base else label) in SERIES_COLORS or base == ""


def styles(labels: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """The styles of one figure's series, by label (:func:`series_style`): names of
    :data:`SERIES_COLORS` (and a paper's values of them) keep their colour; the others take, in
    the order given, the cycle's entries whose look no fixed name of the figure has, so that no
    two series of the figure look alike."""
    names = list(dict.fromkeys(str(x) for x in labels))
    out = {n: series_style(n) for n in names if _fixed(n)}

    def look(s: dict[str, Any]) -> tuple[Any, ...]:
        return (s["color"], s["linestyle"], s["hatch"])

    taken = {look(s) for s in out.values()}
    index = 0
    for name in names:
        if name in out:
            continue
        while True:
            s = series_style(name, index)
            index += 1
            if look(s) not in taken:
                break
        out[name] = s
        taken.add(look(s))
    return {n: out[n] for n in names}


# -- figures and legends ---------------------------------------------------------------------
def figure(
    nrows: int = 1,
    ncols: int = 1,
    *,
    panel: tuple[float, float] = (5.0, 3.4),
    sharex: bool = False,
    sharey: bool = False,
    title: str | None = None,
) -> tuple[Figure, Any]:
    """A new figure of ``nrows`` × ``ncols`` panels of size ``panel`` (inches), in
    constrained layout (room for the legends outside the axes and for every label). No
    pyplot: nothing to close. Returns the Figure and a 2-D array of Axes."""
    require("matplotlib", "drawing plots")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(panel[0] * ncols, panel[1] * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=sharex, sharey=sharey)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig, axes


def _entries(target: Any) -> tuple[list[Any], list[str]]:
    """The legend entries of an Axes, or of every Axes of a Figure, one per label."""
    from matplotlib.figure import FigureBase

    axes: Any = target.axes if isinstance(target, FigureBase) else [target]
    seen: dict[str, Any] = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab and not lab.startswith("_") and lab not in seen:
                seen[lab] = h
    return list(seen.values()), list(seen)


def legend(
    target: Axes | Figure,
    handles: list[Any] | None = None,
    labels: list[str] | None = None,
    *,
    below: bool = False,
    title: str | None = None,
    ncol: int | None = None,
) -> Legend | None:
    """A legend outside the data: right of the axes (or of all panels, for a Figure), or below
    them (``below=True``). ``handles`` / ``labels`` default to the entries of the axes (of all
    axes of a Figure, one per label). Returns the Legend, or None when nothing has a label."""
    if handles is None or labels is None:
        handles, labels = _entries(target)
    if not handles:
        return None
    if ncol is None:
        ncol = min(len(handles), 4) if below else 1 + (len(handles) - 1) // 18
    kw: dict[str, Any] = {"fontsize": 8, "title": title, "title_fontsize": 8, "ncol": ncol}
    from matplotlib.figure import FigureBase

    if not isinstance(target, FigureBase):  # an Axes
        if below:
            return target.legend(
                handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.18), **kw
            )
        return target.legend(
            handles, labels, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kw
        )
    if below:
        return target.legend(handles, labels, loc="outside lower center", **kw)
    return target.legend(handles, labels, loc="outside right upper", **kw)


def tick_labels(
    ax: Axes, labels: Sequence[Any], *, axis: str = "x", width: int = 16, positions: Any = None
) -> None:
    """Category labels a reader knows: :func:`display_name`, wrapped at ``width`` characters,
    8 pt. :func:`tidy` slants them where they would overlap."""
    names = [
        "\n".join(w for line in display_name(x).split("\n") for w in textwrap.wrap(line, width))
        for x in labels
    ]
    pos = list(range(len(names))) if positions is None else list(positions)
    (ax.set_xticks if axis == "x" else ax.set_yticks)(pos, names, fontsize=8)


def overlapping(texts: Sequence[Any], gap: float = 3.0) -> bool:
    """Whether any two of the drawn texts (tick labels, say) overlap or come closer than
    ``gap`` pixels on the canvas. Texts slanted alike (rotated tick labels) overlap when their
    anchors are closer, across the slant, than a line of text is high."""
    shown = [t for t in texts if t.get_visible() and t.get_text()]
    angles = {round(t.get_rotation() % 180, 3) for t in shown}
    if len(shown) > 1 and len(angles) == 1 and angles != {0.0}:
        angle = math.radians(angles.pop())
        xs = sorted(float(t.get_transform().transform(t.get_position())[0]) for t in shown)
        fig = shown[0].get_figure()
        dpi = fig.dpi if fig is not None else 100.0
        high = max(
            t.get_fontsize() * dpi / 72 * 1.2 * (t.get_text().count("\n") + 1) for t in shown
        )
        return any((b - a) * abs(math.sin(angle)) < high for a, b in zip(xs, xs[1:]))
    boxes = [t.get_window_extent() for t in shown]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if min(a.x1, b.x1) - max(a.x0, b.x0) > -gap and min(a.y1, b.y1) - max(a.y0, b.y0) > 0:
                return True
    return False


def shown_ticklabels(axis: Any, minor: bool = False) -> list[Any]:
    """The tick labels of an x or y axis that are drawn: inside its view limits, visible, not
    empty (matplotlib keeps labels for ticks beyond the limits too)."""
    lo, hi = sorted(axis.get_view_interval())
    ticks = axis.get_minor_ticks() if minor else axis.get_major_ticks()
    out = []
    for tick in ticks:
        loc = tick.get_loc()
        if loc is None or not (lo - 1e-9 * abs(hi - lo) <= loc <= hi + 1e-9 * abs(hi - lo)):
            continue
        out += [t for t in (tick.label1, tick.label2) if t.get_visible() and t.get_text()]
    return out


def tidy(fig: Figure) -> Figure:
    """Lay ``fig`` out and slant the x tick labels of every axes where two would overlap
    (long network names side by side): 30°, or upright where even that is too tight. Returns
    ``fig``."""
    fig.draw_without_rendering()
    for ax in fig.axes:
        labels = shown_ticklabels(ax.xaxis)
        for angle in (30, 90):
            if not overlapping(labels):
                break
            for t in ax.get_xticklabels():
                t.set_rotation(angle)
                t.set_horizontalalignment("right" if angle < 90 else "center")
                t.set_rotation_mode("anchor" if angle < 90 else "default")
    return fig


def bars(
    ax: Axes,
    table: pd.DataFrame,
    *,
    average: str | None = None,
    errors: Mapping[str, Any] | None = None,
    reference: float | None = None,
    missing: str | None = None,
    width: float = 0.8,
) -> None:
    """Grouped bars: one group per row of ``table`` (in its order), one bar per column (in its
    order), coloured by :func:`styles` (a column ``"paper …"`` hatched), labelled with
    :func:`display_name`.

    Parameters
    ----------
    average : "geomean", "mean" or None
        Append a group, after a gap and a dotted line, with each column's geometric or arithmetic
        mean over the rows (NaN left out), labelled "geomean" or "average" — where the paper
        shows one.
    errors : mapping, optional
        Column → (lower, upper) error lengths, e.g. a spread over random orders.
    reference : float, optional
        A thin horizontal line (1 for speedups and normalised values, 0 for changes).
    missing : str, optional
        Written upright where a value is missing (NaN), so that an absent bar is explained.
    """
    t = table.copy()
    if average:
        if average not in ("geomean", "mean"):
            raise ValueError(f"average: expected 'geomean', 'mean' or None, got {average!r}")
        agg = t.apply(lambda c: geomean(c.dropna()) if average == "geomean" else c.dropna().mean())
        t.loc["geomean" if average == "geomean" else "average"] = agg
    n, k = len(t), len(t.columns)
    x = np.arange(n, dtype=float)
    if average:
        x[-1] += 0.5
    w = width / max(k, 1)
    st = styles(t.columns)
    for j, col in enumerate(t.columns):
        s = st[str(col)]
        err = None
        if errors and col in errors:
            lo, hi = (np.asarray(v, dtype=float) for v in errors[col])
            if average:  # none on the average's bar
                lo, hi = np.append(lo, 0.0), np.append(hi, 0.0)
            err = np.vstack([lo, hi])
        ax.bar(
            x - width / 2 + w * (j + 0.5),
            t[col].to_numpy(dtype=float),
            w,
            color=s.get("fill", s["color"]),
            hatch=s["hatch"],
            edgecolor=s["color"] if s["hatch"] else s.get("fill", s["color"]),
            linewidth=0.5,
            label=display_name(col),
            yerr=err,
            capsize=2 if err is not None else 0,
            error_kw={"elinewidth": 0.8},
        )
        if missing:  # along the bar's place, on the side the other bars grow to
            down = bool(np.nanmean(t.to_numpy(dtype=float)) < 0)
            for xi, val in zip(x - width / 2 + w * (j + 0.5), t[col].to_numpy(dtype=float)):
                if math.isnan(val):
                    ax.annotate(missing, (xi, 0), xytext=(0, -3 if down else 3),
                                textcoords="offset points", rotation=90, ha="center",
                                va="top" if down else "bottom", fontsize=7, color="0.3")  # fmt: skip
    if average:
        ax.axvline(x[-1] - 0.75, color="0.5", ls=":", lw=0.8)
    if reference is not None:
        ax.axhline(reference, color="k", lw=0.6)
    tick_labels(ax, list(t.index), positions=x)
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def lines(
    ax: Axes,
    data: Mapping[Any, tuple[Any, Any]],
    *,
    markersize: float = 4,
    **kwargs: Any,
) -> None:
    """One line per entry of ``data`` (label → (x, y)), styled by :func:`styles` in the order
    given (a label ``"paper …"`` dashed), labelled with :func:`display_name`."""
    st = styles(data)
    for label, (xs, ys) in data.items():
        s = st[str(label)]
        ax.plot(
            xs,
            ys,
            color=s["color"],
            linestyle=s["linestyle"],
            marker=s["marker"],
            markersize=markersize,
            label=display_name(label),
            **kwargs,
        )


def log_ticks(
    ax: Axes, values: Iterable[float], *, axis: str = "x", base: float = 2, fmt: Any = None
) -> None:
    """A log axis labelled with the values drawn (``fmt(value)``, default ``:g``) and no minor
    labels: no ``2.4×10⁰`` beside the numbers a reader looks for."""
    from matplotlib.ticker import NullFormatter, NullLocator

    vals = sorted({float(v) for v in values})
    f = fmt or (lambda v: f"{v:g}")
    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log", base=base)
    a.set_ticks(vals, [f(v) for v in vals])
    a.set_minor_locator(NullLocator())
    a.set_minor_formatter(NullFormatter())


# -- numbers ---------------------------------------------------------------------------------
def size_key(value: Any) -> float:
    """A size as a number for ordering: bytes of ``"24MiB"`` / ``"24 MiB"`` / ``"1 GB"``, the
    number itself for a number; NaN for anything else."""
    if isinstance(value, bool):
        return math.nan
    if isinstance(value, (int, float)) or (
        hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iuf"
    ):
        return float(value)
    try:
        return float(parse_bytes(str(value).replace(" ", "")))
    except (ValueError, TypeError):
        return math.nan


def sort_sizes(labels: Iterable[Any]) -> list[Any]:
    """``labels`` in numeric order when every one is a size (:func:`size_key`): ``["4MiB",
    "24MiB", "128MiB"]``, never string order; otherwise as given."""
    items = list(labels)
    keys = [size_key(x) for x in items]
    if items and all(not math.isnan(k) for k in keys):
        return [x for _, x in sorted(zip(keys, items), key=lambda p: p[0])]
    return items


def size_label(value: Any) -> str:
    """A size as a reader writes it: ``24 MiB`` for ``"24MiB"`` or 25165824; other labels as
    they are."""
    k = size_key(value)
    return str(value) if math.isnan(k) else format_bytes(k)


def geomean(values: Iterable[float]) -> float:
    """The geometric mean of positive values (NaN if there are none)."""
    v = [float(x) for x in values]
    if not v:
        return math.nan
    return math.exp(sum(math.log(x) for x in v) / len(v))


# -- file names ------------------------------------------------------------------------------
#: The seeds of the reproductions (``sweeps/<seed>/``) and their figure-name prefix.
SEEDS = ("thesis", "cdma", "mbs", "onsram", "interleaved")
#: The topics whose figures no seed paper draws (``sweeps/energy``: joules and mm²).
TOPICS = ("energy",)
_PART = r"[a-z0-9]+(?:_[a-z0-9]+)*"
FIGURE_NAME = re.compile(
    rf"^({'|'.join(SEEDS + TOPICS)})-(fig{_PART}|table{_PART}|beyond)-({_PART})$"
)


def figure_name(seed: str, figure: str, what: str) -> str:
    """The file name (without ``.png``) of a seed's (or a topic's, :data:`TOPICS`) figure:
    ``<seed>-<figure>-<what>``, parts
    joined by ``-``, words inside a part by ``_``; ``figure`` is the paper's figure or table
    (``fig13``, ``fig5_1``, ``table1``) or ``beyond`` for what the paper does not draw:
    ``figure_name("cdma", "fig13", "performance")`` → ``"cdma-fig13-performance"``."""
    name = f"{seed}-{figure}-{what}"
    if not FIGURE_NAME.match(name):
        raise ValueError(
            f"figure name {name!r} does not follow <seed>-<figure>-<what> (seed or topic one "
            f"of {list(SEEDS + TOPICS)}; figure figN, tableN or beyond; lower case, words joined by _)"
        )
    return name

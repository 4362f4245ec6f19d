"""Checks a reviewer makes by eye, made on a drawn matplotlib Figure: no legend covers data of
any axes of the figure, and no legend is cut off by the figure's edge."""

from __future__ import annotations

from typing import Any

import numpy as np

from dnnmem.plots.style import overlapping, shown_ticklabels


def _points(ax: Any) -> np.ndarray:
    """Display coordinates of the data drawn on ``ax``: line vertices and points between them,
    scatter offsets, vertices of polygons; only those inside the axes (the rest is clipped)."""
    out = []
    for line in ax.get_lines():
        if not line.get_visible() or len(line.get_xydata()) == 0:
            continue
        xy = line.get_transform().transform(line.get_xydata())
        xy = xy[np.isfinite(xy).all(axis=1)]
        if len(xy) > 1:  # the segments between the vertices too
            t = np.linspace(0.0, 1.0, 25)[:, None, None]
            xy = (xy[:-1] * (1 - t) + xy[1:] * t).reshape(-1, 2)
        out.append(xy)
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        offsets = np.asarray(coll.get_offsets())
        if len(offsets) > 1 or coll.__class__.__name__ == "PathCollection":
            out.append(coll.get_offset_transform().transform(offsets))
        else:
            for path in coll.get_paths():
                out.append(coll.get_transform().transform(path.vertices))
    pts = np.concatenate(out) if out else np.zeros((0, 2))
    box = ax.bbox
    inside = (
        (pts[:, 0] >= box.x0)
        & (pts[:, 0] <= box.x1)
        & (pts[:, 1] >= box.y0)
        & (pts[:, 1] <= box.y1)
    )
    return pts[inside]


def legend_problems(fig: Any, draw: bool = True) -> list[str]:
    """What is wrong with the legends of ``fig`` (empty: nothing); ``draw=False`` when it has
    just been drawn."""
    if draw:
        fig.draw_without_rendering()  # runs the layout engine, also without a canvas
    problems = []
    fbox = fig.bbox
    axes = [a for a in fig.axes if a.get_visible()]
    for ax in axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent()
        name = ax.get_title().splitlines()[0] if ax.get_title() else repr(ax)
        if (
            box.x0 < fbox.x0 - 1
            or box.x1 > fbox.x1 + 1
            or box.y0 < fbox.y0 - 1
            or box.y1 > fbox.y1 + 1
        ):
            problems.append(f"{name}: legend cut off by the figure's edge")
        for other in axes:
            pts = _points(other)
            covered = (
                (pts[:, 0] > box.x0)
                & (pts[:, 0] < box.x1)
                & (pts[:, 1] > box.y0)
                & (pts[:, 1] < box.y1)
            )
            if covered.any():
                problems.append(f"{name}: legend covers {int(covered.sum())} data points")
            for patch in other.patches:  # bars
                r = patch.get_window_extent()
                w = min(r.x1, box.x1) - max(r.x0, box.x0)
                h = min(r.y1, box.y1) - max(r.y0, box.y0)
                if w > 0.5 and h > 0.5:
                    problems.append(f"{name}: legend covers a bar")
                    break
    return problems


def _texts(fig: Any) -> list[tuple[str, Any]]:
    """(where, Text) of every visible text a reader must see whole: titles, axis labels, tick
    labels, legend entries."""
    out = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(("suptitle", fig._suptitle))
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        out += [("title", t) for t in (ax.title, ax._left_title, ax._right_title)]
        out += [("x label", ax.xaxis.label), ("y label", ax.yaxis.label)]
        out += [("x tick", t) for t in shown_ticklabels(ax.xaxis)]
        out += [("y tick", t) for t in shown_ticklabels(ax.yaxis)]
        legend = ax.get_legend()
        if legend is not None:
            out += [("legend", t) for t in legend.get_texts()]
    for legend in fig.legends:
        out += [("legend", t) for t in legend.get_texts()]
    return [(w, t) for w, t in out if t.get_visible() and t.get_text()]


def text_problems(fig: Any, draw: bool = True) -> list[str]:
    """Tick labels that overlap, minor tick labels (the ``2.4×10⁰`` beside the numbers a reader
    looks for), and texts cut off by the figure's edge."""
    if draw:
        fig.draw_without_rendering()
    problems = []
    fbox = fig.bbox
    for where, t in _texts(fig):
        b = t.get_window_extent()
        if b.x0 < fbox.x0 - 1 or b.x1 > fbox.x1 + 1 or b.y0 < fbox.y0 - 1 or b.y1 > fbox.y1 + 1:
            problems.append(f"{where} {t.get_text()!r} cut off by the figure's edge")
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        name = ax.get_title().splitlines()[0] if ax.get_title() else repr(ax)
        if overlapping(shown_ticklabels(ax.xaxis), gap=0.0):
            problems.append(f"{name}: x tick labels overlap")
        if overlapping(shown_ticklabels(ax.yaxis), gap=0.0):
            problems.append(f"{name}: y tick labels overlap")
        for axis in (ax.xaxis, ax.yaxis):
            minor = [t.get_text() for t in shown_ticklabels(axis, minor=True)]
            if minor:
                problems.append(f"{name}: minor tick labels {minor[:3]}")
    return problems


def legend_entries(fig: Any) -> dict[str, tuple[Any, ...]]:
    """Each legend label of ``fig`` and its look: (colour, line style, marker, hatch)."""
    from matplotlib.colors import to_hex

    out = {}
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(
        fig.legends
    )
    for legend in legends:
        for handle, text in zip(legend.legend_handles, legend.get_texts()):
            if hasattr(handle, "get_marker"):  # a line
                look = (
                    to_hex(handle.get_color()),
                    handle.get_linestyle(),
                    handle.get_marker(),
                    None,
                )
            else:  # a patch (bars)
                look = (to_hex(handle.get_facecolor()), None, None, handle.get_hatch())
            out[text.get_text()] = look
    return out


def style_problems(fig: Any, draw: bool = True) -> list[str]:
    """Legend entries that look alike, and labels that are raw column or zoo names
    (``snake_case``) instead of the names a reader knows."""
    problems = []
    entries = legend_entries(fig)
    seen: dict[tuple[Any, ...], str] = {}
    for label, look in entries.items():
        if look in seen:
            problems.append(f"legend entries {seen[look]!r} and {label!r} look alike")
        seen[look] = label
    if draw:
        fig.draw_without_rendering()
    shown = list(entries) + [
        t.get_text()
        for ax in fig.axes
        for t in shown_ticklabels(ax.xaxis) + shown_ticklabels(ax.yaxis)
    ]
    for text in shown:
        if any("_" in word and not word.startswith("`") for word in text.split()):
            problems.append(f"raw name {text!r} (a column's or the zoo's, not a reader's)")
    return problems

"""Checks a reviewer makes by eye, made on a drawn matplotlib Figure: no legend covers data of
any axes of the figure, and no legend is cut off by the figure's edge."""

from __future__ import annotations

from typing import Any

import numpy as np


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


def legend_problems(fig: Any) -> list[str]:
    """What is wrong with the legends of ``fig`` (empty: nothing)."""
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

"""Issue 28, reading C3a of the zlib claims: max-pool outputs generated as max pools.

dnnmem measures RLE and zlib on generated tensors (docs/model/cdma.md, C3), each element drawn
for itself. A max pool's output is not like that: "pooling layers either pick the highest value
(when we use max pooling) or derive the average value" (cDMA paper, §IV-A), so where
neighbouring windows overlap (a 3 × 3 window at stride 1 or 2) they often pick the same input
element, and the output repeats exact 32-bit values side by side. DEFLATE finds such repeats;
ZVC and RLE do not look at non-zero values. The links' option ``values=pooled`` (rule C3a)
generates a max pool's output by max-pooling a generated map with the layer's window and
stride; every other tensor is generated as before.

This script runs the page's Fig. 11 and Fig. 13 setups (per-network sparsity, rule G1) with the
RLE and zlib tensors generated both ways (``random``, the page; ``pooled``).

    python sweeps/cdma/pooled.py [--small] [--no-plot] [--markdown] [--cached]
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import _cdma as C
import masks as M
import pandas as pd
from _pages import table

from dnnmem.plots import style

if TYPE_CHECKING:
    from matplotlib.figure import Figure

NAME = style.figure_name("cdma", "beyond", "pooled")
GPUS = M.GPUS
VALUES = ("random", "pooled")
#: What each reading is called in the tables.
VALUE_NAMES = {"random": "every element drawn (the page)", "pooled": "max pools pooled (C3a)"}
#: The claims of the table (masks.CLAIMS' keys): those the generated values can move.
KEYS = ("zlib_less_average", "zlib_less_googlenet", "bw_gives_up", "zlib_speedup_average",
        "zlib_speedup_largest")  # fmt: skip


def policies(values: str) -> dict[str, str]:
    """The Fig. 13 bars (_cdma.POLICIES) with the RLE and zlib tensors generated as ``values``."""
    if values not in VALUES:
        raise ValueError(f"values: must be 'random' or 'pooled', got {values!r}")
    if values == "random":
        return dict(C.POLICIES)
    out = {}
    for k, v in C.POLICIES.items():
        for link in ("rle(", "zlib("):
            v = v.replace(link, f"{link}values=pooled, ")
        out[k] = v
    return out


def compute(small: bool = False) -> pd.DataFrame:
    """One row per (values, GPU, network, bar): the Fig. 13 columns of ``cdma.compare``."""
    return M.compute_readings("values", VALUES, policies, small, GPUS)


def plot(df: pd.DataFrame) -> Figure:
    """zlib's traffic below ZVC's per network (Titan Xp, NCHW), the tensors generated both ways."""

    def zlib_less(d: pd.DataFrame) -> pd.Series:
        ratio = {b: d[d["bar"] == b].set_index("network")["map_ratio"] for b in ("ZV", "ZL")}
        return 100 * (1 - ratio["ZV"] / ratio["ZL"])

    return M.plot_readings(
        df,
        "values",
        {v: VALUE_NAMES[v] for v in VALUES},
        zlib_less,
        "zlib's traffic below ZVC's (%)",
        "cDMA, NCHW: zlib against ZVC, max-pool outputs generated two ways",
        reference=0.0,
        average="mean",
    )


def markdown(tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """The claims the generated values touch, both ways."""
    df = tables["pooled"]
    got = {v: M.quantities(df, v, column="values") for v in VALUES}
    claims = {key: (what, paper, unit) for key, what, paper, unit in M.CLAIMS}
    rows = [
        (f"{claims[k][0]} ({M._fmt(claims[k][1], claims[k][2])})",
         *(M._fmt(got[v][k], claims[k][2]) for v in VALUES))
        for k in KEYS
    ]  # fmt: skip
    return {"pooled": table(["quantity (paper)", *(VALUE_NAMES[v] for v in VALUES)], rows)}


if __name__ == "__main__":
    C.main(sys.modules[__name__])

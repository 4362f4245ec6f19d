"""What every cDMA figure script shares: the cDMA paper's setup and the output.

The setup is the cDMA paper's (Rhu et al., "Compressing DMA Engine: Leveraging Activation
Sparsity for Training Deep Neural Networks", HPCA 2018): the six networks of its Table II at
their batch sizes, the Titan Xp (§VI) with 12 GB of GPU memory as the cache and PCIe gen3
(16 GB/s) as the link, the policies of its Fig. 13 (vDNN; RLE, ZVC, zlib performance-optimal
with a 200 GB/s compressor; ZVC bandwidth-aware at 48 GB/s). Every script here has
``compute(small=False) -> DataFrame`` and ``plot(df) -> Figure`` (saved as
``figures/cdma-<name>.png``); ``--small`` (CI) uses three networks at batch 8.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import pandas as pd

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPO = Path(__file__).resolve().parents[2]
FIGURES_DIR = REPO / "figures"

#: cDMA paper Table II: network -> batch size.
NETWORKS: dict[str, int] = {
    "alexnet": 256,
    "overfeat": 256,
    "nin": 128,
    "vgg16": 128,
    "squeezenet": 512,
    "googlenet": 256,
}
SMALL: dict[str, int] = {"alexnet": 8, "nin": 8, "squeezenet": 8}

#: The cDMA paper's Fig. 13 bars: label -> policy string.
POLICIES: dict[str, str] = {
    "vDNN": "vdnn-all",
    "RL": "vdnn-all + rle(cap=200GB/s)",
    "ZV": "vdnn-all + zvc(cap=200GB/s)",
    "ZL": "vdnn-all + zlib(cap=200GB/s)",
    "BW": "vdnn-all + zvc(cap=48GB/s)",
}
#: The six networks' average sparsity (cDMA paper §IV-B): the rule's calibration target.
TARGET = 0.62


def networks(small: bool) -> dict[str, int]:
    return SMALL if small else NETWORKS


def with_target(policy: str, target: float = TARGET) -> str:
    """A policy string with the sparsity target added to its compressing link."""
    for link in ("zvc", "rle", "zlib"):
        if f"+ {link}(" in policy:
            return policy.replace(f"+ {link}(", f"+ {link}(target={target}, ")
        if policy.endswith(f"+ {link}"):
            return f"{policy}(target={target})"
    return policy


def main(name: str, compute: Callable[[bool], pd.DataFrame], plot: Callable[..., Figure]) -> None:
    p = argparse.ArgumentParser(description=f"cDMA paper figure: {name}")
    p.add_argument("--small", action="store_true", help="three networks at batch 8 (CI)")
    p.add_argument("--no-plot", action="store_true", help="print the table only")
    a = p.parse_args()
    df = compute(a.small)
    print(df.to_string(index=False))
    if not a.no_plot:
        FIGURES_DIR.mkdir(exist_ok=True)
        out = FIGURES_DIR / f"cdma-{name}.png"
        plot(df).savefig(out, dpi=120)
        print(f"wrote {out}")

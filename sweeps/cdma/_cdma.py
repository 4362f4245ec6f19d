"""What every cDMA figure script shares: the cDMA paper's setup and the output.

The setup is the cDMA paper's (Rhu et al., "Compressing DMA Engine: Leveraging Activation
Sparsity for Training Deep Neural Networks", HPCA 2018): the six networks of its Table II at
their batch sizes, the Titan Xp (§VI) with 12 GB of GPU memory as the cache and PCIe gen3
(16 GB/s) as the link, the policies of its Fig. 13 (vDNN; RLE, ZVC, zlib performance-optimal
with a 200 GB/s compressor; ZVC bandwidth-aware at 48 GB/s). Every script here has
``compute(small=False) -> DataFrame``, ``plot(df) -> Figure`` (saved as ``figures/<NAME>.png``)
and, where its numbers are on docs/seeds/cdma.md, ``markdown(tables)`` (the page's blocks;
``--markdown``, see sweeps/_pages.py); ``--small`` (CI) uses three networks at batch 8.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _pages
import _pages  # noqa: E402

SEED = "cdma"

#: cDMA paper Table II: network -> batch size, in the paper's order.
NETWORKS: dict[str, int] = {
    "alexnet": 256,
    "overfeat": 256,
    "nin": 128,
    "vgg16": 128,
    "squeezenet": 512,
    "googlenet": 256,
}
SMALL: dict[str, int] = {"alexnet": 8, "nin": 8, "squeezenet": 8}

#: The cDMA paper's Fig. 13 bars: label -> policy string (the paper's labels: RL, ZV, ZL are
#: cDMA with RLE, ZVC, zlib, performance-optimal; BW is ZVC bandwidth-aware).
POLICIES: dict[str, str] = {
    "vDNN": "vdnn-all",
    "RL": "vdnn-all + rle(cap=200GB/s)",
    "ZV": "vdnn-all + zvc(cap=200GB/s)",
    "ZL": "vdnn-all + zlib(cap=200GB/s)",
    "BW": "vdnn-all + zvc(cap=48GB/s)",
}
#: What the figures call the bars.
BAR_NAMES: dict[str, str] = {
    "vDNN": "vDNN",
    "RL": "RLE",
    "ZV": "ZVC",
    "ZL": "zlib",
    "BW": "ZVC, bandwidth-aware",
}
#: The figures' note on the bars.
BAR_NOTE = "RLE, ZVC, zlib: 200 GB/s compressor; bandwidth-aware ZVC: 48 GB/s"
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


def main(script: ModuleType, argv: Sequence[str] | None = None) -> None:
    """The command line of every script (sweeps/_pages.py)."""
    _pages.main(SEED, script, argv)

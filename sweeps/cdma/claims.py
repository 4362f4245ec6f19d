"""The cDMA paper's headline claims beside dnnmem's values (the scorecard, sweeps/scorecard.py).

Every dnnmem value is read from the page's tables (``tests/data/seeds/cdma/``, written by the
figure scripts with ``--markdown``); the paper's values carry their section. Percentages are
in %, ratios in ×.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # sweeps/: the shared _claims
from _claims import Claim  # noqa: E402

SEED = "cdma"


def claims(tables: dict[str, pd.DataFrame]) -> list[Claim]:
    """The claims, dnnmem's values from ``tables`` (the seed's saved tables by name)."""
    f11 = tables["fig11_ratio"]
    f13 = tables["fig13_performance"]

    def bars(gpu: str, bar: str) -> pd.DataFrame:
        return f13[(f13["gpu"] == gpu) & (f13["bar"] == bar)].set_index("network")

    xp, mx = "titan-xp", "titan-x-maxwell"
    vdnn, zv, zl, bw = (bars(xp, b) for b in ("vDNN", "ZV", "ZL", "BW"))
    # §VII-B: bandwidth-aware cDMA reaches "an average 94% of the best performing cDMA", "against
    # all three performance-optimal policies": per network, the best of RLE, ZVC and zlib.
    best = pd.concat([bars(xp, b)["performance"] for b in ("RL", "ZV", "ZL")], axis=1).max(axis=1)
    zvc = f11[(f11["algorithm"] == "zvc") & (f11["layout"] == "nchw")].set_index("network")
    # Reading M (docs/seeds/cdma.md, "What the paper's ratios count"): the paper's ratios are
    # 1 / density, ZVC's masks left out (§V-A: 60 % zeros "2.5×"); its bytes on PCIe keep them.
    masks = tables["masks"]
    zvc_m = masks[(masks["mask"] == "off") & (masks["gpu"] == xp) & (masks["bar"] == "ZV")]
    zlib = f11[(f11["algorithm"] == "zlib") & (f11["layout"] == "nchw")].set_index("network")
    # §VII-A, Fig. 11: "the average compression ratio is weighted by the size of the activation
    # maps that are being offloaded": the layers' maps (map_ratio), the input image left out
    # (issue 28's hypothesis 3; docs/seeds/cdma.md, "Issue 28's hypotheses").
    loss = 100 * (1 - vdnn["performance"])
    gain = 100 * zv["gain"]
    mgain = 100 * bars(mx, "ZV")["gain"]
    zlib_speed = 100 * (zv["time"] / zl["time"] - 1)
    zlib_less = 100 * (1 - zvc["map_ratio"] / zlib["map_ratio"])
    setup = "six networks of Table II, sparsity rule per network (AlexNet 49.4 %, mean 62 %)"
    h3 = ("H3",)  # per-network sparsity targets, the layers' activation maps
    h3m = ("H3", "M")  # ... and ZVC's ratio as the paper counts it, masks left out
    h3s = ("H3",)  # per-network sparsity targets
    g1 = ("G1",)  # Fig. 13: compute no faster than the memory rate the paper measured (§VI)

    def c(claim: str, where: str, paper: float, value: float, kind: str, unit: str,
          note: str = "", hyp: tuple[str, ...] = ()) -> Claim:  # fmt: skip
        return Claim(SEED, claim, where, paper, float(value), kind, unit, note, hyp)  # type: ignore[arg-type]

    return [
        c("ZVC compression ratio, average over the networks", "Abstract, §VII-A", 2.6,
          zvc_m["map_ratio"].mean(), "ratio", "×",
          f"Fig. 11: {setup}, the activation maps, masks left out", h3m),
        c("ZVC compression ratio, largest per layer", "Abstract, §VII-A", 13.8,
          zvc_m["max_ratio"].max(), "ratio", "×", "Fig. 11, masks left out", h3m),
        c("zlib compression ratio (NCHW), average", "§VII-A", 2.76, zlib["map_ratio"].mean(),
          "ratio", "×", "Fig. 11, the activation maps", h3),
        c("zlib's PCIe traffic below ZVC's, average", "§VII-A", 3.0, zlib_less.mean(),
          "reduction", "%", "Fig. 11, the activation maps", h3),
        c("zlib's PCIe traffic below ZVC's, GoogLeNet", "§VII-A", 30.0, zlib_less["googlenet"],
          "reduction", "%", "Fig. 11, the activation maps", h3),
        c("vDNN's performance loss to the oracle, average", "§I, §III", 51.0, loss.mean(),
          "reduction", "%", "Fig. 13, Titan Xp", g1),
        c("vDNN's performance loss to the oracle, worst network", "§I, §III", 63.0, loss.max(),
          "reduction", "%", "Fig. 13, Titan Xp", g1),
        c("ZVC's gain over vDNN, Titan Xp, average", "Abstract, §IX", 53.0, gain.mean(),
          "reduction", "%", "Fig. 13, 200 GB/s compressor", h3s + g1),
        c("ZVC's gain over vDNN, Titan Xp, largest", "Abstract, §IX", 79.0, gain.max(),
          "reduction", "%", "Fig. 13", h3s + g1),
        c("cDMA's gain over vDNN, second GPU, average", "§VII-C", 32.0, mgain.mean(),
          "reduction", "%", "Fig. 13, Maxwell Titan X (the paper does not name the GPU)", h3s + g1),
        c("cDMA's gain over vDNN, second GPU, largest", "§VII-C", 61.0, mgain.max(),
          "reduction", "%", "Fig. 13, Maxwell Titan X", h3s + g1),
        c("performance the bandwidth-aware policy (48 GB/s) gives up", "§V-D, §VII-B",
          100 - 94.0, 100 * (1 - (bw["performance"] / best).mean()),
          "reduction", "%", "Fig. 13: 1 − its performance / the best performance-optimal one's "
          "(RLE, ZVC or zlib)", h3s + g1),
        c("zlib's speed-up over ZVC, average", "§VII-B", 0.7, zlib_speed.mean(), "reduction",
          "%", "Fig. 13", h3s + g1),
        c("zlib's speed-up over ZVC, largest (GoogLeNet)", "§VII-B", 2.2, zlib_speed.max(),
          "reduction", "%", "Fig. 13", h3s + g1),
    ]  # fmt: skip

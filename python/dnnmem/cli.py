"""The ``dnnmem`` command line. Errors are one clear line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from . import __version__
from .network import Network, NetworkError, load_network
from .zoo import network, networks


def _load(name_or_path: str, batch: int, bytes_per_element: int) -> Network:
    if name_or_path.lower() in networks():
        return network(name_or_path, batch=batch, bytes_per_element=bytes_per_element)
    return load_network(name_or_path, batch=batch, bytes_per_element=bytes_per_element)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dnnmem", description=__doc__)
    p.add_argument("--version", action="version", version=f"dnnmem {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="summarise a network (built-in name or JSON file)")
    s.add_argument("network", help=f"a JSON file or one of: {', '.join(networks())}")
    s.add_argument("--batch", type=int, default=32, help="mini-batch size (default 32)")
    s.add_argument("--bytes-per-element", type=int, default=4, help="4 = FP32 (default), 2 = FP16")
    s.add_argument("--steps", type=int, default=0, metavar="K",
                   help="also print the first K steps of the schedule")
    sub.add_parser("networks", help="list the built-in networks")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dnnmem`` and ``python -m dnnmem``."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "networks":
            print("\n".join(networks()))
        elif args.command == "summary":
            net = _load(args.network, args.batch, args.bytes_per_element)
            print(net.summary())
            if args.steps > 0:
                cols = {"step": "step", "name": "name", "kind": "kind", "class": "class",
                        "flops": "FLOP", "bytes_read": "read [B]",
                        "bytes_written": "written [B]", "rf": "rf [FLOP/B]"}
                table = net.steps[list(cols)].head(args.steps).rename(columns=cols)
                print(f"first {len(table)} of {net.num_steps} steps (bytes as if every access "
                      "were streamed):")
                print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    except (NetworkError, ValueError, OSError) as e:
        print(f"dnnmem: error: {e}", file=sys.stderr)
        return 2
    return 0

"""The ``dnnmem`` command line. Errors are one clear line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from . import __version__
from .estimate import estimate, policies
from .hardware import Hardware
from .network import Network, NetworkError, load_network
from .units import format_time
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
    e = sub.add_parser("estimate", help="estimate one training iteration at one design point")
    e.add_argument("--network", required=True, help=f"a JSON file or one of: {', '.join(networks())}")
    e.add_argument("--batch", type=int, default=32, help="mini-batch size (default 32)")
    e.add_argument("--capacity", default="24MiB", help="on-chip capacity (default 24MiB)")
    e.add_argument("--bandwidth", default="616GB/s", help="off-chip bandwidth (default 616GB/s)")
    e.add_argument("--throughput", default="13.45TFLOPS", help="compute throughput (default 13.45TFLOPS)")
    e.add_argument("--policy", default="lookahead", help="cache policy (default lookahead)")
    e.add_argument("--ops-per-mac", type=int, default=2, choices=(1, 2), help="FLOPs per MAC")
    e.add_argument("--by-kind", action="store_true", help="also print the time by layer kind")
    i = sub.add_parser("import", help="convert a model file (.cfg, .onnx, …) to a JSON network")
    i.add_argument("model", help="darknet .cfg, .onnx (see docs/importers.md for the others)")
    i.add_argument("-o", "--output", required=True, help="the JSON network file to write")
    i.add_argument("--batch", type=int, default=1, help="batch of the printed summary (default 1)")
    i.add_argument("--no-strict", dest="strict", action="store_false",
                   help="import unsupported operators as zero-FLOP placeholders (warns)")
    sub.add_parser("networks", help="list the built-in networks")
    sub.add_parser("policies", help="list the cache policies")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dnnmem`` and ``python -m dnnmem``."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "networks":
            print("\n".join(networks()))
        elif args.command == "policies":
            for name, text in policies().items():
                print(f"{name:<14} {text}")
        elif args.command == "estimate":
            net = _load(args.network, args.batch, 4)
            hw = Hardware(capacity=args.capacity, bandwidth=args.bandwidth,
                          throughput=args.throughput)
            r = estimate(net, hw, args.policy, ops_per_mac=args.ops_per_mac)
            print(r)
            if args.by_kind:
                share = r.by_kind() / r.time
                for kind, sec in r.by_kind().items():
                    print(f"  {kind:<16} {format_time(sec):>10}  {share[kind]:6.1%}")
        elif args.command == "import":
            from .importers import import_model
            try:
                doc = import_model(args.model, strict=args.strict, document=True)
            except ImportError as e:  # an optional dependency (dnnmem[onnx], …) is missing
                raise ValueError(str(e)) from None
            net = load_network(doc, batch=args.batch)
            net.save(args.output)
            print(f"{args.model} -> {args.output}")
            print(net.summary())
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

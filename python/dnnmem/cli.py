"""The ``dnnmem`` command line. Errors are one clear line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd

from . import __version__
from .estimate import estimate, policies
from .hardware import Hardware
from .network import Network, NetworkError, load_network
from .units import format_bandwidth, format_bytes, format_throughput, format_time
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
    e.add_argument("--hardware", metavar="PRESET",
                   help="a hardware preset (dnnmem presets) giving the three values below")
    e.add_argument("--precision", help="the preset's throughput for this precision (default fp32)")
    e.add_argument("--capacity", help="on-chip capacity (default: the preset's, else 24MiB)")
    e.add_argument("--bandwidth", help="off-chip bandwidth (default: the preset's, else 616GB/s)")
    e.add_argument("--throughput",
                   help="compute throughput (default: the preset's, else 13.45TFLOPS)")
    e.add_argument("--policy", default="lookahead",
                   help="a policy: a cache manager's name, or parts joined by '+', e.g. "
                        "'split-backward + lru + ratio(activation=2)' (see `dnnmem policies`; "
                        "default lookahead)")
    e.add_argument("--ops-per-mac", type=int, default=2, choices=(1, 2), help="FLOPs per MAC")
    e.add_argument("--by-kind", action="store_true", help="also print the time by layer kind")
    w = sub.add_parser("sweep", help="evaluate a grid of design points from a YAML file",
                       description="Evaluate the grid of a YAML sweep specification "
                                   "(docs/sweeps.md) and write one row per design point.")
    w.add_argument("spec", help="the YAML sweep specification")
    w.add_argument("-o", "--out", required=True,
                   help="output file: .parquet (re-runs skip points already there) or .csv")
    w.add_argument("--threads", type=int, help="C++ threads (default: all cores)")
    w.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where to evaluate: this machine (default) or a Dask cluster")
    w.add_argument("--scheduler", metavar="ADDRESS",
                   help="the Dask scheduler address (with --executor dask)")
    w.add_argument("--no-progress", action="store_true", help="no progress bar")
    w.add_argument("--plot", metavar="PNG",
                   help="also draw traffic and time vs capacity into this image file")
    pr = sub.add_parser("presets", help="list the hardware presets")
    pr.add_argument("--group", help="only this group (e.g. thesis)")
    i = sub.add_parser("import", help="convert a model file (.cfg, .onnx, …) to a JSON network")
    i.add_argument("model", help="darknet .cfg, .onnx (see docs/importers.md for the others)")
    i.add_argument("-o", "--output", required=True, help="the JSON network file to write")
    i.add_argument("--batch", type=int, default=1, help="batch of the printed summary (default 1)")
    i.add_argument("--no-strict", dest="strict", action="store_false",
                   help="import unsupported operators as zero-FLOP placeholders (warns)")
    sub.add_parser("networks", help="list the built-in networks")
    sub.add_parser("policies", help="list the parts a policy is composed of: schedulers, "
                                    "cache managers, links, compute models, with their options")
    return p


def _hardware(args: argparse.Namespace) -> Hardware:
    given = {k: getattr(args, k) for k in ("capacity", "bandwidth", "throughput")
             if getattr(args, k) is not None}
    if args.hardware is None:
        if args.precision is not None:
            raise ValueError("--precision needs --hardware")
        return Hardware(**{"capacity": "24MiB", "bandwidth": "616GB/s",
                           "throughput": "13.45TFLOPS", **given})
    from .presets import hardware

    options = {} if args.precision is None else {"precision": args.precision}
    return hardware(args.hardware, **options, **given)


def _print_presets(group: str | None) -> None:
    from .presets import hardware_presets

    df = hardware_presets(group=group) if group else hardware_presets()
    print(f"{'preset':<16} {'on-chip':>10}  {'off-chip':>11}  throughput by precision")
    for key, rows in df.groupby("key", sort=False):
        first = rows.iloc[0]
        cap = "—" if pd.isna(first["capacity"]) else format_bytes(int(first["capacity"]))
        rates = ", ".join(f"{r.precision} {format_throughput(r.throughput)}"
                          for r in rows.itertuples())
        print(f"{key:<16} {cap:>10}  {format_bandwidth(first['bandwidth']):>11}  {rates}"
              f"  — {first['name']}")


def _plot_sweep(df: pd.DataFrame, path: str) -> None:
    """Traffic and time vs capacity side by side (thesis Figs. 5.2 and 5.3), one line a group."""
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, nothing global

    from . import plots

    fig = Figure(figsize=(13, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    plots.traffic_vs_capacity(df, ax=left)
    plots.time_vs_capacity(df, ax=right, speedup=False)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    print(f"plot -> {path}")


def _sweep(args: argparse.Namespace) -> None:
    from .sweep import sweep
    from .sweep_spec import read_sweep_spec

    kwargs = read_sweep_spec(args.spec)
    if args.threads is not None:
        kwargs["threads"] = args.threads
    out = str(args.out)
    if not out.endswith((".parquet", ".csv")):
        raise ValueError(f"--out: {out!r} must end in .parquet or .csv")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    executor = None
    if args.executor == "dask":
        if not args.scheduler:
            raise ValueError("--executor dask needs --scheduler ADDRESS")
        from distributed import Client

        from .cluster import dask

        executor = dask(Client(args.scheduler))
    elif args.scheduler:
        raise ValueError("--scheduler needs --executor dask")
    df = sweep(**kwargs, executor=executor, progress=not args.no_progress,
               out=out if out.endswith(".parquet") else None)
    if out.endswith(".csv"):
        df.to_csv(out, index=False)
    if args.plot:
        _plot_sweep(df, args.plot)
    best = df.loc[df["time"].idxmin()]
    print(f"{len(df)} design points -> {out}; fastest: {best['network']} "
          f"{format_bytes(best['capacity'])} {best['policy']}: {format_time(best['time'])}")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dnnmem`` and ``python -m dnnmem``."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "networks":
            print("\n".join(networks()))
        elif args.command == "policies":
            table = policies()
            for kind, rows in table.groupby("kind", sort=False):
                print(f"{kind}:")
                for row in rows.itertuples():
                    print(f"  {row.name:<15} {row.description}")
                    if row.options:
                        print(f"  {'':<15} options: {row.options}")
        elif args.command == "estimate":
            net = _load(args.network, args.batch, 4)
            hw = _hardware(args)
            r = estimate(net, hw, args.policy, ops_per_mac=args.ops_per_mac)
            print(r)
            if args.by_kind:
                share = r.by_kind() / r.time
                for kind, sec in r.by_kind().items():
                    print(f"  {kind:<16} {format_time(sec):>10}  {share[kind]:6.1%}")
        elif args.command == "presets":
            _print_presets(args.group)
        elif args.command == "sweep":
            _sweep(args)
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
    except (NetworkError, ValueError, TypeError, OSError) as e:
        print(f"dnnmem: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        if (e.name or "dnnmem").split(".")[0] == "dnnmem":
            raise  # a bug of ours, not a missing optional package
        print(f"dnnmem: error: the package {e.name!r} is needed for this command "
              f"(pip install 'dnnmem[all]'; see README.md)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dnnmem: interrupted", file=sys.stderr)
        return 130
    return 0

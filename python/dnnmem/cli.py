"""The ``dnnmem`` command line. Errors are one clear line on stderr and exit code 2.

Defaults are those of the Python API (``docs/estimator.md``): batch 1 unless ``--batch`` says
otherwise, and the design point of ``dnnmem.Hardware()`` (24 MiB, 616 GB/s, 13.45 TFLOPS).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__
from ._files import write_atomically
from ._lazy import LazyModule
from ._optional import MissingDependency, install_hint, require
from .hardware import (
    DEFAULT_BANDWIDTH,
    DEFAULT_CAPACITY,
    DEFAULT_THROUGHPUT,
    PRECISIONS,
    Hardware,
    PrecisionWarning,
)
from .network import Network, NetworkError, load_network, looks_like_json
from .technology import DEFAULT_CLOCK, DEFAULT_MEMORY, DEFAULT_NODE, memory_technologies
from .units import format_bandwidth, format_bytes, format_throughput, format_time
from .zoo import network, networks, unknown_network_message

# Each command imports what it needs (the estimator, the sweep, the plots) when it runs, so
# that `dnnmem --help` or a one-point estimate does not pay for the rest.
if TYPE_CHECKING:
    import pandas as pd

    from .estimate import Result
else:
    pd = LazyModule("pandas")

# The help texts are plain text: argparse prints them as written.
_DESCRIPTION = (
    "dnnmem: estimate one training iteration of a DNN on an accelerator's memory "
    "subsystem (on-chip capacity, off-chip bandwidth, compute throughput, cache "
    "policy). Errors are one line on stderr with exit code 2. Defaults are those "
    "of the Python API: batch 1, and 24MiB, 616GB/s, 13.45TFLOPS (FP32)."
)
_NUMBERS = "a unit string or a plain number in {}"


def _load(name_or_path: str, batch: int, bytes_per_element: int) -> Network:
    if name_or_path.lower() in networks():
        return network(name_or_path, batch=batch, bytes_per_element=bytes_per_element)
    looks_like_a_path = (
        os.sep in name_or_path
        or "/" in name_or_path
        or "." in name_or_path
        or looks_like_json(name_or_path)  # load_network says what it is
    )
    if not looks_like_a_path and not os.path.exists(name_or_path):
        raise ValueError(unknown_network_message(name_or_path))  # a mistyped name
    return load_network(name_or_path, batch=batch, bytes_per_element=bytes_per_element)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dnnmem", description=_DESCRIPTION)
    p.add_argument("--version", action="version", version=f"dnnmem {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    names = f"a JSON network file or one of: {', '.join(networks())}"
    s = sub.add_parser("summary", help="summarise a network (built-in name or JSON file)")
    s.add_argument("network", help=names)
    s.add_argument("--batch", type=int, default=1, help="mini-batch size (default 1)")
    s.add_argument(
        "--bytes-per-element",
        type=int,
        default=4,
        help="bytes per tensor element: 4 = FP32 (default), 2 = FP16 / BF16",
    )
    s.add_argument(
        "--steps",
        type=int,
        default=0,
        metavar="K",
        help="also print the first K steps of the schedule",
    )
    e = sub.add_parser("estimate", help="estimate one training iteration at one design point")
    e.add_argument("--network", required=True, help=names)
    e.add_argument("--batch", type=int, default=1, help="mini-batch size (default 1)")
    e.add_argument(
        "--hardware",
        metavar="PRESET",
        help="a hardware preset (dnnmem presets) giving capacity, bandwidth and "
        "throughput (and, for an NPU, its compute model)",
    )
    e.add_argument(
        "--precision",
        choices=list(PRECISIONS),
        help="with --hardware: the data type. It sets both the throughput (the "
        "preset's peak at this precision) and the element size (4 bytes for "
        "fp32 / tf32, 2 for bf16 / fp16, 1 for fp8 / int8). Default: the "
        "preset's default precision (fp32 on most chips)",
    )
    e.add_argument(
        "--bytes-per-element",
        type=int,
        metavar="B",
        help="bytes per tensor element (default: the precision's, else 4 = FP32); "
        "a value other than the precision's is a mixed-precision estimate and "
        "is noted on stderr",
    )
    e.add_argument(
        "--capacity",
        help="on-chip capacity, "
        + _NUMBERS.format("bytes")
        + f" (default: the preset's, else {DEFAULT_CAPACITY})",
    )
    e.add_argument(
        "--bandwidth",
        help="off-chip bandwidth, "
        + _NUMBERS.format("bytes/s")
        + f" (default: the preset's, else {DEFAULT_BANDWIDTH})",
    )
    e.add_argument(
        "--throughput",
        help="compute throughput, "
        + _NUMBERS.format("FLOP/s")
        + f" (default: the preset's, else {DEFAULT_THROUGHPUT})",
    )
    e.add_argument(
        "--memory-type",
        metavar="TECH",
        help="off-chip memory (or host link) technology of the energy, area and cost model: "
        + ", ".join(memory_technologies())
        + f" (default: the preset's, else {DEFAULT_MEMORY}; docs/model/energy.md)",
    )
    e.add_argument(
        "--node",
        help="process node of the energy, area and cost model, e.g. 7nm "
        f"(default: the preset's, else {DEFAULT_NODE})",
    )
    e.add_argument(
        "--clock",
        help="clock of the area model (MAC units = throughput / 2 / clock), Hz or e.g. "
        f"1.41GHz (default: the preset's, else {DEFAULT_CLOCK / 1e9:.4g}GHz)",
    )
    e.add_argument(
        "--policy",
        default="lookahead",
        help="a policy: a cache manager's name, or parts joined by '+', e.g. "
        "'split-backward + lru + ratio(activation=2)' (see `dnnmem policies`; "
        "default lookahead)",
    )
    e.add_argument(
        "--fusion",
        choices=("none", "pointwise", "accelerator"),
        help="operator fusion (docs/model/fusion.md): none (one step per layer, the "
        "default), pointwise (as PyTorch Inductor / XLA in training), accelerator (also "
        "each convolution or GEMM with its point-wise consumers); sets the policy's level",
    )
    e.add_argument(
        "--ops-per-mac",
        type=int,
        default=2,
        choices=(1, 2),
        help="FLOPs per multiply-accumulate (default 2)",
    )
    e.add_argument("--by-kind", action="store_true", help="also print the time by layer kind")
    e.add_argument(
        "--json",
        action="store_true",
        help="print the result as one JSON object: every total of the Python API's "
        "Result.to_dict() (SI base units) and the plan counts, with a 'units' map giving "
        "each key's unit",
    )
    w = sub.add_parser(
        "sweep",
        help="evaluate a grid of design points from a YAML file",
        description="Evaluate the grid of a YAML sweep specification "
        "(format: docs/sweeps.md) and write one row per design "
        "point.",
    )
    w.add_argument("spec", help="the YAML sweep specification")
    w.add_argument(
        "-o",
        "--out",
        required=True,
        help="output file: .parquet (needs pyarrow; re-runs skip points already there) or .csv",
    )
    w.add_argument("--threads", type=int, help="C++ threads (default: all cores)")
    w.add_argument(
        "--fusion",
        nargs="+",
        choices=("none", "pointwise", "accelerator"),
        help="fusion level(s) every policy is taken at (docs/model/fusion.md); "
        "overrides the file's key 'fusion'",
    )
    w.add_argument(
        "--executor",
        choices=("local", "dask"),
        default="local",
        help="where to evaluate: this machine (default) or a Dask cluster",
    )
    w.add_argument(
        "--scheduler", metavar="ADDRESS", help="the Dask scheduler address (with --executor dask)"
    )
    w.add_argument("--no-progress", action="store_true", help="no progress bar")
    w.add_argument(
        "--plot",
        metavar="PNG",
        help="also draw traffic and time vs capacity into this image file, one "
        "panel pair per network (needs matplotlib)",
    )
    pr = sub.add_parser("presets", help="list the hardware presets")
    pr.add_argument("--group", help="only this group (e.g. thesis)")
    formats = (
        "darknet .cfg, ONNX .onnx (needs onnx), Keras .keras / .h5 (needs keras), "
        "PyTorch .pt2 / .pt / .pth saved by torch.export (needs torch)"
    )
    i = sub.add_parser(
        "import",
        help="convert a model file to a JSON network: " + formats,
        description="Convert a model file to a JSON network (docs/importers.md)."
        " Formats: " + formats + ".",
    )
    i.add_argument("model", help="the model file: " + formats)
    i.add_argument("-o", "--output", required=True, help="the JSON network file to write")
    i.add_argument("--batch", type=int, default=1, help="batch of the printed summary (default 1)")
    i.add_argument(
        "--no-strict",
        dest="strict",
        action="store_false",
        help="import unsupported operators as zero-FLOP placeholders (warns)",
    )
    sub.add_parser("networks", help="list the built-in networks")
    sub.add_parser(
        "policies",
        help="list the parts a policy is composed of: schedulers, "
        "cache managers, links, compute models, with their options",
    )
    return p


#: The options of `dnnmem estimate` that set a field of the technology (Hardware's names).
_TECHNOLOGY_OPTIONS = {"memory_type": "--memory-type", "node": "--node", "clock": "--clock"}


def _hardware(args: argparse.Namespace) -> Hardware:
    try:
        return _hardware_of(args)
    except ValueError as e:
        # Hardware names its field ("memory_type: ..."); the command line, the option.
        field, sep, rest = str(e).partition(": ")
        if sep and field in _TECHNOLOGY_OPTIONS:
            raise ValueError(f"{_TECHNOLOGY_OPTIONS[field]}: {rest}") from None
        raise


def _hardware_of(args: argparse.Namespace) -> Hardware:
    given = {
        k: getattr(args, k)
        for k in ("capacity", "bandwidth", "throughput", *_TECHNOLOGY_OPTIONS)
        if getattr(args, k) is not None
    }
    if args.hardware is None:
        if args.precision is not None:
            raise ValueError("--precision needs --hardware")
        return Hardware(**given)  # the defaults are Hardware()'s
    from .presets import hardware

    options = {} if args.precision is None else {"precision": args.precision}
    try:
        return hardware(args.hardware, **options, **given)
    except ValueError as e:
        if str(e).startswith("capacity:") and "capacity" not in given:  # unpublished (b200)
            raise ValueError(f"{e} (here: --capacity 50MiB)") from None
        raise


def _print_presets(group: str | None) -> None:
    from .presets import hardware_presets

    df = hardware_presets(group=group) if group else hardware_presets()
    print(f"{'preset':<16} {'on-chip':>10}  {'off-chip':>11}  throughput by precision")
    for key, rows in df.groupby("key", sort=False):
        first = rows.iloc[0]
        cap = "—" if pd.isna(first["capacity"]) else format_bytes(int(first["capacity"]))
        rates = ", ".join(
            f"{r.precision} {format_throughput(r.throughput)}" for r in rows.itertuples()
        )
        print(
            f"{key:<16} {cap:>10}  {format_bandwidth(first['bandwidth']):>11}  {rates}"
            f"  — {first['name']}"
        )


def _plot_path(path: str) -> str:
    """The image file --plot writes: PATH itself, or PATH.png without an extension (matplotlib
    writes that, and the message should name it); ValueError for a format matplotlib lacks."""
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if not suffix:
        return path + ".png"
    if suffix not in formats:
        raise ValueError(
            f"--plot: {path!r}: no image format '{suffix}' (known: {', '.join(sorted(formats))})"
        )
    return path


def _plot_sweep(df: pd.DataFrame, path: str) -> None:
    """Traffic and time vs capacity (thesis Figs. 5.2 and 5.3), one row of two panels per
    network, so that no panel carries more lines than a legend can hold."""
    from . import plots

    fig = plots.sweep_overview(df)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_atomically(path, lambda tmp: fig.savefig(tmp, dpi=110), "--plot")
    print(f"plot -> {path}")


def _summary(df: pd.DataFrame, out: str) -> str:
    """One line per (network, batch): its fastest design point. Times of different networks
    or batches are different amounts of work, so they are not compared with each other."""
    lines = [
        f"{len(df)} design point{'' if len(df) == 1 else 's'} -> {out}; fastest design point "
        f"of each network "
        f"(time per iteration):"
    ]
    for (name, batch), g in df.groupby(["network", "batch"], sort=False, observed=True):
        best = g.loc[g["time"].idxmin()]
        lines.append(
            f"  {name} (batch {batch}): {format_time(best['time'])} at "
            f"{format_bytes(best['capacity'])}, {format_bandwidth(best['bandwidth'])}, "
            f"{format_throughput(best['throughput'])}, {best['policy']}"
        )
    return "\n".join(lines)


def _sweep(args: argparse.Namespace) -> int:
    """``dnnmem sweep``: its exit status (130 when Ctrl-C stopped it)."""
    from .sweep import SweepInterrupted, _write_rows, sweep
    from .sweep_spec import read_sweep_spec

    out = str(args.out)
    if not out.endswith((".parquet", ".csv")):
        raise ValueError(f"--out: {out!r} must end in .parquet or .csv")
    if args.scheduler and args.executor != "dask":
        raise ValueError("--scheduler needs --executor dask")
    if args.executor == "dask" and not args.scheduler:
        raise ValueError("--executor dask needs --scheduler ADDRESS")
    # Every optional package the run will need, before the sweep runs.
    if out.endswith(".parquet"):
        require("pyarrow", f"--out {out} (Parquet)", "fastparquet")
    if args.plot:
        require("matplotlib", "--plot")
        args.plot = _plot_path(args.plot)  # before the sweep: a bad format must not waste it
    if args.executor == "dask":
        require("distributed", "--executor dask")
    kwargs = read_sweep_spec(args.spec)
    from_file = set(kwargs)
    if args.threads is not None:
        from_file.discard("threads")
        kwargs["threads"] = args.threads
    if args.fusion is not None:
        from_file.discard("fusion")
        kwargs["fusion"] = args.fusion
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    executor = None
    if args.executor == "dask":
        from distributed import Client

        from .cluster import dask

        executor = dask(Client(args.scheduler))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SweepInterrupted)  # said below, in words
            df = sweep(
                **kwargs,
                executor=executor,
                progress=not args.no_progress,
                out=out if out.endswith(".parquet") else None,
                on_interrupt="return",
            )
    except (ValueError, TypeError) as e:
        # A bad value of the file's ("policy: unknown part ..."): name the file, as the
        # errors of its form do.
        if str(e).split(":", 1)[0] in from_file and not isinstance(e, NetworkError):
            kind = TypeError if isinstance(e, TypeError) else ValueError
            raise kind(f"{args.spec}: {e}") from None
        raise
    if df.attrs.get("interrupted"):
        print(f"dnnmem: interrupted: {_partial(df, out)}", file=sys.stderr)
        return 130  # 128 + SIGINT, as a shell reports a command ended by Ctrl-C
    if out.endswith(".csv"):  # written after the work: a failure keeps the rows (_write_rows)
        _write_rows(df, out, lambda d, path: d.to_csv(path, index=False), "--out")
    resumed = _resumed(df, out)
    if resumed:
        print(resumed)
    if args.plot:
        _plot_sweep(df, args.plot)
    print(_summary(df, out))
    return 0


def _partial(df: pd.DataFrame, out: str) -> str:
    """What an interrupted sweep left, and what to do next."""
    points = df.attrs.get("points")
    if points is None:  # Ctrl-C before the grid was built
        return "no point was evaluated yet; rerun the same command to start the sweep"
    if out.endswith(".parquet"):
        return f"partial: {len(df)} of {points} points in {out}, rerun the same command to resume"
    return (
        f"{len(df)} of {points} points were done, and are not written: a .csv is written once "
        f"the sweep completes ({out} is as it was). Rerun the same command to start over, or "
        f"write to a .parquet file, whose finished points a rerun keeps"
    )


def _resumed(df: pd.DataFrame, out: str) -> str:
    """The line a resumed sweep prints: how many of its points were in ``out`` already."""
    reused, points = int(df.attrs.get("reused", 0)), int(df.attrs.get("points") or len(df))
    if not reused:
        return ""
    if reused == points:
        return (
            f"all {points} points were in {out} already: none evaluated (delete the file to "
            f"evaluate them again)"
        )
    return (
        f"resumed: {reused} of {points} points were in {out} already; evaluated the other "
        f"{points - reused}"
    )


def _estimate(args: argparse.Namespace) -> None:
    from .estimate import estimate

    hw = _hardware(args)
    size = args.bytes_per_element
    if size is None:
        size = hw.bytes_per_element or 4
    elif hw.bytes_per_element is not None and size != hw.bytes_per_element:
        print(
            f"dnnmem: note: --bytes-per-element {size} with precision {hw.precision} "
            f"({hw.bytes_per_element} B/element): the throughput is the {hw.precision} peak, "
            f"the traffic that of {size}-byte elements (mixed precision)",
            file=sys.stderr,
        )
    net = _load(args.network, args.batch, size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrecisionWarning)  # said above, in one line
        pol = args.policy
        if args.fusion is not None:
            from .policy import policy as as_policy

            pol = as_policy(pol).replace(fusion=args.fusion)
        r = estimate(net, hw, pol, ops_per_mac=args.ops_per_mac)
    if args.json:
        print(json.dumps(_result_json(r, args.by_kind), indent=1))
        return
    print(r)
    if args.by_kind:
        share = r.by_kind() / r.time
        for kind, sec in r.by_kind().items():
            print(f"  {kind:<16} {format_time(sec):>10}  {share[kind]:6.1%}")


#: Units of the keys of `dnnmem estimate --json` that no table has.
_JSON_UNITS = {
    "bytes_per_element": "bytes",
    "ops_per_mac": "FLOP/MAC",
    "time_by_kind": "s",
    "max_link_ratio": "×",
    "memory_type": "",
    "node": "",
    "clock": "Hz",
}


def _result_json(r: Result, by_kind: bool) -> dict[str, Any]:
    """``dnnmem estimate --json``: the totals of ``r.to_dict()``, the FLOPs, the plan counts,
    the element size and FLOPs per MAC, the technology of the joules and mm² (``memory_type``,
    ``node``, ``clock``) (and the time by kind), with ``units``: each key's unit
    ("" for names and labels). A number that is not finite is null."""
    from .sweep import column_units

    row: dict[str, Any] = {
        **r.to_dict(),
        "bytes_per_element": r.network.bytes_per_element,
        "ops_per_mac": r.ops_per_mac,
        "flops": r.flops,
        **r.counts,
        # The technology the joules and mm² are at (the defaults where the hardware names none).
        "memory_type": r.hardware.memory_type or DEFAULT_MEMORY,
        "node": r.hardware.node or DEFAULT_NODE,
        "clock": r.hardware.clock or DEFAULT_CLOCK,
    }
    if r.sparsity_source:  # a compressing link
        row["sparsity_source"] = r.sparsity_source
        row["max_link_ratio"] = r.max_link_ratio
    if by_kind:
        row["time_by_kind"] = {str(k): float(v) for k, v in r.by_kind().items()}
    for k, v in row.items():
        if isinstance(v, float) and not math.isfinite(v):
            row[k] = None
        elif hasattr(v, "item"):  # a NumPy scalar
            row[k] = v.item()
    units = column_units([k for k in row if k not in _JSON_UNITS])
    units.update({k: u for k, u in _JSON_UNITS.items() if k in row})
    return {**row, "units": units}


def _say_warnings(caught: list[warnings.WarningMessage]) -> None:
    """An importer's warnings as one line each on stderr (``dnnmem: note: ...`` for a
    BatchNorm folded by the exporter, ``dnnmem: warning: ...`` for the others), not Python's
    two lines with a source line; warnings of other packages as Python shows them."""
    from .importers import FoldedBatchNormWarning, ImporterWarning

    for w in caught:
        if issubclass(w.category, ImporterWarning):
            label = "note" if issubclass(w.category, FoldedBatchNormWarning) else "warning"
            print(f"dnnmem: {label}: {w.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def _silence_stdout() -> None:
    """Point file descriptor 1 at the null device, so that the interpreter's last flush of
    output nobody reads cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a file (captured, closed)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``dnnmem`` and ``python -m dnnmem``.

    Output piped into a command that stops reading (``dnnmem networks | head -3``) ends the
    command quietly with status 141, as a process ended by SIGPIPE would."""
    try:
        try:
            return _main(argv)
        finally:
            if sys.stdout is not None:  # (None under pythonw)
                sys.stdout.flush()  # here, where a closed pipe is still ours to handle
    except BrokenPipeError:
        _silence_stdout()
        return 128 + 13  # SIGPIPE


#: Options whose value may be written with a sign: argparse takes "-5MiB" for an option of its
#: own ("expected one argument"), so "--capacity -5MiB" is read as "--capacity=-5MiB" and gets
#: the option's own message.
_SIGNED_VALUES = (
    "--capacity",
    "--bandwidth",
    "--throughput",
    "--clock",
    "--steps",
    "--threads",
)


def _join_signed_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    for arg in argv:
        if out and out[-1] in _SIGNED_VALUES and re.match(r"-\.?\d", arg):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _main(argv: Sequence[str] | None) -> int:
    args = _parser().parse_args(_join_signed_values(sys.argv[1:] if argv is None else argv))
    try:
        if args.command == "networks":
            print("\n".join(networks()))
        elif args.command == "policies":
            from .estimate import policies

            table = policies()
            for kind, rows in table.groupby("kind", sort=False):
                print(f"{kind}:")
                for row in rows.itertuples():
                    print(f"  {row.name:<15} {row.description}")
                    if row.options:
                        print(f"  {'':<15} options: {row.options}")
        elif args.command == "estimate":
            _estimate(args)
        elif args.command == "presets":
            _print_presets(args.group)
        elif args.command == "sweep":
            return _sweep(args)
        elif args.command == "import":
            from .importers import ImporterWarning, import_model

            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", ImporterWarning)
                    doc = import_model(args.model, strict=args.strict, document=True)
                _say_warnings(caught)
            except MissingDependency:
                raise  # names the extra to install (below)
            except ImportError as e:  # an importer's package failing inside (e.g. no backend)
                raise ValueError(str(e)) from None
            net = load_network(doc, batch=args.batch)
            net.save(args.output)
            print(f"{args.model} -> {args.output}")
            print(net.summary())
        elif args.command == "summary":
            if args.steps < 0:
                raise ValueError(f"--steps: must be >= 0, got {args.steps}")
            net = _load(args.network, args.batch, args.bytes_per_element)
            print(net.summary())
            if args.steps > 0:
                cols = {
                    "step": "step",
                    "name": "name",
                    "kind": "kind",
                    "class": "class",
                    "flops": "FLOP",
                    "bytes_read": "read [B]",
                    "bytes_written": "written [B]",
                    "rf": "rf [FLOP/B]",
                }
                table = net.steps[list(cols)].head(args.steps).rename(columns=cols)
                print(
                    f"first {len(table)} of {net.num_steps} steps (bytes as if every access "
                    "were streamed):"
                )
                print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    except BrokenPipeError:
        raise  # the reader went away: main() ends quietly
    except (NetworkError, ValueError, TypeError, OSError) as e:
        print(f"dnnmem: error: {e}", file=sys.stderr)
        return 2
    except ImportError as e:
        if (e.name or "dnnmem").split(".")[0] == "dnnmem":
            raise  # a bug of ours, not a missing optional package
        if isinstance(e, MissingDependency):
            print(f"dnnmem: error: {e}", file=sys.stderr)
        else:
            print(
                f"dnnmem: error: this command needs the package {e.name!r} ({e}): "
                f"{install_hint(e.name or '')}",
                file=sys.stderr,
            )
        return 2
    except KeyboardInterrupt:
        print("dnnmem: interrupted", file=sys.stderr)
        return 130
    return 0

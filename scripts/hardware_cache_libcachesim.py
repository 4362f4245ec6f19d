"""Record libCacheSim's LRU and FIFO on the line traces of a few networks, for the check of
``lru(hardware=on)`` / ``fifo(hardware=on)`` (docs/model/onsram.md, rule O11).

The trace is built from the schedule alone (never from dnnmem's plan): every full access, in
step and access-list order, is one request per line of its tensor (tensor t's lines in
ascending order, object id = the line's global index, size 1), and the cache holds
capacity // line objects. libCacheSim (https://github.com/1a1a11a/libCacheSim, PyPI
``libcachesim``) answers hit or miss per request; from these alone the script derives what
rule O11 charges:

- loaded bytes: the bytes of the lines of read requests that miss;
- written-back bytes: each residency of a line (from a miss to the next miss of that line, or
  to the end) that saw a write is written back once, by eviction or at the end (H3, H6);
- kept: the full reads all of whose lines hit.

It writes ``tests/data/hardware_cache_libcachesim.json`` (tool, version, command,
the cases and their results), which ``tests/python/test_onsram_hardware_cache.py`` reads; the
tests never need libCacheSim.

    python scripts/hardware_cache_libcachesim.py
"""

from __future__ import annotations

import bisect
import json
import sys
from pathlib import Path

import dnnmem

OUT = Path(__file__).resolve().parents[1] / "tests/data/hardware_cache_libcachesim.json"
KiB = 1024
#: (network, batch, bytes per element, scheduler, capacity in bytes, line in bytes)
CASES = [
    ("squeezenet", 1, 2, "inference", 2048 * KiB, 64),
    ("mobilenet_v1", 1, 2, "inference(order=hybrid)", 512 * KiB, 256),
    ("resnet18", 1, 2, "default", 1024 * KiB, 512),
]


def run(lcs, net: dnnmem.Network, capacity: int, line: int, fifo: bool) -> dict:
    """libCacheSim's answers on the line trace of ``net``'s schedule, as rule O11's bytes."""
    sch = net.schedule
    st, at, tt = sch.step_table(), sch.access_table(), sch.tensor_table()
    size = [int(b) for b in tt["bytes"]]
    first = [0]
    for b in size:
        first.append(first[-1] + -(-b // line))
    slots = capacity // line
    cache = (lcs.FIFO if fifo else lcs.LRU)(cache_size=slots, hashpower=20)
    loaded = written_back = kept = requests = 0
    dirty: dict[int, bool] = {}  # line -> its current residency saw a write
    k = 0
    for s in range(len(st["num_accesses"])):
        for _ in range(int(st["num_accesses"][s])):
            t, read, write, partial = (
                int(at["tensor"][k]),
                bool(at["read"][k]),
                bool(at["write"][k]),
                bool(at["partial"][k]),
            )
            k += 1
            if partial:
                raise ValueError("partial accesses are streamed (H5): pick a network without them")
            all_hit = True
            for j in range(first[t], first[t + 1]):
                nbytes = min(line, size[t] - (j - first[t]) * line)
                hit = cache.get(lcs.Request(obj_size=1, obj_id=j))
                requests += 1
                if not hit:
                    all_hit = False
                    if dirty.get(j):  # the previous residency ended dirty
                        written_back += nbytes
                    dirty[j] = False
                    if read:
                        loaded += nbytes
                if write:
                    dirty[j] = True
            kept += read and all_hit
    for j, d in dirty.items():  # residencies still open, or ended by an eviction, dirty
        if d:
            t = bisect.bisect_right(first, j) - 1
            written_back += min(line, size[t] - (j - first[t]) * line)
    return {
        "requests": requests,
        "loaded_bytes": loaded,
        "written_back_bytes": written_back,
        "kept": kept,
    }


def main() -> None:
    try:
        import libcachesim as lcs
    except ImportError:
        sys.exit("this script needs libCacheSim: pip install libcachesim")
    rows = []
    for name, batch, bpe, scheduler, capacity, line in CASES:
        net = dnnmem.network(name, batch=batch, bytes_per_element=bpe).with_scheduler(scheduler)
        for policy in ("lru", "fifo"):
            res = run(lcs, net, capacity, line, policy == "fifo")
            rows.append(
                {
                    "network": name,
                    "batch": batch,
                    "bytes_per_element": bpe,
                    "scheduler": scheduler,
                    "capacity": capacity,
                    "line": line,
                    "policy": policy,
                    **res,
                }
            )
            print(rows[-1], flush=True)
    doc = {
        "tool": "libCacheSim (Python package libcachesim)",
        "version": lcs.__version__,
        "dnnmem": dnnmem.__version__,
        "command": "python scripts/hardware_cache_libcachesim.py",
        "trace": "one request per line of each full access, step and access-list order, "
        "object size 1, cache_size = capacity // line (see the script's docstring)",
        "cases": rows,
    }
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""Keeping results (issue 26, "What users expect"): ``Result`` and ``Network`` pickle (process
pools, joblib), ``Result.save`` / ``dnnmem.load_result`` give back an equal result, and
``dnnmem estimate --json`` prints every total of ``estimate()`` with its unit.

Before: ``pickle.dumps(result)`` raised ``TypeError: cannot pickle 'dnnmem._core.Network'``,
and there was no file format nor ``--json``.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dnnmem
from dnnmem.cli import main
from dnnmem.estimate import RUN_TOTALS

#: One policy per kind of output: tile walk (tile_table), pins (pin_table), a compressing link
#: with a sparsity table (sparsity_source, max_link_ratio), a serialized schedule (groups).
CASES = [
    ("split-backward(order=best) + lru", {}),
    ("onsram-static(alpha=0.5, split=phase)", {}),
    ("zvc", {"sparsity": {"conv1": 0.25}}),
    ("mbs + mbs-strict", {}),
]


def _tables_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    assert a.attrs == b.attrs


def _same_network(a: dnnmem.Network, b: dnnmem.Network) -> None:
    assert a == b and a.name == b.name and a.source == b.source
    for table in ("layers", "tensors", "accesses", "steps"):
        _tables_equal(getattr(a, table), getattr(b, table))
    assert (a.params, a.trainable_params, a.flops, a.num_steps, a.peak_alive_bytes) == (
        b.params,
        b.trainable_params,
        b.flops,
        b.num_steps,
        b.peak_alive_bytes,
    )


def _same_result(a: dnnmem.Result, b: dnnmem.Result) -> None:
    """Every field and table of two results."""
    assert a.to_dict() == b.to_dict()
    fields = [
        *RUN_TOTALS,
        "counts",
        "sparsity_source",
        "max_link_ratio",
        "pinned",
        "pinned_bytes",
        "recompute_time",
        "policy",
        "composition",
        "hardware",
        "ops_per_mac",
        "energy_model",
        "traffic_in_by_role",
        "traffic_out_by_role",
        "groups",
        "sub_batches",
        "gb_bytes",
        "macs",
    ]
    for f in fields:
        assert getattr(a, f) == getattr(b, f), f
    for f in ("energy", "energy_dram_share"):  # NaN when there is no energy
        x, y = getattr(a, f), getattr(b, f)
        assert x == y or (math.isnan(x) and math.isnan(y)), f
    _tables_equal(a.steps, b.steps)
    _tables_equal(a.pin_table(), b.pin_table())
    pd.testing.assert_series_equal(a.by_kind(), b.by_kind(), check_exact=True)
    pd.testing.assert_series_equal(a.by_class(), b.by_class(), check_exact=True)
    assert a._core.tile_table() == b._core.tile_table()
    assert a._core.counts == b._core.counts and a._core.pins == b._core.pins
    assert repr(a) == repr(b) and a._repr_html_() == b._repr_html_()
    _same_network(a.network, b.network)


@pytest.mark.parametrize("policy, options", CASES)
def test_a_result_pickles_and_saves(tmp_path: Path, policy: str, options: dict[str, Any]) -> None:
    r = dnnmem.estimate("resnet18", batch=4, capacity="2MiB", policy=policy, **options)
    again = pickle.loads(pickle.dumps(r))
    _same_result(r, again)
    _same_result(r, pickle.loads(pickle.dumps(again)))  # a stored result pickles too
    path = tmp_path / "r.json"
    r.save(path)
    loaded = dnnmem.load_result(path)
    _same_result(r, loaded)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (doc["format"], doc["version"], doc["dnnmem"]) == (
        "dnnmem-result",
        1,
        dnnmem.__version__,
    )
    # The baseline is estimated anew, with the same sparsity table.
    assert loaded.baseline.to_dict() == r.baseline.to_dict()


def test_a_loaded_result_is_the_saved_one_not_a_new_estimate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    r = dnnmem.estimate("resnet18", capacity="4MiB")
    path = tmp_path / "r.json"
    r.save(path)
    monkeypatch.setattr(dnnmem._core, "estimate", None)  # no engine: nothing is estimated
    _same_result(r, dnnmem.load_result(path))


def test_a_network_pickles() -> None:
    for net in (
        dnnmem.network("mobilenet_v2", batch=3, bytes_per_element=2),
        dnnmem.network("resnet18").with_scheduler("split-backward(first=dw)"),
        dnnmem.load_network({"layers": [{"name": "x", "kind": "input", "shape": [4]}]}),
    ):
        _same_network(net, pickle.loads(pickle.dumps(net)))


def test_a_file_that_is_not_a_result_or_too_new(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"layers": []}', encoding="utf-8")
    with pytest.raises(ValueError) as e:
        dnnmem.load_result(path)
    assert str(e.value) == (
        f'{path}: not a saved dnnmem result (no "format": "dnnmem-result"); Result.save() '
        f"writes one"
    )
    path.write_text('{"format": "dnnmem-result", "version": 2, "dnnmem": "9.0"}', encoding="utf-8")
    with pytest.raises(ValueError) as e:
        dnnmem.load_result(path)
    assert str(e.value) == (
        f"{path}: a result file of version 2, written by dnnmem 9.0; this dnnmem "
        f"({dnnmem.__version__}) reads version 1 and older: upgrade dnnmem"
    )
    path.write_text("not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"x\.json: not a saved dnnmem result \(not JSON: "):
        dnnmem.load_result(path)


def test_estimate_json_is_the_api_s_result_with_units(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--network", "resnet18", "--batch", "2", "--capacity", "8MiB"]
    assert main([*argv, "--policy", "lru + zvc", "--json", "--by-kind"]) == 0
    doc = json.loads(capsys.readouterr().out)
    r = dnnmem.estimate("resnet18", batch=2, capacity="8MiB", policy="lru + zvc")
    units = doc.pop("units")
    assert doc.pop("time_by_kind") == r.by_kind().to_dict()
    expected = {
        **r.to_dict(),
        "bytes_per_element": 4,
        "ops_per_mac": 2,
        "flops": r.flops,
        **r.counts,
        "sparsity_source": "rule",
        "max_link_ratio": r.max_link_ratio,
        # the technology of the joules and mm²: the defaults (no preset names one)
        "memory_type": "gddr6",
        "node": "12nm",
        "clock": 1.545e9,
    }
    assert doc == expected  # every number exactly (JSON floats read back to the same double)
    assert set(units) == set(doc) | {"time_by_kind"}
    numbers = [k for k, v in doc.items() if isinstance(v, (int, float))]
    assert [k for k in numbers if not units[k]] == []  # every number has its unit
    assert units["time"] == "s" and units["capacity"] == "bytes" and units["macs"] == "MAC"
    assert units["ops_per_mac"] == "FLOP/MAC" and units["time_by_kind"] == "s"
    # The default output is unchanged.
    assert main(argv) == 0
    assert capsys.readouterr().out.startswith("<dnnmem.Result resnet18, batch=2")

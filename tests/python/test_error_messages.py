"""Errors that were tracebacks or vague (issue 26, "Errors that are still tracebacks or vague"):
each is now one line naming the file, key, option or value, with the old message in a comment.
(The darknet ``[route]`` message is tested with the importer's other errors in
``test_import_darknet.py``, the option formatting of the C++ core in ``tests/cpp``.)
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import dnnmem
from dnnmem.cli import main
from dnnmem.sweep_spec import read_sweep_spec


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def _spec(tmp_path: Path, data: bytes) -> Path:
    p = tmp_path / "s.yaml"
    p.write_bytes(data)
    return p


def test_yaml_nested_too_deeply(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # was: a RecursionError traceback ("maximum recursion depth exceeded")
    spec = _spec(tmp_path, b"network: resnet18\ncapacity: " + b"[" * 1000 + b"1" + b"]" * 1000)
    code, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"))
    assert code == 2 and err == (
        f"dnnmem: error: {spec}: nested more than 64 levels deep (lists and mappings inside "
        f"each other); a sweep's values need two at most: a list of values, or a range "
        f"{{start, stop, step}}\n"
    )
    # The bound, where the network format has its own (a document may be given inline).
    nested = b"network: resnet18\ncapacity: " + b"[" * 63 + b"1" + b"]" * 63
    assert len(str(read_sweep_spec(_spec(tmp_path, nested))["capacity"])) == 2 * 63 + 1
    with pytest.raises(ValueError, match="nested more than 64 levels deep"):
        read_sweep_spec(_spec(tmp_path, nested.replace(b"1", b"[1]")))


def test_a_list_inside_a_list_of_values(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # was: "unhashable type: 'list'", naming neither file nor key
    spec = _spec(tmp_path, b"network: resnet18\ncapacity: [[1MiB]]\n")
    code, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"))
    assert code == 2 and err == (
        f"dnnmem: error: {spec}: capacity: expected a value or a list of values, got a list "
        f"inside the list: [['1MiB']] (one flat list, e.g. [1MiB, 2MiB], or one range "
        f"{{start, stop, step}} alone)\n"
    )
    with pytest.raises(ValueError) as e:
        dnnmem.sweep("resnet18", capacity=[[1]], progress=False)
    assert str(e.value) == (
        "capacity: expected a value or a list of values, got a list inside the list: [[1]] "
        "(one flat list, e.g. [1MiB, 2MiB], or one range {start, stop, step} alone)"
    )
    with pytest.raises(ValueError, match=r"^policy: expected a value or a list of values, got a "):
        dnnmem.sweep("resnet18", policy=[["lru", "fifo"]], progress=False)


def test_a_byte_order_mark(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # was: "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte", no file
    spec = _spec(tmp_path, b"\xff\xfenetwork: resnet18\n")
    code, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"))
    assert code == 2 and err == (
        f"dnnmem: error: {spec}: the file starts with a UTF-16 byte-order mark (b'\\xff\\xfe') "
        f"but its text does not read as UTF-16 mappings; save it as UTF-8\n"
    )
    # Bytes that are no text at all.
    spec = _spec(tmp_path, b"network: resnet18\ncapacity: \xff\n")
    code, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"))
    assert code == 2 and err.startswith(
        f"dnnmem: error: {spec}: not a text file in UTF-8 (or UTF-16 / UTF-32 with a byte-order "
        f"mark): "
    )
    assert err.endswith(" at byte 28\n")  # the reason is libyaml's or PyYAML's own words
    # A UTF-16 file with its mark, as PowerShell's `>` writes it, is read.
    text = "network: resnet18\ncapacity: [1MiB, 2MiB]\n"
    spec = _spec(tmp_path, b"\xff\xfe" + text.encode("utf-16-le"))
    assert read_sweep_spec(spec) == {"network": "resnet18", "capacity": ["1MiB", "2MiB"]}


def test_a_key_given_twice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # was: the last one silently (a sweep of 2 MiB only)
    spec = _spec(tmp_path, b"network: resnet18\ncapacity: 1MiB\nbatch: 2\ncapacity: 2MiB\n")
    code, err = _cli(capsys, "sweep", str(spec), "-o", str(tmp_path / "o.csv"))
    assert code == 2 and err == (
        f"dnnmem: error: {spec}: key 'capacity' is given twice (lines 2 and 4); YAML would keep "
        f"the last silently: remove one\n"
    )
    # Inside a range too.
    spec = _spec(tmp_path, b"network: resnet18\ncapacity: {start: 1, stop: 2, step: 1, stop: 3}\n")
    with pytest.raises(ValueError, match=r"key 'stop' is given twice \(lines 2 and 2\)"):
        read_sweep_spec(spec)


def test_a_misspelled_key_gets_a_suggestion(tmp_path: Path) -> None:
    # was: "unknown key(s) ['capacty'] (known: [...])"
    spec = _spec(tmp_path, b"network: resnet18\ncapacty: 1MiB\npolcy: lru\nxyz: 1\n")
    with pytest.raises(ValueError) as e:
        read_sweep_spec(spec)
    assert str(e.value) == (
        f"{spec}: unknown keys 'capacty' (did you mean 'capacity'?), 'polcy' (did you mean "
        f"'policy'?), 'xyz' (known: bandwidth, batch, capacity, clock, fusion, hardware, "
        f"max_points, memory_type, network, node, ops_per_mac, policy, precision, threads, "
        f"throughput)"
    )


def test_a_document_where_a_path_goes_is_not_echoed_whole() -> None:
    # was: a NetworkError of 200,054 characters (the document, as a file name)
    text = json.dumps({"name": "x" * 200_000, "layers": []})
    for load in (dnnmem.load_network, dnnmem.estimate):
        with pytest.raises(dnnmem.NetworkError) as e:
            load(text)
        assert str(e.value) == (
            '<string>: got a JSON document as a string (\'{"name": "xxxxxxxxxxxxxxxxxxxx\'...'
            "', \"layers\": []}' (200,026 characters)), where a path or a dict goes: pass "
            "json.loads(text) (on the command line: a .json file)"
        )
    # A name that is neither a file nor a built-in network: cut too.
    with pytest.raises(ValueError) as e2:
        dnnmem.estimate("y" * 300_000)
    assert len(str(e2.value)) < 1_000 and "(300,000 characters)" in str(e2.value)


@pytest.mark.parametrize(
    "policy, message",
    [
        # was: "sparsity target 2.0: out of reach of the rule (from 0.160 to 0.840 ...)"
        ("zvc(target=2)", "link 'zvc': option 'target' must be >= -1 and <= 1, got 2"),
        # was: "... must be >= 0.5 and <= 1048576, got 0.10000000000000001"
        (
            "ratio(activation=0.1)",
            "link 'ratio': option 'activation' must be >= 0.5 and <= 1048576, got 0.1",
        ),
        ("zvc(window=8.5)", "link 'zvc': option 'window' must be a whole number, got 8.5"),
    ],
)
def test_an_option_out_of_range_names_link_and_option(
    capsys: pytest.CaptureFixture[str], policy: str, message: str
) -> None:
    with pytest.raises(ValueError) as e:
        dnnmem.Policy.parse(policy)
    assert str(e.value) == message
    code, err = _cli(capsys, "estimate", "--network", "resnet18", "--policy", policy)
    assert code == 2 and err == f"dnnmem: error: {message}\n"


def test_half_a_byte_of_capacity_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    # was: capacity 0 B (no cache), silently
    code, err = _cli(capsys, "estimate", "--network", "resnet18", "--capacity", "0.5")
    assert code == 2 and err == (
        "dnnmem: error: capacity: '0.5' is not a whole number of bytes (did you mean 0.5KiB, "
        "0.5MiB or 0.5GiB?)\n"
    )

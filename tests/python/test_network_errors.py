"""Malformed networks (SPEC §2: "errors in a file ... are reported with the layer name and the
field, never a crash"): every one is a ``dnnmem.NetworkError`` (a ``ValueError``) whose message
names the file (or ``<dict>``), the layer and the field, and whose ``source`` / ``layer`` /
``field`` attributes say the same; bad ``batch`` / ``bytes_per_element`` arguments are plain
``ValueError``\\ s naming the argument."""

from __future__ import annotations

import copy
import importlib
import json

import numpy as np
import pytest

import dnnmem
from dnnmem import NetworkError, load_network

X = {"name": "x", "kind": "input", "shape": [4, 4, 3]}
OK = {
    "name": "ok",
    "layers": [
        X,
        {"name": "conv", "kind": "conv2d", "inputs": ["x"], "filters": 8, "kernel_size": 3},
        {"name": "relu", "kind": "relu", "inputs": ["conv"]},
        {"name": "gap", "kind": "global_avgpool", "inputs": ["relu"]},
    ],
}


def test_network_error_is_a_value_error():
    assert issubclass(NetworkError, ValueError)
    assert dnnmem.NetworkError is dnnmem._core.NetworkError
    # (dnnmem.network is the zoo's function; the module is dnnmem.network in sys.modules)
    assert importlib.import_module("dnnmem.network").NetworkError is NetworkError


def test_the_reference_document_loads():
    net = load_network(OK)
    assert net.layers["output_shape"].tolist() == [(4, 4, 3), (2, 2, 8), (2, 2, 8), (8,)]


# (layers, layer, field, detail) — detail is the exact text after "layer '…', field '…': ".
CASES = {
    "unknown kind": (
        [X, {"name": "c", "kind": "frobnicate", "inputs": ["x"]}],
        "c",
        "kind",
        "unknown kind 'frobnicate' (known: input, conv2d, ",
    ),
    "unknown input": (
        [X, {"name": "c", "kind": "relu", "inputs": ["nope"]}],
        "c",
        "inputs",
        "unknown input layer 'nope'",
    ),
    "unknown input, a close name": (  # was the same message, without the name meant
        [
            X,
            {"name": "conv1", "kind": "relu", "inputs": ["x"]},
            {"name": "c", "kind": "relu", "inputs": ["conv_1"]},
        ],
        "c",
        "inputs",
        "unknown input layer 'conv_1'; did you mean 'conv1'?",
    ),
    "duplicate name": (
        [
            X,
            {"name": "r", "kind": "relu", "inputs": ["x"]},
            {"name": "r", "kind": "relu", "inputs": ["x"]},
        ],
        "r",
        "name",
        "duplicate layer name",
    ),
    "duplicate of the input": (
        [X, {"name": "x", "kind": "relu", "inputs": ["x"]}],
        "x",
        "name",
        "duplicate layer name",
    ),
    "cycle": (
        [
            X,
            {"name": "a", "kind": "add", "inputs": ["x", "b"]},
            {"name": "b", "kind": "relu", "inputs": ["a"]},
        ],
        "a",
        "inputs",
        "the graph has a cycle: 'a' -> 'b' -> 'a'",
    ),
    "self loop": (
        [X, {"name": "a", "kind": "relu", "inputs": ["a"]}],
        "a",
        "inputs",
        "the layer reads its own output",
    ),
    "add of different shapes": (
        [
            X,
            {"name": "c", "kind": "conv2d", "inputs": ["x"], "filters": 5, "kernel_size": 1},
            {"name": "a", "kind": "add", "inputs": ["x", "c"]},
        ],
        "a",
        "inputs",
        "add of different shapes: 'x' is [4, 4, 3], 'c' is [4, 4, 5]",
    ),
    "missing field": (
        [X, {"name": "c", "kind": "conv2d", "inputs": ["x"], "kernel_size": 1}],
        "c",
        "filters",
        "is missing",
    ),
    "missing inputs": ([X, {"name": "c", "kind": "relu"}], "c", "inputs", "is missing"),
    "missing shape": ([{"name": "x", "kind": "input"}], "x", "shape", "is missing"),
    "negative field": (
        [X, {"name": "conv3", "kind": "conv2d", "inputs": ["x"], "filters": -8, "kernel_size": 1}],
        "conv3",
        "filters",
        "must be a positive integer, got -8",
    ),
    "negative shape": (
        [{"name": "x", "kind": "input", "shape": [-1, 3]}],
        "x",
        "shape",
        "must be a positive integer, got -1",
    ),
    "zero units": (
        [X, {"name": "d", "kind": "dense", "inputs": ["x"], "units": 0}],
        "d",
        "units",
        "must be a positive integer, got 0",
    ),
    "string for int": (
        [X, {"name": "d", "kind": "dense", "inputs": ["x"], "units": "8"}],
        "d",
        "units",
        "must be an integer, got a string",
    ),
    "fractional int": (
        [X, {"name": "d", "kind": "dense", "inputs": ["x"], "units": 8.5}],
        "d",
        "units",
        "must be an integer, got 8.5",
    ),
    "huge int": (
        [X, {"name": "d", "kind": "dense", "inputs": ["x"], "units": 10**30}],
        "d",
        "units",
        "value 1e+30 is too large",
    ),
    "unknown field (typo)": (
        [X, {"name": "c", "kind": "conv2d", "inputs": ["x"], "filter": 8, "kernel_size": 1}],
        "c",
        "filter",
        (
            "is not a field of a conv2d layer (its fields: filters, kernel_size, "
            "strides, padding, dilation, groups, use_bias)"
        ),
    ),
    "fused activation": (
        [
            X,
            {
                "name": "c",
                "kind": "conv2d",
                "inputs": ["x"],
                "filters": 1,
                "kernel_size": 1,
                "activation": "relu",
            },
        ],
        "c",
        "activation",
        "fused activations are not supported: ",
    ),
    "bool field": (
        [
            X,
            {
                "name": "c",
                "kind": "conv2d",
                "inputs": ["x"],
                "filters": 1,
                "kernel_size": 1,
                "use_bias": 1,
            },
        ],
        "c",
        "use_bias",
        "must be true or false, got an integer",
    ),
    "too many inputs": (
        [X, {"name": "r", "kind": "relu", "inputs": ["x", "x"]}],
        "r",
        "inputs",
        "a relu layer takes 1 input(s), got 2",
    ),
    "kernel larger than input": (
        [X, {"name": "c", "kind": "conv2d", "inputs": ["x"], "filters": 1, "kernel_size": 5}],
        "c",
        "kernel_size",
        "window 5 is larger than the padded input 4",
    ),
    "shared weight of another size": (
        [
            X,
            {"name": "a", "kind": "dense", "inputs": ["x"], "units": 3, "weights": "w"},
            {"name": "b", "kind": "dense", "inputs": ["a"], "units": 4, "weights": "w"},
        ],
        "b",
        "weights",
        "shares weight 'w' of 12 elements but needs 16",
    ),
    "matmul inner dimensions": (
        [
            {"name": "q", "kind": "input", "shape": [5, 8]},
            {"name": "k", "kind": "input", "shape": [6, 8]},
            {"name": "m", "kind": "matmul", "inputs": ["q", "k"]},
        ],
        "m",
        "inputs",
        "inner dimensions differ: [5, 8] @ [6, 8] (after heads / transposes)",
    ),
    "reshape": (
        [X, {"name": "r", "kind": "reshape", "inputs": ["x"], "target_shape": [5, -1]}],
        "r",
        "target_shape",
        "[5, -1] does not divide 48 elements",
    ),
    "dropout rate": (
        [X, {"name": "d", "kind": "dropout", "inputs": ["x"], "rate": 1.0}],
        "d",
        "rate",
        "must be a number in [0, 1), got 1.0",
    ),
    "dtype": (
        [{"name": "x", "kind": "input", "shape": [3], "dtype": "int8"}],
        "x",
        "dtype",
        'must be "float", "int32" or "int64", got "int8"',
    ),
    "lstm inputs": (
        [X, {"name": "l", "kind": "lstm_cell", "inputs": ["x", "x", "x", "x"], "units": 4}],
        "l",
        "inputs",
        "an lstm_cell takes [x], [x, h_prev] or [x, h_prev, c_prev], got 4 inputs",
    ),
}


def _message(source: str, layer: str, field: str, detail: str) -> str:
    where = ", ".join(
        p for p in (f"layer '{layer}'" if layer else "", f"field '{field}'" if field else "") if p
    )
    return f"{source}: {where}: {detail}" if where else f"{source}: {detail}"


@pytest.fixture(params=["dict", "file"])
def load(request, tmp_path):
    """Loads a document from a dict or from a file; returns (load function, expected source)."""
    if request.param == "dict":
        return (lambda doc, **kw: load_network(doc, **kw)), "<dict>"
    path = tmp_path / "net.json"

    def from_file(doc, **kw):
        path.write_text(json.dumps(doc), encoding="utf-8")
        return load_network(path, **kw)

    return from_file, str(path)


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_malformed_layer(case, load):
    layers, layer, field, detail = CASES[case]
    fn, source = load
    with pytest.raises(NetworkError) as info:
        fn({"layers": copy.deepcopy(layers)})
    e = info.value
    assert isinstance(e, ValueError)
    assert (e.source, e.layer, e.field) == (source, layer, field)
    assert e.detail.startswith(detail), e.detail
    assert str(e).startswith(_message(source, layer, field, detail)), str(e)
    assert str(e).startswith(f"{source}: layer '{layer}', field '{field}': ")
    assert "\n" not in str(e)


@pytest.mark.parametrize(
    ("doc", "layer", "field", "detail"),
    [
        ({"name": "n"}, "", "layers", "is missing"),
        ({"layers": {}}, "", "layers", "must be a list, got an object"),
        ({"layers": []}, "", "layers", "the network has no layers"),
        ({"layers": [X], "name": 3}, "", "name", "must be a string, got an integer"),
        ({"layers": [X, "relu"]}, "layers[1]", "", "must be an object, got a string"),
        ({"layers": [X, {"kind": "relu", "inputs": ["x"]}]}, "layers[1]", "name", "is missing"),
        (
            {"layers": [X, {"name": 5, "kind": "relu", "inputs": ["x"]}]},
            "layers[1]",
            "name",
            "must be a string, got an integer",
        ),
        (
            {"layers": [X, {"name": "", "kind": "relu", "inputs": ["x"]}]},
            "layers[1]",
            "name",
            "must not be empty",
        ),
    ],
    ids=[
        "no layers",
        "layers not a list",
        "empty layers",
        "name not a string",
        "layer not an object",
        "layer without name",
        "layer name not a string",
        "empty name",
    ],
)
def test_malformed_document(doc, layer, field, detail, load):
    fn, source = load
    with pytest.raises(NetworkError) as info:
        fn(doc)
    e = info.value
    assert (e.source, e.layer, e.field, e.detail) == (source, layer, field, detail)
    assert str(e) == _message(source, layer, field, detail)


def test_document_error_example_from_the_format_docs(tmp_path):
    """docs/network-format.md: `net.json: layer 'conv3', field 'filters': must be a positive
    integer, got -8`."""
    path = tmp_path / "net.json"
    path.write_text(json.dumps({"layers": CASES["negative field"][0]}), encoding="utf-8")
    with pytest.raises(NetworkError) as info:
        load_network(path)
    assert str(info.value) == (
        f"{path}: layer 'conv3', field 'filters': must be a positive integer, got -8"
    )


# --------------------------------------------------------------------------------------------
# Files that are not JSON documents
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (b"{not json", "not valid JSON: parse error at line 1, column 3: "),
        (b"", "not valid JSON: parse error at line 1, column 1: "),
        (
            b'{"layers": [{"name": "x", "kind": "input", "shape": [NaN]}]}',
            "not valid JSON: parse error at line 1, column ",
        ),
        (
            b'{"layers": [{"name": "x", "kind": "input", "shape": [1e999]}]}',
            "not valid JSON: number overflow parsing '1e999'",
        ),
        (b'{"layers": [{"na', "not valid JSON: parse error at line 1, column 17: "),
        (b'{"layers": []}\n trailing', "not valid JSON: parse error at line 2, column "),
        (b"[1, 2]", "the document must be a JSON object with a 'layers' list, got a list"),
        (b"[" * 10_000 + b"]" * 10_000, "the JSON is nested too deeply (more than 64 levels)"),
    ],
    ids=[
        "garbage",
        "empty",
        "NaN",
        "overflowing number",
        "truncated",
        "trailing text",
        "a list",
        "deep nesting",
    ],
)
def test_non_json_file(tmp_path, content, detail):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(NetworkError) as info:
        load_network(path)
    e = info.value
    assert (e.source, e.layer, e.field) == (str(path), "", "")
    assert e.detail.startswith(detail), e.detail
    assert str(e).startswith(f"{path}: {detail}")


def test_unreadable_paths(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(NetworkError) as info:
        load_network(missing)
    assert info.value.source == str(missing)
    assert str(info.value) == f"{missing}: cannot read the file: No such file or directory"
    with pytest.raises(NetworkError) as info:
        load_network(tmp_path)  # a directory
    assert info.value.source == str(tmp_path)
    assert str(info.value).startswith(f"{tmp_path}: cannot read the file: ")


def test_utf8_names_and_bom_are_fine(tmp_path):
    path = tmp_path / "utf8.json"
    doc = {"name": "café", "layers": [X, {"name": "rélu", "kind": "relu", "inputs": ["x"]}]}
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    n = load_network(path)
    assert n.name == "café"
    assert n.steps["name"].tolist() == ["F:rélu", "loss:rélu"]


NON_UTF8 = {  # (content, first bad byte, its offset)
    "in a name": (b'{"layers": [{"name": "\xff\xfe", "kind": "input", "shape": [1]}]}', 0xFF, 22),
    "outside strings": (b"\xff\xfe{}", 0xFF, 0),
    "encoded surrogate": (b'{"name": "\xed\xa0\x80", "layers": []}', 0xED, 10),
    "latin-1 text": ('{"name": "café", "layers": []}'.encode("latin-1"), 0xE9, 13),
}


@pytest.mark.parametrize(("content", "byte", "offset"), list(NON_UTF8.values()), ids=list(NON_UTF8))
def test_non_utf8_file(tmp_path, content, byte, offset):
    path = tmp_path / "bytes.json"
    path.write_bytes(content)
    with pytest.raises(NetworkError) as info:
        load_network(path)
    e = info.value
    detail = f"not UTF-8 text: byte 0x{byte:02X} at offset {offset} (JSON files must be UTF-8)"
    assert (e.source, e.layer, e.field, e.detail) == (str(path), "", "", detail)
    assert str(e) == f"{path}: {detail}"


@pytest.mark.parametrize(
    ("content", "excerpt"),
    [
        ('{"a": é}', "last read: '\"a\": \ufffd'"),
        ('{"layers": []}€', "[]}\ufffd'; expected end of input"),
    ],
    ids=["cut in a value", "cut after the document"],
)
def test_error_excerpt_cutting_a_character_is_decoded_leniently(tmp_path, content, excerpt):
    """Valid UTF-8 whose parse error quotes part of a multi-byte character: the stray bytes
    become U+FFFD instead of breaking the message (a UnicodeDecodeError)."""
    path = tmp_path / "cut.json"
    path.write_bytes(content.encode("utf-8"))
    with pytest.raises(NetworkError) as info:
        load_network(path)
    e = info.value
    assert e.detail.startswith("not valid JSON: parse error at line 1, column "), e.detail
    assert excerpt in e.detail, e.detail
    assert str(e) == f"{path}: {e.detail}"


# --------------------------------------------------------------------------------------------
# Dicts that are not JSON documents
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"]
)
def test_dict_with_a_non_finite_number_names_layer_and_field(value):
    doc = {"layers": [{"name": "x", "kind": "input", "shape": [value]}]}
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert (e.source, e.layer, e.field) == ("<dict>", "x", "shape")
    assert str(e) == f"<dict>: layer 'x', field 'shape': must be a finite number, got {value!r}"
    assert e.detail == f"must be a finite number, got {value!r}"  # the message ends with it


@pytest.mark.parametrize("value", [{1, 2}, object()], ids=["set", "object"])
def test_dict_that_is_not_json(value):
    doc = {"layers": [{"name": "x", "kind": "input", "shape": [value]}]}
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert e.source == "<dict>"
    assert str(e).startswith("<dict>: not a JSON document: ")
    assert e.detail.startswith("not a JSON document: ")


def test_nan_in_dict_names_layer_and_field():
    doc = {"layers": [X, {"name": "d", "kind": "dropout", "inputs": ["x"], "rate": float("nan")}]}
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert (e.source, e.layer, e.field) == ("<dict>", "d", "rate")
    assert str(e) == "<dict>: layer 'd', field 'rate': must be a finite number, got nan"


def test_nan_outside_the_layers_names_the_field():
    doc = {"name": float("nan"), "layers": [X]}
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert (e.source, e.layer, e.field) == ("<dict>", "", "name")
    assert str(e) == "<dict>: field 'name': must be a finite number, got nan"


def test_lone_surrogate_in_dict_is_a_network_error():
    doc = {"layers": [{"name": "\ud800", "kind": "input", "shape": [1]}]}
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert e.source == "<dict>"
    assert e.detail.startswith("not valid JSON: "), e.detail
    assert "surrogate" in e.detail
    assert str(e) == f"<dict>: {e.detail}"


# --------------------------------------------------------------------------------------------
# batch and bytes_per_element
# --------------------------------------------------------------------------------------------
BAD_BATCH = [0, -1, 1.5, 2.0, True, False, "2", None, np.float64(2.0)]


@pytest.mark.parametrize("batch", BAD_BATCH, ids=repr)
def test_bad_batch(batch):
    with pytest.raises(ValueError) as info:
        load_network(OK, batch=batch)
    assert not isinstance(info.value, NetworkError)
    assert str(info.value) == f"batch: must be an integer from 1 to 16777216, got {batch!r}"


@pytest.mark.parametrize("batch", BAD_BATCH, ids=repr)
def test_bad_batch_with_batch(batch):
    net = load_network(OK)
    with pytest.raises(ValueError, match=r"^batch: must be an integer from 1 to 16777216"):
        net.with_batch(batch)


BAD_BPE = [0, -4, 17, 2.0, True, "4", None]


@pytest.mark.parametrize("bpe", BAD_BPE, ids=repr)
def test_bad_bytes_per_element(bpe):
    with pytest.raises(ValueError) as info:
        load_network(OK, bytes_per_element=bpe)
    assert str(info.value) == f"bytes_per_element: must be an integer from 1 to 16, got {bpe!r}"


def test_argument_errors_come_before_reading_the_source(tmp_path):
    with pytest.raises(ValueError, match="^batch:"):
        load_network(tmp_path / "missing.json", batch=0)
    with pytest.raises(ValueError, match="^bytes_per_element:"):
        load_network({"not": "a network"}, bytes_per_element=0)


@pytest.mark.parametrize(("batch", "bpe"), [(np.int64(3), np.int32(2)), (1, 1), (2**24, 16)])
def test_good_arguments(batch, bpe):
    net = load_network(OK, batch=batch, bytes_per_element=bpe)
    assert (net.batch, net.bytes_per_element) == (int(batch), int(bpe))
    assert type(net.batch) is int and type(net.bytes_per_element) is int
    assert net.layers.loc[0, "output_bytes"] == batch * 48 * bpe


def test_batch_above_core_limit_is_a_value_error_naming_batch():
    with pytest.raises(ValueError) as info:
        load_network(OK, batch=2**24 + 1)
    assert not isinstance(info.value, NetworkError)
    assert str(info.value) == "batch: must be an integer from 1 to 16777216, got 16777217"


def test_batch_above_core_limit_fails_at_load():
    """Refused by load_network and with_batch themselves, not later when the schedule is
    built."""
    with pytest.raises(
        ValueError,
        match=r"^batch: must be an integer from 1 to 16777216, "
        r"got 16777217$",
    ):
        load_network(OK, batch=2**24 + 1)
    net = load_network(OK, batch=2**24)
    assert net.num_steps > 0  # the limit itself is fine
    with pytest.raises(ValueError, match=r"^batch: .*got 16777217$"):
        net.with_batch(2**24 + 1)


# --------------------------------------------------------------------------------------------
# Sizes at the limits
# --------------------------------------------------------------------------------------------
P = 2**31  # the largest value a field may hold


@pytest.mark.parametrize(
    "padding", [[[P // 2, P // 2], [P // 2, P // 2]], "same"], ids=["explicit", "same"]
)
def test_huge_pool_window_is_refused(padding):
    """A 2^31 x 2^31 window (every field within its limit) costs k_h·k_w = 2^62 FLOPs per output
    element: more than the core counts exactly, so it is refused at load, naming the field."""
    doc = {
        "layers": [
            {"name": "x", "kind": "input", "shape": [1, 1, 1]},
            # explicit: padded input 1 + 2^31 ≥ window 2^31 → output 2 x 2 x 1
            {
                "name": "p",
                "kind": "maxpool",
                "inputs": ["x"],
                "pool_size": P,
                "strides": 1,
                "padding": padding,
            },
        ]
    }
    with pytest.raises(NetworkError) as info:
        load_network(doc)
    e = info.value
    assert (e.source, e.layer, e.field) == ("<dict>", "p", "pool_size")
    assert "overflow" in e.detail


def test_sizes_beyond_the_limits_are_network_errors():
    for layers, layer, field in [
        ([{"name": "x", "kind": "input", "shape": [P, P]}], "x", "shape"),
        ([{"name": "x", "kind": "input", "shape": [P + 1]}], "x", "shape"),
        (
            [
                {"name": "x", "kind": "input", "shape": [2**30]},
                {"name": "d", "kind": "dense", "inputs": ["x"], "units": 2**30},
            ],
            "d",
            "units",
        ),
    ]:
        with pytest.raises(NetworkError) as info:
            load_network({"layers": layers})
        assert (info.value.layer, info.value.field) == (layer, field)
        assert "too large" in str(info.value) or "overflow" in str(info.value)


@pytest.mark.parametrize(
    "layers",
    [
        [{"name": "x", "kind": "input", "shape": [1], "dtype": "in\u0000t8"}],
        [{"name": "a\u0000b", "kind": "input", "shape": [-1]}],
    ],
    ids=["in a value", "in a layer name"],
)
def test_nul_does_not_truncate_the_message(layers):
    with pytest.raises(NetworkError) as info:
        load_network({"layers": layers})
    e = info.value
    assert "\x00" in e.detail + e.layer
    assert str(e) == _message("<dict>", e.layer, e.field, e.detail)
    assert str(e).endswith(e.detail)
    assert f"layer '{e.layer}'" in str(e)


def test_network_error_survives_other_pybind11_extensions():
    # Another extension's global translator (libcachesim maps std::runtime_error to
    # RuntimeError) must not turn our NetworkError into a RuntimeError: ours is module-local.
    pytest.importorskip("libcachesim")
    with pytest.raises(NetworkError, match="not valid JSON"):
        dnnmem._core.parse_network("{", "x.json")

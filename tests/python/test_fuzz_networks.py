"""Fuzzing the network loader (SPEC §2: malformed files are reported, "never a crash").

Valid seed documents (a small CNN with a residual add and a concat, an attention block, an
embedding + LSTM sequence) are mutated at random — fields dropped or given values of the wrong
type, huge / negative / NaN / infinite numbers, dangling inputs, cycles, duplicate names, deep
nesting, truncation, random bytes — and loaded. Every outcome must be one of:

- the network loads, and then its tables (``layers``, ``steps``, ``tensors``, ``accesses``),
  ``flops``, ``repr`` and ``summary`` compute, consistently with each other;
- ``dnnmem.NetworkError`` naming the source;
- a ``ValueError`` about the batch (a bad ``batch`` / ``bytes_per_element`` argument, or a batch
  the core cannot count exactly in 64 bits).

Anything else (another exception type, a crash of the interpreter) fails.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from budget import examples
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import dnnmem
from dnnmem import NetworkError, load_network

# --------------------------------------------------------------------------------------------
# Seeds
# --------------------------------------------------------------------------------------------
CNN = {
    "name": "cnn",
    "layers": [
        {"name": "img", "kind": "input", "shape": [8, 8, 3]},
        {"name": "pad", "kind": "zero_padding", "inputs": ["img"], "padding": 1},
        {
            "name": "c1",
            "kind": "conv2d",
            "inputs": ["pad"],
            "filters": 8,
            "kernel_size": 3,
            "strides": 1,
            "use_bias": False,
        },
        {"name": "bn1", "kind": "batchnorm", "inputs": ["c1"]},
        {"name": "r1", "kind": "relu", "inputs": ["bn1"]},
        {
            "name": "c2",
            "kind": "conv2d",
            "inputs": ["r1"],
            "filters": 8,
            "kernel_size": [3, 3],
            "padding": "same",
        },
        {"name": "add", "kind": "add", "inputs": ["r1", "c2"]},
        {
            "name": "dw",
            "kind": "depthwise_conv2d",
            "inputs": ["add"],
            "kernel_size": 3,
            "padding": "same",
            "depth_multiplier": 1,
        },
        {"name": "cat", "kind": "concat", "inputs": ["add", "dw"], "axis": -1},
        {"name": "pool", "kind": "maxpool", "inputs": ["cat"], "pool_size": 2, "strides": 2},
        {"name": "avg", "kind": "avgpool", "inputs": ["pool"], "pool_size": [2, 2]},
        {"name": "gap", "kind": "global_avgpool", "inputs": ["avg"], "keepdims": True},
        {"name": "flat", "kind": "flatten", "inputs": ["gap"]},
        {"name": "drop", "kind": "dropout", "inputs": ["flat"], "rate": 0.1},
        {"name": "fc", "kind": "dense", "inputs": ["drop"], "units": 10, "activation": None},
    ],
}

ATTENTION = {
    "name": "attention",
    "layers": [
        {"name": "x", "kind": "input", "shape": [6, 16]},
        {"name": "ln1", "kind": "layernorm", "inputs": ["x"]},
        {"name": "q", "kind": "dense", "inputs": ["ln1"], "units": 16},
        {"name": "k", "kind": "dense", "inputs": ["ln1"], "units": 16},
        {"name": "v", "kind": "dense", "inputs": ["ln1"], "units": 16},
        {"name": "scores", "kind": "matmul", "inputs": ["q", "k"], "heads": 2, "transpose_b": True},
        {"name": "probs", "kind": "softmax", "inputs": ["scores"], "axis": -1},
        {"name": "pdrop", "kind": "dropout", "inputs": ["probs"], "rate": 0.1},
        {
            "name": "ctx",
            "kind": "matmul",
            "inputs": ["pdrop", "v"],
            "heads": 2,
            "merge_heads": True,
        },
        {"name": "proj", "kind": "dense", "inputs": ["ctx"], "units": 16},
        {"name": "res1", "kind": "add", "inputs": ["x", "proj"]},
        {"name": "ln2", "kind": "layernorm", "inputs": ["res1"], "center": True, "scale": True},
        {"name": "ff1", "kind": "dense", "inputs": ["ln2"], "units": 32},
        {"name": "act", "kind": "gelu", "inputs": ["ff1"]},
        {"name": "ff2", "kind": "dense", "inputs": ["act"], "units": 16},
        {"name": "res2", "kind": "add", "inputs": ["res1", "ff2"]},
        {"name": "gate", "kind": "sigmoid", "inputs": ["res2"]},
        {"name": "mul", "kind": "multiply", "inputs": ["res2", "gate"]},
        {"name": "r", "kind": "reshape", "inputs": ["mul"], "target_shape": [-1]},
        {"name": "head", "kind": "dense", "inputs": ["r"], "units": 4},
    ],
}

SEQUENCE = {
    "name": "seq",
    "layers": [
        {"name": "ids0", "kind": "input", "shape": [1], "dtype": "int32"},
        {"name": "ids1", "kind": "input", "shape": [1], "dtype": "int64"},
        {"name": "ids2", "kind": "input", "shape": [1], "dtype": "int32"},
        {
            "name": "e0",
            "kind": "embedding",
            "inputs": ["ids0"],
            "input_dim": 50,
            "output_dim": 8,
            "weights": "emb",
        },
        {
            "name": "e1",
            "kind": "embedding",
            "inputs": ["ids1"],
            "input_dim": 50,
            "output_dim": 8,
            "weights": "emb",
        },
        {
            "name": "e2",
            "kind": "embedding",
            "inputs": ["ids2"],
            "input_dim": 50,
            "output_dim": 8,
            "weights": "emb",
        },
        {"name": "h0", "kind": "input", "shape": [1, 8]},
        {"name": "c0", "kind": "input", "shape": [1, 8]},
        {
            "name": "l0",
            "kind": "lstm_cell",
            "inputs": ["e0", "h0", "c0"],
            "units": 8,
            "weights": "lstm",
        },
        {
            "name": "l1",
            "kind": "lstm_cell",
            "inputs": ["e1", "l0", "l0/c"],
            "units": 8,
            "weights": "lstm",
        },
        {
            "name": "l2",
            "kind": "lstm_cell",
            "inputs": ["e2", "l1", "l1/c"],
            "units": 8,
            "weights": "lstm",
            "trainable": True,
        },
        {"name": "t", "kind": "tanh", "inputs": ["l2"]},
        {
            "name": "out",
            "kind": "dense",
            "inputs": ["t"],
            "units": 50,
            "use_bias": False,
            "weights": "emb_t",
        },
    ],
}

SEEDS = {"cnn": CNN, "attention": ATTENTION, "sequence": SEQUENCE}

KINDS = sorted({row["kind"] for row in dnnmem._core.kinds_table()}) + [
    "Conv2D",
    "LSTM",
    "fc",
    "Linear",
    "bmm",
    "nope",
    "",
]
FIELDS = sorted(
    {key for seed in SEEDS.values() for layer in seed["layers"] for key in layer}
    | {
        "groups",
        "dilation",
        "transpose_a",
        "pool_size",
        "target_shape",
        "input_dim",
        "output_dim",
        "momentum",
        "epsilon",
        "meta",
        "weights",
        "trainable",
        "activation",
        "bogus",
    }
)

# Raw JSON spliced into the text (json.dumps cannot write these from a dict).
DEEP = "[" * 10_000 + "]" * 10_000
RAW = [
    "NaN",
    "-NaN",
    "Infinity",
    "-Infinity",
    "1e999",
    "-1e999",
    "1e-999",
    DEEP,
    "[" * 63 + "]" * 63,
    "[" * 64 + "1" + "]" * 64,
    "[" * 65 + "]" * 65,
    "{" + '"a":{' * 70 + "}" * 71,
    "[[1, 2], [3, NaN]]",
    "[NaN, NaN]",
    "123456789012345678901",
    "-0",
    "0.0",
    "1.0e1",
    "2147483648",
    "2147483647.0",
    "-9223372036854775809",
    "true",
    "null",
    '"\\ud800"',
    '"\\u0000"',
    '"same"',
]


json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-4, max_value=40),
    st.sampled_from(
        [
            0,
            -1,
            2**31 - 1,
            2**31,
            2**31 + 1,
            2**32,
            2**44,
            2**62,
            2**63 - 1,
            2**63,
            2**64,
            -(2**63),
            -(2**64),
            10**30,
            -(10**30),
        ]
    ),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, 1.0, 2.0, -0.0, 1e300, -1e300, 5e-324, 0.1, 0.99]),
    st.text(max_size=6),
    st.sampled_from(
        [
            "same",
            "valid",
            "float",
            "int32",
            "int64",
            "relu",
            "linear",
            "x",
            "c1",
            "q",
            "e0",
            "l0/c",
            "emb",
            "lstm",
        ]
    ),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)

# Mostly valid arguments (the interesting part is the document), a few invalid ones.
BATCHES = st.sampled_from([1, 2, 3, 32, 5, 8, 4, 16, 64, 2**24] * 8 + [2**24 + 1, 0, 1.5, True])
ELEMENT_SIZES = st.sampled_from([4, 2, 1, 8, 16] * 12 + [0, 17, 2.5])


def _batch_ok(batch: Any) -> bool:
    return isinstance(batch, int) and not isinstance(batch, bool) and 1 <= batch <= 2**24


def _bpe_ok(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 16


# --------------------------------------------------------------------------------------------
# Mutations
# --------------------------------------------------------------------------------------------
class Mutant:
    """A document being mutated, plus raw JSON fragments to splice into its text."""

    def __init__(self, doc: dict) -> None:
        self.doc = doc
        self.raw: dict[str, str] = {}
        self.truncate_at: float | None = None

    def placeholder(self, text: str) -> str:
        token = f"@@raw{len(self.raw)}@@"
        self.raw[token] = text
        return token

    def text(self) -> str:
        out = json.dumps(self.doc)
        for token, raw in self.raw.items():
            out = out.replace(json.dumps(token), raw)
        if self.truncate_at is not None:
            out = out[: int(len(out) * self.truncate_at)]
        return out

    @property
    def needs_text(self) -> bool:
        return bool(self.raw) or self.truncate_at is not None


def _layers(m: Mutant) -> list:
    layers = m.doc.get("layers")
    return layers if isinstance(layers, list) else []


def _names(m: Mutant) -> list[str]:
    return [x["name"] for x in _layers(m) if isinstance(x, dict) and isinstance(x.get("name"), str)]


def _pick_layer(data, m: Mutant) -> dict | None:
    layers = [x for x in _layers(m) if isinstance(x, dict)]
    if not layers:
        return None
    return data.draw(st.sampled_from(layers), label="layer")


def mutate(data, m: Mutant, only_gentle: bool = False) -> None:
    destructive = [
        "drop_field",
        "set_field",
        "set_raw",
        "dangling",
        "cycle",
        "duplicate_name",
        "kind",
        "inputs",
        "drop_layer",
        "copy_layer",
        "document",
        "truncate",
        "small_number",
        "input_shape",
    ]
    # often still valid: these keep the success path busy
    gentle = [
        "tweak_number",
        "tweak_number",
        "tweak_shape",
        "same_kind",
        "shuffle",
        "rename",
        "toggle",
        "meta",
    ]
    op = data.draw(st.sampled_from(gentle if only_gentle else destructive + gentle), label="op")
    layer = _pick_layer(data, m)
    names = _names(m)
    if op == "document":
        what = data.draw(st.sampled_from(["layers", "name", "drop_layers", "extra", "wrap"]))
        if what == "layers":
            m.doc["layers"] = data.draw(json_value)
        elif what == "name":
            m.doc["name"] = data.draw(json_value)
        elif what == "drop_layers":
            m.doc.pop("layers", None)
        elif what == "extra":
            m.doc[data.draw(st.text(max_size=5))] = data.draw(json_value)
        else:
            m.doc["layers"] = [m.doc.get("layers")]
        return
    if op == "truncate":
        m.truncate_at = data.draw(st.floats(min_value=0.0, max_value=1.0, exclude_max=True))
        return
    if layer is None:
        return
    if op == "drop_field":
        if layer:
            del layer[data.draw(st.sampled_from(sorted(layer)))]
    elif op == "set_field":
        key = data.draw(st.sampled_from(sorted(set(layer) | set(FIELDS))))
        layer[key] = data.draw(json_value)
    elif op == "set_raw":
        key = data.draw(st.sampled_from(sorted(set(layer) | set(FIELDS))))
        layer[key] = m.placeholder(data.draw(st.sampled_from(RAW)))
    elif op == "small_number":  # small values, zero and -1 included; ints become pairs
        present = sorted(
            k
            for k, v in layer.items()
            if isinstance(v, (int, list))
            and not isinstance(v, bool)
            and k not in ("inputs", "shape")
        )
        key = data.draw(st.sampled_from(present or ["units"]))
        layer[key] = data.draw(
            st.one_of(st.integers(-1, 9), st.lists(st.integers(0, 5), min_size=2, max_size=2))
        )
    elif op == "tweak_number":  # same type, small positive values
        present = sorted(
            k
            for k, v in layer.items()
            if isinstance(v, (int, list))
            and not isinstance(v, bool)
            and k not in ("inputs", "shape", "axis", "target_shape")
        )
        if present:
            key = data.draw(st.sampled_from(present))
            if isinstance(layer[key], list):
                layer[key] = [data.draw(st.integers(1, 4)) for _ in layer[key]]
            else:
                layer[key] = data.draw(st.integers(1, 6))
    elif op == "tweak_shape" and isinstance(layer.get("shape"), list):  # same rank
        layer["shape"] = [data.draw(st.integers(1, 12)) for _ in layer["shape"]]
    elif op == "same_kind":  # swap a one-input element-wise kind for another
        unary = ["relu", "relu6", "gelu", "sigmoid", "tanh", "softmax", "dropout", "identity"]
        if layer.get("kind") in unary:
            layer["kind"] = data.draw(st.sampled_from(unary))
            for key in ("rate", "axis"):
                layer.pop(key, None)
    elif op == "shuffle":  # file order is free (it only breaks ties)
        data.draw(st.randoms(use_true_random=False)).shuffle(_layers(m))
    elif op == "rename" and isinstance(layer.get("name"), str):
        old, new = layer["name"], data.draw(st.text(min_size=1, max_size=6))
        for other in _layers(m):
            if isinstance(other, dict):
                if other.get("name") == old:
                    other["name"] = new
                ins = other.get("inputs")
                if isinstance(ins, list):
                    other["inputs"] = [new if i == old else i for i in ins]
                elif ins == old:
                    other["inputs"] = new
    elif op == "toggle":
        key = data.draw(
            st.sampled_from(["use_bias", "trainable", "center", "scale", "keepdims", "transpose_a"])
        )
        layer[key] = not layer.get(key, key != "keepdims" and key != "transpose_a")
    elif op == "meta":
        layer["meta"] = data.draw(json_value)
    elif op == "dangling":
        ins = layer.get("inputs")
        ins = list(ins) if isinstance(ins, list) else []
        layer["inputs"] = ins + [data.draw(st.sampled_from(["ghost", "", "l9/c", "X"]))]
    elif op == "cycle" and names:
        # read from a consumer (a 2-cycle) when there is one, else from any layer
        consumers = [
            x["name"]
            for x in _layers(m)
            if isinstance(x, dict)
            and isinstance(x.get("inputs"), list)
            and layer.get("name") in x["inputs"]
            and isinstance(x.get("name"), str)
        ]
        ins = layer.get("inputs")
        ins = list(ins) if isinstance(ins, list) else []
        layer["inputs"] = ins + [data.draw(st.sampled_from(consumers or names))]
    elif op == "duplicate_name" and names:
        layer["name"] = data.draw(st.sampled_from(names))
    elif op == "kind":
        layer["kind"] = data.draw(st.sampled_from(KINDS))
    elif op == "inputs" and names:
        layer["inputs"] = data.draw(st.lists(st.sampled_from(names), max_size=4))
    elif op == "drop_layer":
        _layers(m).remove(layer)
    elif op == "copy_layer":
        _layers(m).insert(data.draw(st.integers(0, len(_layers(m)))), copy.deepcopy(layer))
    elif op == "input_shape":
        layer["shape"] = data.draw(st.lists(st.integers(1, 12), max_size=4))


# --------------------------------------------------------------------------------------------
# The property
# --------------------------------------------------------------------------------------------
def check_outcome(load, source: str, batch: Any, bpe: Any) -> str:
    """Loads and, if that works, computes everything; returns what happened."""
    try:
        net = load()
    except NetworkError as e:
        assert type(e) is NetworkError
        assert isinstance(e, ValueError)
        assert e.source == source
        assert str(e).startswith(f"{source}: ")
        assert all(isinstance(a, str) for a in (e.layer, e.field, e.detail))
        # the whole message, a NUL or a replaced byte (U+FFFD) included
        assert e.detail and str(e).endswith(e.detail)
        if e.layer:
            assert f"layer '{e.layer}'" in str(e)
        if e.field:
            assert f"field '{e.field}'" in str(e)
        return "network error"
    except UnicodeError:
        raise  # a ValueError too, but never a proper answer (see test_mutated_bytes_not_utf8)
    except ValueError as e:
        assert not (_batch_ok(batch) and _bpe_ok(bpe)), e
        assert str(e).startswith(("batch: ", "bytes_per_element: ")), e
        return "argument error"
    assert _batch_ok(batch) and _bpe_ok(bpe)
    try:
        num_steps = net.num_steps
    except ValueError as e:
        # The core bounds batch (<= 2^24) and refuses counts beyond 64 bits at this batch.
        assert "batch" in str(e), e
        assert not isinstance(e, NetworkError)
        return "batch error"
    if num_steps == 0:
        # Nothing to schedule: the tables are empty, no layer has a step, no FLOPs.
        # (summary() is left out: test_network.py::test_summary_of_a_network_without_steps.)
        layers = net.layers
        assert len(net.steps) == len(net.tensors) == len(net.accesses) == 0
        assert len(layers) >= 1
        assert (layers["fwd_step"] == -1).all() and (layers["bwd_step"] == -1).all()
        assert layers["rf_fwd"].isna().all() and layers["rf_bwd"].isna().all()
        assert net.flops.total == 0
        assert int(layers["params"].sum()) == net.params
        assert repr(net.name) in repr(net)  # the name is quoted (control characters escaped)
        return "no steps"

    layers, steps, tensors, accesses = net.layers, net.steps, net.tensors, net.accesses
    flops = net.flops
    assert len(steps) == num_steps
    assert steps["step"].tolist() == list(range(num_steps))
    assert set(steps["phase"]) <= {"fwd", "loss", "bwd"}
    assert (steps["phase"] == "loss").sum() >= 1
    for col in (
        "fwd_flops",
        "bwd_dx_flops",
        "bwd_dw_flops",
        "output_bytes",
        "weight_bytes",
        "state_bytes",
        "params",
    ):
        assert (layers[col] >= 0).all(), col
    assert (steps["flops"] >= 0).all()
    assert (tensors["bytes"] > 0).all()
    assert flops.total == int(steps["flops"].sum())
    assert flops.forward == int(steps.loc[steps["phase"] == "fwd", "flops"].sum())
    assert int(layers["params"].sum()) == net.params >= net.trainable_params >= 0
    assert int(tensors["num_uses"].sum()) == len(accesses)
    assert int(accesses["bytes"].mul(accesses["read"]).sum()) == int(steps["bytes_read"].sum())
    assert int(accesses["bytes"].mul(accesses["write"]).sum()) == int(steps["bytes_written"].sum())
    assert net.peak_alive_bytes >= int(tensors["bytes"].max())
    assert repr(net.name) in repr(net)
    assert net.summary().startswith(net.name + ":")
    # what loaded can be written and read back unchanged
    again = load_network(net.to_dict(), batch=batch, bytes_per_element=bpe)
    assert again == net
    assert again.steps["flops"].tolist() == steps["flops"].tolist()
    return "loaded"


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("seed", list(SEEDS))
def test_seeds_are_valid(seed, fuzz_dir):
    path = fuzz_dir / f"{seed}.json"
    path.write_text(json.dumps(SEEDS[seed]), encoding="utf-8")
    for src, source in ((SEEDS[seed], "<dict>"), (path, str(path))):
        assert check_outcome(lambda src=src: load_network(src, batch=2), source, 2, 4) == "loaded"
    net = load_network(SEEDS[seed])
    assert net.flops.forward > 0 and net.params > 0 and net.flops.backward_dw > 0


@settings(
    max_examples=examples(600),
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(
    seed=st.sampled_from(list(SEEDS)),
    data=st.data(),
    batch=BATCHES,
    bpe=ELEMENT_SIZES,
    n_mutations=st.integers(1, 4),
    as_file=st.booleans(),
    gentle=st.booleans(),
)
def test_mutated_documents(fuzz_dir, seed, data, batch, bpe, n_mutations, as_file, gentle):
    m = Mutant(copy.deepcopy(SEEDS[seed]))
    for _ in range(n_mutations):
        mutate(data, m, only_gentle=gentle)
    if m.needs_text or as_file:
        path = fuzz_dir / "mutant.json"
        path.write_text(m.text(), encoding="utf-8")
        outcome = check_outcome(
            lambda: load_network(path, batch=batch, bytes_per_element=bpe), str(path), batch, bpe
        )
    else:
        outcome = check_outcome(
            lambda: load_network(m.doc, batch=batch, bytes_per_element=bpe), "<dict>", batch, bpe
        )
    event(outcome)
    assert outcome in {"loaded", "network error", "argument error", "batch error", "no steps"}


# --------------------------------------------------------------------------------------------
# Raw bytes
# --------------------------------------------------------------------------------------------
def _seed_bytes(seed: str, indent: int | None) -> bytes:
    return json.dumps(SEEDS[seed], indent=indent).encode("ascii")


ascii_bytes = st.binary(min_size=1, max_size=8).map(lambda b: bytes(c & 0x7F for c in b))


def mutate_bytes(data, text: bytes, high_bytes: bool) -> bytes:
    op = data.draw(
        st.sampled_from(["truncate", "insert", "delete", "replace", "duplicate", "splice_raw"]),
        label="byte op",
    )
    n = len(text)
    i = data.draw(st.integers(0, n), label="at")
    j = data.draw(st.integers(i, min(n, i + 40)), label="to")
    if high_bytes:
        junk = data.draw(
            st.binary(min_size=1, max_size=4).map(lambda b: bytes(0x80 | c for c in b)),
            label="junk",
        )
    else:
        junk = data.draw(ascii_bytes, label="junk")
    if op == "truncate":
        return text[:i]
    if op == "insert":
        return text[:i] + junk + text[i:]
    if op == "delete":
        return text[:i] + text[j:]
    if op == "replace":
        return text[:i] + junk + text[i + len(junk) :]
    if op == "duplicate":
        return text[:j] + text[i:j] + text[j:]
    raw = data.draw(st.sampled_from(RAW)).encode("ascii")
    return text[:i] + raw + text[j:]


@settings(
    max_examples=examples(300),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.sampled_from(list(SEEDS)),
    indent=st.sampled_from([None, 1]),
    data=st.data(),
    n_mutations=st.integers(1, 3),
)
def test_mutated_bytes(fuzz_dir, seed, indent, data, n_mutations):
    text = _seed_bytes(seed, indent)
    for _ in range(n_mutations):
        text = mutate_bytes(data, text, high_bytes=False)
    path = fuzz_dir / "bytes.json"
    path.write_bytes(text)
    outcome = check_outcome(lambda: load_network(path, batch=3), str(path), 3, 4)
    event(outcome)
    # the core also takes the bytes directly, under any source name
    try:
        dnnmem._core.parse_network(text, "raw")
    except NetworkError as e:
        assert outcome == "network error"
        assert e.source == "raw"
    else:
        assert outcome in {"loaded", "no steps", "batch error"}


@settings(
    max_examples=20,
    deadline=None,
    database=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.sampled_from(list(SEEDS)), data=st.data())
def test_mutated_bytes_not_utf8(fuzz_dir, seed, data):
    text = mutate_bytes(data, _seed_bytes(seed, None), high_bytes=True)
    while text.isascii():  # truncate / delete / duplicate leave ASCII: add a stray byte
        text = text + b"\xff"
    path = fuzz_dir / "not-utf8.json"
    path.write_bytes(text)
    check_outcome(lambda: load_network(path), str(path), 1, 4)


def test_mutations_reach_every_outcome(fuzz_dir):
    """The mutators are not so destructive that nothing ever loads, nor so gentle that nothing
    fails: a fixed pseudo-random run sees both outcomes for every seed."""

    outcomes: dict[str, set[str]] = {s: set() for s in SEEDS}
    rng = random.Random(1234)
    for seed, doc in SEEDS.items():
        for _ in range(60):
            m = Mutant(copy.deepcopy(doc))
            _mutate_plausibly(rng, m)
            outcomes[seed].add(check_outcome(lambda m=m: load_network(m.doc), "<dict>", 1, 4))
    for seed, seen in outcomes.items():
        assert {"loaded", "network error"} <= seen, (seed, seen)


def _mutate_plausibly(rng: random.Random, m: Mutant) -> None:
    """One change of a number or a shape to a small value, drawn with ``random``."""
    layers = [x for x in _layers(m) if isinstance(x, dict)]
    layer = rng.choice(layers)
    numeric = sorted(k for k, v in layer.items() if isinstance(v, (int, list)) and k != "inputs")
    key = rng.choice(numeric) if numeric else "units"
    if key == "shape":
        layer[key] = [rng.randint(1, 12) for _ in range(rng.randint(0, 4))]
    else:
        layer[key] = rng.choice([rng.randint(-2, 9), [rng.randint(0, 5), rng.randint(0, 5)]])

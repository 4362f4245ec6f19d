"""What the importers share (importers/_common.py) and the ``dnnmem import`` command."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import dnnmem
from dnnmem.cli import main
from dnnmem.importers import ImporterWarning, UnsupportedOperatorError
from dnnmem.importers._common import DocumentBuilder, sanitize_name


@pytest.mark.parametrize(
    "raw, name",
    [
        ("/layer1/layer1.0/conv1/Conv", "layer1.layer1.0.conv1.Conv"),
        ("conv 1 (3x3)", "conv_1_3x3"),
        ("__x__", "x"),
        ("a//b", "a.b"),
        ("", "layer"),
        (None, "layer"),
        ("///", "layer"),
        (7, "7"),
    ],
)
def test_sanitize_name(raw: object, name: str) -> None:
    assert sanitize_name(raw) == name


def test_unique_names_and_document() -> None:
    b = DocumentBuilder("m.onnx", "m")
    assert b.input(b.unique("x/"), [4]) == "x"
    assert [b.unique("x"), b.unique("x"), b.unique("/x")] == ["x_1", "x_2", "x_3"]
    b.add("y", "relu", "x")
    assert b.finish() == {
        "name": "m",
        "layers": [
            {"name": "x", "kind": "input", "shape": [4]},
            {"name": "y", "kind": "relu", "inputs": ["x"]},
        ],
    }


def test_placeholders_strict_error_and_lenient_warning() -> None:
    b = DocumentBuilder("m.onnx", "m")
    b.input("x", [2, 3])
    b.placeholder("p1", "Foo", ["x"], [3])
    b.placeholder("p2", "Bar", ["p1"], [3, 1])
    b.unsupported("Foo", "p3")
    with pytest.raises(UnsupportedOperatorError) as e:
        b.finish(strict=True)
    assert str(e.value) == (
        "m.onnx: unsupported operators Foo (nodes: p1, p3); Bar (nodes: p2)"
        " — pass strict=False (CLI: --no-strict) to import them as "
        "zero-FLOP placeholders"
    )
    assert isinstance(e.value, ValueError) and e.value.source == "m.onnx"
    with pytest.warns(ImporterWarning, match=r"^m.onnx: imported Foo \(nodes: p1, p3\); Bar"):
        doc = b.finish(strict=False)
    net = dnnmem.load_network(doc, batch=2)
    df = net.layers.set_index("name")
    assert df.loc["p2", "output_shape"] == (3, 1)
    assert df.loc["p1", "kind"] == "opaque" and df.loc["p1", "class"] == "II"
    assert df.loc[["p1", "p2"], "fwd_flops"].sum() == 0
    # The placeholder is a step with its own output tensor (traffic), not a folded layer.
    assert not df.loc["p1", "folded"] and df.loc["p2", "output_bytes"] == 2 * 3 * 4


CFG = (
    "[net]\nheight=8\nwidth=8\nchannels=3\n[convolutional]\nfilters=4\nsize=3\npad=1\n"
    "activation=leaky\n"
)


def test_cli_import_writes_a_loadable_network(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "tiny.cfg"
    cfg.write_text(CFG)
    out = tmp_path / "tiny.json"
    assert main(["import", str(cfg), "-o", str(out), "--batch", "3"]) == 0
    printed = capsys.readouterr().out
    assert "batch 3" in printed and "tiny" in printed
    net = dnnmem.load_network(out)
    assert net.params == 3 * 3 * 3 * 4 + 4
    assert json.loads(out.read_text())["layers"][1]["kind"] == "conv2d"


def test_cli_import_errors_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.cfg"
    bad.write_text(CFG + "[crnn]\noutput=2\n")
    out = tmp_path / "o.json"
    assert main(["import", str(bad), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"dnnmem: error: {bad}: unsupported operator [crnn] (nodes: crnn_1)")
    assert not out.exists()
    # --no-strict: the importer's warning as one line (was Python's, with a source line).
    with warnings.catch_warnings():
        warnings.simplefilter("error", ImporterWarning)
        assert main(["import", str(bad), "-o", str(out), "--no-strict"]) == 0
    assert capsys.readouterr().err == (
        f"dnnmem: warning: {bad}: imported [crnn] (nodes: crnn_1) as zero-FLOP placeholders "
        f"(kind 'opaque')\n"
    )
    assert dnnmem.load_network(out).layers["kind"].iloc[-1] == "opaque"
    txt = tmp_path / "m.txt"
    txt.write_text("")
    assert main(["import", str(txt), "-o", str(out)]) == 2
    assert "no importer for this file extension" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, content, package, message",
    [
        ("bad.onnx", b"garbage\n", "onnx", "cannot read it as an ONNX model: DecodeError: "),
        ("empty.onnx", b"", "onnx", "the ONNX model has an empty graph (an ONNX file?)"),
        ("missing.onnx", None, "onnx", "no such file"),
        (
            "bad.pt2",
            b"garbage\n",
            "torch",
            "cannot read it as a torch.export program (.pt2): not a zip archive",
        ),
        ("bad.keras", b"garbage\n", "keras", "cannot read it as a Keras model: not a zip archive"),
        ("bad.h5", b"garbage\n", "keras", "cannot read it as a Keras model: OSError: "),
        ("bad.cfg", b"\xff\xfe[net]\n", None, "not a darknet cfg (not UTF-8 text at byte 0)"),
        ("missing.cfg", None, None, "no such file"),  # was "[Errno 2] No such file ...: '...'"
    ],
)
def test_a_corrupt_model_file_is_an_error_naming_it(
    tmp_path: Path, name: str, content: bytes | None, package: str | None, message: str
) -> None:
    """Each loader's own exception from deep inside its package (protobuf's DecodeError,
    zipfile's BadZipFile, h5py's OSError: tracebacks from `dnnmem import`; a '<dict>: ...'
    network error for an empty ONNX file; a UnicodeDecodeError without the file's name) is a
    ValueError that names the file and the format."""
    if package == "keras":  # with the backend dnnmem picks (a bare `import keras` wants tensorflow)
        from dnnmem.importers.keras import import_keras

        try:
            import_keras()
        except ImportError as e:
            pytest.skip(str(e))
    elif package is not None:
        pytest.importorskip(package)
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError) as e:
        dnnmem.importers.import_model(path)
    assert str(e.value).startswith(f"{path}: {message}")

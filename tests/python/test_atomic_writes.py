"""Every file dnnmem writes goes through a temporary file in the same folder, flushed and renamed
over the target (issue 26, item 6): on a full disk the old file survives whole and the error
names the file.

The full disk is simulated at the lowest level every writer shares, the built-in ``open``: any
file opened for writing in the test's folder takes part of what is written, then raises
``OSError(ENOSPC)``, as a write(2) on a full file system does. Before the fix, ``dnnmem import x.cfg
-o net.json`` opened ``net.json`` itself for writing, truncating it, and the error named no file.
"""

from __future__ import annotations

import builtins
import errno
import io
import os
import stat
from pathlib import Path
from typing import Any

import pytest

import dnnmem
from dnnmem._files import write_atomically, write_text_atomically
from dnnmem.cli import main

CFG = "[net]\nheight=8\nwidth=8\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\n"


class _FullDisk(io.RawIOBase):
    """A file on a full disk: the first write keeps a few bytes, then ENOSPC."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.real.write(data[:3])  # a partial file, as the disk filled up
        self.real.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def close(self) -> None:
        self.real.close()
        super().close()


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A folder whose disk is full: files opened there for writing fail part-way."""
    folder = tmp_path / "full"
    folder.mkdir()
    real_open = builtins.open

    def fake_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        on_full_disk = (
            isinstance(file, (str, os.PathLike))
            and Path(os.fspath(file)).parent == folder
            and any(m in mode for m in "wax+")
        )
        if not on_full_disk:
            return real_open(file, mode, *args, **kwargs)
        raw = _FullDisk(real_open(file, mode.replace("t", "").replace("b", "") + "b"))
        if "b" in mode:
            return raw
        text = {k: kwargs[k] for k in ("encoding", "newline") if k in kwargs}
        return io.TextIOWrapper(io.BufferedWriter(raw), **text)

    monkeypatch.setattr(builtins, "open", fake_open)
    return folder


def _put(path: Path, data: bytes) -> None:
    """Write a file past the full-disk simulation (the old file a test expects to survive)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_import_on_a_full_disk_keeps_the_old_network_and_names_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, full_disk: Path
) -> None:
    cfg = tmp_path / "x.cfg"
    cfg.write_text(CFG, encoding="utf-8")
    out = full_disk / "net.json"
    good = b'{"name": "a good network"}\n'
    _put(out, good)
    code = main(["import", str(cfg), "-o", str(out)])
    _, err = capsys.readouterr()
    assert code == 2
    assert err == (
        f"dnnmem: error: could not write {str(out)!r}: No space left on device; {str(out)!r} "
        f"is as it was\n"
    )
    assert out.read_bytes() == good  # was truncated to 3 bytes
    assert _left(full_disk) == ["net.json"]  # no temporary file left behind


def test_network_save_result_save_and_the_plot_keep_the_old_file(
    tmp_path: Path, full_disk: Path
) -> None:
    net = dnnmem.network("resnet18")
    r = dnnmem.estimate(net)
    for path, save in (
        (full_disk / "net.json", net.save),
        (full_disk / "r.json", r.save),
    ):
        _put(path, b"old contents")
        with pytest.raises(OSError) as e:
            save(path)
        assert str(e.value) == (
            f"could not write {str(path)!r}: No space left on device; {str(path)!r} is as it was"
        )
        assert e.value.errno == errno.ENOSPC
        assert isinstance(e.value.__cause__, OSError)
        assert path.read_bytes() == b"old contents"
    assert _left(full_disk) == ["net.json", "r.json"]
    # A new file on a full disk: the error names it, and nothing is left.
    new = full_disk / "new.json"
    with pytest.raises(OSError, match=r"^could not write '.*new\.json': No space left on device$"):
        net.save(new)
    assert _left(full_disk) == ["net.json", "r.json"]


def test_the_plot_of_a_sweep_keeps_the_old_image(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, full_disk: Path
) -> None:
    pytest.importorskip("matplotlib")
    spec = tmp_path / "s.yaml"
    spec.write_text("network: resnet18\ncapacity: [0, 1MiB]\n", encoding="utf-8")
    png = full_disk / "plot.png"
    _put(png, b"an old figure")
    code = main(
        ["sweep", str(spec), "-o", str(tmp_path / "o.csv"), "--no-progress", "--plot", str(png)]
    )
    _, err = capsys.readouterr()
    assert code == 2 and err == (
        f"dnnmem: error: --plot: could not write {str(png)!r}: No space left on device; "
        f"{str(png)!r} is as it was\n"
    )
    assert png.read_bytes() == b"an old figure" and _left(full_disk) == ["plot.png"]


def test_an_interrupted_write_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old", encoding="utf-8")

    def write(tmp: str) -> None:
        Path(tmp).write_text("new, half", encoding="utf-8")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(path, write)
    assert path.read_text(encoding="utf-8") == "old" and _left(tmp_path) == ["a.txt"]


def test_a_written_file_has_the_usual_permissions_or_keeps_its_own(tmp_path: Path) -> None:
    """The temporary file is created as open(path, "w") would create it (0o666 less the
    umask), and a file replaced keeps its mode (not mkstemp's 0o600)."""
    umask = os.umask(0o022)
    try:
        new = tmp_path / "new.txt"
        write_text_atomically(new, "x")
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        kept = tmp_path / "kept.txt"
        kept.write_text("old", encoding="utf-8")
        kept.chmod(0o600)
        write_text_atomically(kept, "new")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
        assert kept.read_text(encoding="utf-8") == "new"
    finally:
        os.umask(umask)


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "no" / "net.json"
    with pytest.raises(OSError) as e:
        dnnmem.network("resnet18").save(path)
    assert str(e.value) == f"could not write {str(path)!r}: No such file or directory"

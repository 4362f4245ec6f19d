"""Every file dnnmem writes goes through :func:`write_atomically`: a temporary file in the same
folder, flushed to the disk (``fsync``), then renamed over the target (``os.replace``, atomic
on POSIX and Windows). A write that fails part-way (a full disk, Ctrl-C, a killed process)
leaves the file that was there as it was, and the error names the file.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable

__all__ = ["write_atomically", "replace_atomically", "write_text_atomically", "reason"]


def _temporary(path: str) -> str:
    """A new, empty file next to ``path`` with the same extension (writers such as matplotlib's
    ``savefig`` choose the format by it), created with the permissions a plain ``open(path,
    "w")`` would give it, or those of the file it replaces."""
    folder, name = os.path.split(path)
    ext = os.path.splitext(name)[1]
    mode = 0o666
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(os.stat(path).st_mode)
    for _ in range(100):
        tmp = os.path.join(folder, f"{name}.{secrets.token_hex(4)}.tmp{ext}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"no free temporary name next to {path!r}")  # pragma: no cover


def _fsync(path: str) -> None:
    """Flush ``path`` (a file, or a folder's entries) to the disk."""
    try:
        fd = os.open(path, os.O_RDWR if os.path.isfile(path) else os.O_RDONLY)
    except OSError:
        if os.path.isfile(path):
            raise
        return  # a folder that cannot be opened (Windows): its entries are the OS's to flush
    try:
        os.fsync(fd)
    except OSError:
        if os.path.isfile(path):
            raise
    finally:
        os.close(fd)


def replace_atomically(path: str | os.PathLike[str], write: Callable[[str], object]) -> None:
    """Write ``path`` with ``write(temporary_path)``, then move the result over ``path``.

    The exception of a failed write (``write``, the flush or the rename) propagates as it was
    raised, after the temporary file is removed; ``path`` is untouched. A symbolic link is
    written through (its target is replaced)."""
    target = os.fspath(path)
    if os.path.islink(target):
        target = os.path.realpath(target)
    tmp = _temporary(target)
    try:
        write(tmp)
        _fsync(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync(os.path.dirname(os.path.abspath(target)))  # the rename itself, on POSIX


def reason(e: BaseException) -> str:
    """What went wrong, in words: an OS error's own text (``No space left on device``), else the
    exception's type and message."""
    if isinstance(e, OSError) and e.strerror:
        return str(e.strerror)
    return f"{type(e).__name__}: {e}"


def write_atomically(
    path: str | os.PathLike[str], write: Callable[[str], object], what: str = ""
) -> None:
    """Write ``path`` with ``write(temporary_path)`` through a temporary file in the same folder,
    flushed and renamed over it (:func:`replace_atomically`).

    Raises
    ------
    OSError
        ``"<what>: could not write 'path': <reason>; 'path' is as it was"`` (``what``, e.g. an
        option's name, is left out when empty), with the errno of the cause, from it. Ctrl-C
        (``KeyboardInterrupt``) propagates unchanged, the file as it was too.
    """
    target = os.fspath(path)
    existed = os.path.exists(target)
    try:
        replace_atomically(target, write)
    except Exception as e:
        head = f"{what}: " if what else ""
        tail = f"; {target!r} is as it was" if existed else ""
        err = OSError(f"{head}could not write {target!r}: {reason(e)}{tail}")
        err.errno = e.errno if isinstance(e, OSError) else None
        raise err from e


def write_text_atomically(path: str | os.PathLike[str], text: str, what: str = "") -> None:
    """:func:`write_atomically` of a UTF-8 text file."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)

    write_atomically(path, write, what)

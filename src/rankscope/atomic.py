"""Every file rankscope writes, written atomically: whole or not at all.

A writer never opens its target.  It writes a temporary file beside the target (in the same
directory, so that the rename is atomic on one file system), flushes and fsyncs it, and
`os.replace`s it into place only once it is complete; on any exception, Ctrl-C
(`KeyboardInterrupt`) included, the temporary file is removed and the target is left as it
was.  So a command killed mid-write (Ctrl-C, out of memory, a full disk) leaves either the
old file or the complete new one, never a truncated run that still parses or half a page.

* `write_atomically` writes a text;
* `atomic_path` gives a writer that takes a path (Parquet, a matplotlib figure) a temporary
  path beside the target, and renames it into place when the writer returns;
* `atomic_directory` builds a directory of files (the folds of ``split``) in a temporary
  directory beside the target and swaps it in whole: an older directory of files is replaced
  entirely, never mixed with the new files.

The module sits at the bottom of the layers, beside `rankscope.errors`, so that every layer
that writes (interleaving's lists and preference's learned weights sit low) imports it; it
imports nothing of rankscope's.

``RANKSCOPE_WRITE_PAUSE`` (seconds; for tests only): each writer pauses that long after the
first part is in its temporary file and before the rest, so that a test can kill a command
in the middle of a write (``tests/test_atomic_outputs.py``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: The environment variable of the tests' pause in the middle of a write.
PAUSE = "RANKSCOPE_WRITE_PAUSE"
#: The size of the parts text is written in (a pause falls between the first and the rest).
CHUNK = 1 << 16


def temporary_name(target: str | os.PathLike[str]) -> str:
    """The prefix of the temporary files and directories made beside ``target``
    (``.NAME.`` and a random part, ending ``.tmp``): hidden, and named after what they
    become."""
    return f".{Path(target).name}."


def _pause() -> None:
    seconds = os.environ.get(PAUSE)
    if seconds:
        time.sleep(float(seconds))


def _fsync_directory(directory: str) -> None:
    # the rename itself is made durable by syncing the directory that holds it (POSIX)
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # (Windows cannot open a directory)
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


@contextmanager
def atomic_path(target: str | os.PathLike[str], *, pause: bool = True) -> Iterator[str]:
    """A temporary path beside ``target`` (its suffix kept, so that a writer choosing its
    format by the suffix chooses the same), to be written by the body; once the body
    returns, the file is fsynced and renamed to ``target``; if it raises, the temporary file
    is removed and ``target`` is untouched.  ``pause``: whether the tests' pause falls
    between the body and the rename (`write_atomically` makes its own)."""
    target = os.fspath(target)
    directory = os.path.dirname(os.path.abspath(target))
    temporary = ""
    try:  # (from the file's creation on: a signal arriving at once removes it too)
        fd, temporary = tempfile.mkstemp(
            prefix=temporary_name(target), suffix=".tmp" + Path(target).suffix, dir=directory
        )
        os.close(fd)
        yield temporary
        if pause:
            _pause()
        with open(temporary, "rb+") as written:
            os.fsync(written.fileno())
        os.replace(temporary, target)
    except BaseException:
        if temporary:
            _remove(temporary)
        raise
    _fsync_directory(directory)


def write_atomically(
    target: str | os.PathLike[str], text: str, newline: str | None = None
) -> None:
    """Write ``text`` (UTF-8; ``newline`` as `open`'s) to ``target`` atomically
    (`atomic_path`)."""
    with atomic_path(target, pause=False) as temporary:
        with open(temporary, "w", encoding="utf-8", newline=newline) as out:
            out.write(text[:CHUNK])
            out.flush()
            _pause()  # (tests: a part in the temporary file)
            for start in range(CHUNK, len(text), CHUNK):
                out.write(text[start : start + CHUNK])


@contextmanager
def atomic_directory(target: str | os.PathLike[str]) -> Iterator[Path]:
    """A new empty directory beside ``target``, to be filled by the body; once the body
    returns, its files are fsynced and it takes ``target``'s place whole (an existing
    ``target`` is moved aside, the new directory renamed in and the old one deleted), and
    if the body raises it is deleted and ``target`` is untouched.  The caller decides
    whether an existing ``target`` may be replaced."""
    target = os.fspath(target).rstrip(os.sep) or os.sep
    parent = os.path.dirname(os.path.abspath(target))
    built = ""
    try:
        built = tempfile.mkdtemp(prefix=temporary_name(target), suffix=".tmp", dir=parent)
        yield Path(built)
        _pause()
        for name in os.listdir(built):
            with open(os.path.join(built, name), "rb+") as written:
                os.fsync(written.fileno())
        _fsync_directory(built)
        old = None
        if os.path.lexists(target):
            old = tempfile.mkdtemp(prefix=temporary_name(target), suffix=".old", dir=parent)
            os.replace(target, old)  # (renaming over the empty directory mkdtemp made)
        try:
            os.replace(built, target)
        except BaseException:
            if old is not None:
                os.replace(old, target)
            raise
    except BaseException:
        if built:
            shutil.rmtree(built, ignore_errors=True)
        raise
    _fsync_directory(parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)

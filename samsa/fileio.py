"""Reading user files with precise errors, and writing output files atomically.

Every error names the file and the 1-based line; outputs are written to a
temporary file and renamed, so a failure never leaves a half-written file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from os import PathLike
from pathlib import Path
from typing import TextIO

from samsa.errors import InputError, OutputError

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "INTERRUPTED",
    "STDOUT",
    "atomic_open",
    "atomic_write_text",
    "check_line_counts",
    "check_not_interrupted",
    "check_output_path",
    "check_reusable",
    "data_hash",
    "decode_lines",
    "in_place_target",
    "read_lines",
    "replace_directory",
    "staging_directory",
]

#: Longest line (in whitespace tokens) accepted by default; longer lines are
#: almost always a broken file (a missing newline) and would make the aligner quadratic.
DEFAULT_MAX_TOKENS = 1000
#: the name of standard output in every output option (``-o -``, ``--per-sentence -``)
STDOUT = "-"

#: Set by the ``samsa`` command's Ctrl-C handler (:func:`samsa.cli.main`) for the run in progress. Python
#: raises KeyboardInterrupt where the signal lands, except inside a finalizer (a ``__del__``, an unfinished
#: generator being closed), where the exception is only reported and the run goes on to the end: outputs
#: read this before they replace anything (:func:`check_not_interrupted`), so that an interrupted run never
#: commits one. A process flag, as the signal it records is one.
INTERRUPTED = threading.Event()


def check_not_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C reached the current command, even where Python dropped it."""
    if INTERRUPTED.is_set():
        raise KeyboardInterrupt


def decode_lines(
    data: bytes,
    path: str | PathLike[str],
    *,
    allow_empty_lines: bool = True,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
) -> list[str]:
    """Decode UTF-8 bytes into lines (without newline characters), validating them."""
    if not data:
        raise InputError(path, None, "file is empty; expected one line per sentence")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise InputError(path, line, f"invalid UTF-8 byte 0x{data[e.start]:02x}; re-encode the file as UTF-8") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    nul = text.find("\x00")
    if nul >= 0:
        raise InputError(
            path,
            text.count("\n", 0, nul) + 1,
            "NUL byte in a text file (binary data, or UTF-16?); expected UTF-8 text, one sentence per line",
        )
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    for i, ln in enumerate(lines, start=1):
        if not allow_empty_lines and not ln.strip():
            raise InputError(path, i, "empty line; every line must hold a sentence")
        if max_tokens is not None:
            n = len(ln.split())
            if n > max_tokens:
                raise InputError(
                    path,
                    i,
                    f"line has {n} tokens, more than the limit of {max_tokens} (a missing newline?); "
                    "raise the limit with --max-tokens if this is intended",
                )
    return lines


def read_lines(
    path: str | PathLike[str],
    *,
    allow_empty_lines: bool = True,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
) -> list[str]:
    """Read a UTF-8 text file as a list of lines (see :func:`decode_lines`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise InputError(path, None, f"cannot read file: {e.strerror}") from None
    return decode_lines(data, path, allow_empty_lines=allow_empty_lines, max_tokens=max_tokens)


def check_line_counts(files: Sequence[tuple[str | PathLike[str], int]]) -> None:
    """Raise if the files (path, number of lines) do not all have the same number of lines."""
    if not files:
        return
    ref_path, ref_n = files[0]
    for path, n in files[1:]:
        if n != ref_n:
            line = min(n, ref_n) + 1
            raise InputError(path, line, f"has {n} lines but {ref_path} has {ref_n}; the files must be line-parallel")


def atomic_write_text(path: str | PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory."""
    with atomic_open(path) as fh:
        fh.write(text)


def check_output_path(
    target: str | PathLike[str], inputs: Sequence[str | PathLike[str]] = (), *, directory: bool = False
) -> Path:
    """Refuse, before any work is done, an output that would overwrite an input or cannot be written.

    ``inputs`` are the files (or directories) the run reads; the target may be
    none of them, nor a hard link to one (same device and inode). ``directory``:
    the target is an output directory (created if missing) rather than a file.
    """
    if str(target) == STDOUT and not directory:  # standard output: nothing to protect or check
        return Path(STDOUT)
    out = Path(target)
    try:
        st = out.stat()
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputError(out, f"cannot use as output: {e.strerror}") from None
    if st is not None and not directory and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        # a FIFO or character device (/dev/stdout, a terminal) is written in place; anything else is refused
        if not (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            raise OutputError(out, "exists and is neither a regular file, a FIFO nor a character device")
        if not os.access(out, os.W_OK):
            raise OutputError(out, "is not writable")
    if st is not None:
        for src in inputs:
            try:
                src_st = Path(src).stat()
                same = os.path.samestat(st, src_st) or (  # a file inside an input directory
                    Path(src).is_dir() and os.path.samestat(out.parent.stat(), src_st)
                )
            except OSError:
                continue
            if same:
                raise OutputError(out, f"is an input of this run ({src}); refusing to overwrite it")
        if directory and not out.is_dir():
            raise OutputError(out, "exists and is not a directory")
        if not directory and out.is_dir():
            raise OutputError(out, "is a directory; give a file name")
    parent = out if directory and st is not None else out.parent
    if not parent.is_dir():
        raise OutputError(out, f"directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(out, f"directory {parent} is not writable")
    if st is not None and not directory and not os.access(out, os.W_OK):
        raise OutputError(out, "file is not writable")
    return out


@contextmanager
def _open_in_place(target: Path) -> Iterator[TextIO]:
    try:
        fh = open(target, "w", encoding="utf-8", newline="\n")
    except OSError as e:
        raise OutputError(target, f"cannot write: {e.strerror}") from None
    try:
        with fh:
            yield fh
    except OSError as e:
        if isinstance(e, OutputError) or e.errno not in _WRITE_ERRORS:
            raise
        raise OutputError(target, f"cannot write: {e.strerror or e}") from None


#: errno values that mean "the output cannot be written", turned into one-line OutputErrors
_WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EACCES, errno.EPERM})


def _final_mode(target: Path) -> int:
    """The mode the output should have: the replaced file's, else what a plain ``open`` would give."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~current_umask()


def current_umask() -> int:
    """The process umask (read by setting and restoring it: there is no getter)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def in_place_target(path: str | PathLike[str]) -> bool:
    """True when ``path`` exists and is not a regular file (a FIFO, a character device such as ``/dev/stdout`` or
    a terminal): such an output is written in place, since renaming a file over it would replace the node."""
    if str(path).startswith(("/dev/", "/proc/")):  # /dev/stdout and friends, whatever they point to
        return os.path.exists(path)
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextmanager
def atomic_open(path: str | PathLike[str]) -> Iterator[TextIO]:
    """A text file to stream into; it replaces ``path`` only when the block ends without an exception.

    The temporary file sits beside the target (same file system, so the rename is atomic) and is
    removed on any failure, Ctrl-C included: a run never leaves a half-written output. The result
    keeps the mode of the file it replaces (a new file gets the umask's default). A write error
    (a full disk, a file-size limit) becomes an :class:`OutputError` naming the target. A symbolic
    link is followed (the file it points to is replaced, the link stays); a FIFO or a character
    device is written in place, never replaced (:func:`in_place_target`). ``-`` is standard output, as
    everywhere in samsa's options.
    """
    if str(path) == STDOUT:
        sys.stdout.flush()
        yield sys.stdout
        sys.stdout.flush()
        return
    if in_place_target(path):
        with _open_in_place(Path(path)) as fh:
            yield fh
        return
    target = Path(os.path.realpath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or Path("."))
    except OSError as e:
        raise OutputError(target, f"cannot write here: {e.strerror}") from None
    try:
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                yield fh
            os.chmod(tmp, _final_mode(target))
            check_not_interrupted()
            os.replace(tmp, target)
        except OSError as e:
            if isinstance(e, OutputError) or e.errno not in _WRITE_ERRORS:
                raise
            raise OutputError(target, f"cannot write: {e.strerror or e}; the old file (if any) is kept") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def data_hash(files: Sequence[Path]) -> str:
    """SHA-256 over file names and contents, in order: what names a model's or a corpus' exact files."""
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def check_reusable(out: Path, command: str) -> None:
    """A directory to replace may hold only what ``command`` writes (*.xml files)."""
    if not out.exists():
        return
    other = sorted(p.name for p in out.iterdir() if not (p.suffix == ".xml" and p.is_file()))
    if other:
        raise OutputError(
            out, f"holds files {command} did not write ({', '.join(other[:3])}); choose a new or empty directory"
        )


def staging_directory(out: Path) -> Path:
    """A fresh directory beside ``out`` to write into; :func:`replace_directory` puts it in ``out``'s place."""
    try:
        return Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    except OSError as e:
        raise OutputError(out, f"cannot write beside it: {e.strerror}") from None


def replace_directory(staging: Path, out: Path) -> None:
    """``staging`` becomes ``out`` (the old ``out``, if any, goes): an interrupted run leaves the old directory
    as it was, and a finished one never keeps files of an earlier, longer run."""
    check_not_interrupted()
    try:
        os.chmod(staging, 0o777 & ~current_umask())  # mkdtemp makes it 0700
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, old / out.name)
            os.replace(staging, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, out)
    except OSError as e:
        raise OutputError(out, f"cannot replace the directory: {e.strerror}") from None

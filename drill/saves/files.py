"""Opening save files without being sent elsewhere.

A save path never goes through a symbolic link for writing: new saves are created with
O_CREAT | O_EXCL | O_NOFOLLOW (a dangling link planted in the saves folder makes the open fail
instead of creating the file it points at), and appends use O_NOFOLLOW. Reading follows a link
only when its target sits in the link's own folder. Only regular files are saves: a FIFO, a
device (/dev/null, /dev/full, /dev/zero) or a folder is refused before a byte moves, and a read
never takes more than the size limit, so no file in a saves folder can hang or flood a reader.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from drill.saves.model import SaveError

MAX_SAVE_BYTES = 50_000_000
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_APPEND = os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_CREATE = _APPEND | os.O_CREAT | os.O_EXCL


def read_save_bytes(path: str | Path) -> bytes:
    shown = str(path)
    target = _followed_inside_folder(Path(path), shown)
    try:
        fd = os.open(target, _READ)
    except FileNotFoundError:
        raise SaveError(
            shown, 1, "save not found; check the path (saves live in ./saves by default)"
        ) from None
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "read")) from None
    try:
        _regular(fd, shown)
        size = os.fstat(fd).st_size
        if size > MAX_SAVE_BYTES:
            raise _too_big(shown)
        chunks, total = [], 0
        while total <= MAX_SAVE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_SAVE_BYTES + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > MAX_SAVE_BYTES:
            raise _too_big(shown)
        return b"".join(chunks)
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "read")) from None
    finally:
        os.close(fd)


def read_save_ends(path: str | Path, head: int, tail: int) -> tuple[bytes, bytes, int]:
    """The first `head` and the last `tail` bytes of a save, and its size, with the same
    checks as read_save_bytes: for a reader that needs only the header and the score line."""
    shown = str(path)
    target = _followed_inside_folder(Path(path), shown)
    try:
        fd = os.open(target, _READ)
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "read")) from None
    try:
        _regular(fd, shown)
        size = os.fstat(fd).st_size
        first = os.pread(fd, min(head, size), 0)
        last = os.pread(fd, min(tail, size), max(0, size - tail))
        return first, last, size
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "read")) from None
    finally:
        os.close(fd)


def check_new_save_path(path: Path) -> None:
    """The checks create_save_file makes, without creating anything: for a command to refuse a
    bad --save before a night starts."""
    shown = str(path)
    if path.is_symlink():
        raise SaveError(
            shown,
            1,
            "a symbolic link is in the way; saves are never written through a link, so remove"
            " it or pick another path",
        )
    if path.is_dir():
        raise SaveError(
            shown, 1, "this is a folder; give a file for the save, like FOLDER/night.jsonl"
        )
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "create")) from None
    _refuse_what_is_there(shown, info)


def _refuse_what_is_there(shown: str, info: os.stat_result) -> None:
    """Only an empty regular file at a new save's path may be taken over."""
    if not stat.S_ISREG(info.st_mode):
        raise SaveError(shown, 1, _not_regular(info.st_mode))
    if info.st_size > 0:
        raise SaveError(
            shown, 1, "a save already exists here; carry it on with --resume, or pick another path"
        )


def create_save_file(path: Path) -> int:
    """A new, empty save file opened for appending; refuses anything already at the path."""
    shown = str(path)
    if path.is_dir():
        raise SaveError(
            shown, 1, "this is a folder; give a file for the save, like FOLDER/night.jsonl"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SaveError(
            shown, 1, f"cannot make the folder {path.parent}: {_reason(exc)}; pick another path"
        ) from None
    try:
        return os.open(path, _CREATE, 0o666)
    except FileExistsError:
        pass
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "create")) from None
    if path.is_symlink():
        raise SaveError(
            shown,
            1,
            "a symbolic link is in the way; saves are never written through a link, so remove"
            " it or pick another path",
        )
    try:
        info = path.stat()
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "create")) from None
    _refuse_what_is_there(shown, info)
    # An empty file left by an earlier start that wrote nothing: take it over.
    return open_save_for_append(path)


def open_save_for_append(path: Path) -> int:
    shown = str(path)
    try:
        fd = os.open(path, _APPEND)
    except OSError as exc:
        raise SaveError(shown, 1, _why_not(exc, "append to")) from None
    try:
        _regular(fd, shown)
    except BaseException:
        os.close(fd)
        raise
    return fd


def fsync_folder(path: Path) -> None:
    """Make a new file's name durable. Some filesystems cannot fsync a folder; the file's own
    fsync is what matters for its bytes, so that failure is not worth a message."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _followed_inside_folder(path: Path, shown: str) -> Path:
    if not path.is_symlink():
        return path
    try:
        folder = path.parent.resolve()
        target = path.resolve()
        inside = target.is_relative_to(folder)
    except (OSError, RuntimeError):  # a loop of links (RuntimeError before Python 3.13)
        inside = False
    if not inside:
        raise SaveError(
            shown,
            1,
            "this is a symbolic link to a file outside its folder; a save is read only from its"
            " own folder, so give the file itself",
        )
    return target


def _regular(fd: int, shown: str) -> None:
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        raise SaveError(shown, 1, _not_regular(mode))


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "this is a folder; give a .jsonl save file"
    return (
        "this is not a regular file (a device, a pipe or a socket); a save is a file in a"
        " folder, like saves/night.jsonl"
    )


def _too_big(shown: str) -> SaveError:
    return SaveError(
        shown,
        1,
        f"the save is over {MAX_SAVE_BYTES // 1_000_000} MB; that is not a save this game wrote",
    )


def _why_not(exc: OSError, doing: str) -> str:
    if exc.errno == errno.ELOOP:
        return "this is a symbolic link; saves are never written through a link, so give the file itself"
    if exc.errno == errno.EISDIR:
        return "this is a folder; give a .jsonl save file"
    return f"cannot {doing} it: {_reason(exc)}"


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__

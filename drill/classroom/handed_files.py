"""The files a learner's hand-in holds, from a folder or a zip, read without trusting it.

Nothing is extracted by the names inside: each save's bytes are read into memory, within the
save size limit, and stored by collect under their own sha256. A zip entry whose name leaves
the zip (an absolute path, `..`, a drive letter), a link, an encrypted entry or one larger than
a save can be is skipped with a line saying why; so is a zip with more entries, or more bytes in
all, than a class hands in. A folder is walked without following links, and a link in it is
skipped, as `drill replay` would refuse it.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from drill.saves.files import MAX_SAVE_BYTES, read_save_bytes
from drill.saves.model import SaveError

MAX_ENTRIES = 20_000  # files in one hand-in: a class of hundreds, many nights each
MAX_TOTAL_BYTES = 2_000_000_000  # read from one zip or folder in all
SAVE_SUFFIX = ".jsonl"
SKIPPED_FOLDERS = ("cache",)  # the par and floor caches inside a saves folder


class HandInError(Exception):
    """A hand-in that cannot be read at all: one line naming it."""


@dataclass(frozen=True)
class HandedFile:
    parts: tuple[str, ...]  # its path inside the hand-in, folders then the file name
    data: bytes
    modified: dt.datetime  # UTC

    @property
    def name(self) -> str:
        return "/".join(self.parts)


@dataclass(frozen=True)
class Skipped:
    name: str
    why: str


def is_zip(path: Path) -> bool:
    return path.is_file() and (path.suffix.lower() == ".zip" or zipfile.is_zipfile(path))


def handed_files(source: Path) -> Iterator[HandedFile | Skipped]:
    """Every save-like file of a hand-in (a folder, a zip or one save), or why one was left out."""
    if source.is_symlink():
        raise HandInError(f"{source}: a link; give the folder or file itself")
    if source.is_dir():
        yield from _folder(source)
    elif is_zip(source):
        yield from _zip(source)
    elif source.is_file():
        yield from _one(source)
    else:
        raise HandInError(f"{source}: no such folder, zip or save; check the path")


def _one(path: Path) -> Iterator[HandedFile | Skipped]:
    try:
        data = read_save_bytes(path)
    except SaveError as exc:
        yield Skipped(path.name, exc.message)
        return
    yield HandedFile((path.name,), data, _utc(os.stat(path).st_mtime))


def _folder(root: Path) -> Iterator[HandedFile | Skipped]:
    count = total = 0
    for folder, folders, files in os.walk(root, followlinks=False):
        folders[:] = sorted(f for f in folders if f not in SKIPPED_FOLDERS)
        here = Path(folder)
        relative = here.relative_to(root).parts
        for name in sorted(files):
            if not name.endswith(SAVE_SUFFIX):
                continue
            path = here / name
            shown = "/".join((*relative, name))
            info = os.stat(path, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode):
                yield Skipped(shown, "a link; hand in the save itself")
                continue
            count += 1
            total += info.st_size
            if count > MAX_ENTRIES or total > MAX_TOTAL_BYTES:
                raise HandInError(
                    f"{root}: more than {MAX_ENTRIES} saves or {MAX_TOTAL_BYTES // 10**9} GB;"
                    " collect it in parts"
                )
            try:
                data = read_save_bytes(path)
            except SaveError as exc:
                yield Skipped(shown, exc.message)
                continue
            yield HandedFile((*relative, name), data, _utc(info.st_mtime))


def _zip(path: Path) -> Iterator[HandedFile | Skipped]:
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise HandInError(f"{path}: not a zip that can be read ({exc})") from None
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ENTRIES:
            raise HandInError(f"{path}: more than {MAX_ENTRIES} entries; collect it in parts")
        total = 0
        for info in entries:
            if info.is_dir():
                continue
            parts = _entry_parts(info.filename)
            shown = info.filename
            if parts is None:
                yield Skipped(shown, "its name leads out of the zip; it was not read")
                continue
            if not parts[-1].endswith(SAVE_SUFFIX) or any(p in SKIPPED_FOLDERS for p in parts[:-1]):
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                yield Skipped(shown, "a link; hand in the save itself")
                continue
            if info.flag_bits & 0x1:
                yield Skipped(shown, "encrypted; hand it in without a password")
                continue
            if info.file_size > MAX_SAVE_BYTES:
                yield Skipped(shown, f"over {MAX_SAVE_BYTES // 10**6} MB; not a save")
                continue
            try:
                with archive.open(info) as stream:
                    # Read one byte past the limit: the size the zip declares may lie.
                    data = stream.read(MAX_SAVE_BYTES + 1)
            except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError) as exc:
                yield Skipped(shown, f"cannot be read from the zip ({exc})")
                continue
            if len(data) > MAX_SAVE_BYTES:
                yield Skipped(shown, f"over {MAX_SAVE_BYTES // 10**6} MB; not a save")
                continue
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                raise HandInError(
                    f"{path}: more than {MAX_TOTAL_BYTES // 10**9} GB of saves; collect it in parts"
                )
            yield HandedFile(parts, data, _zip_time(info))


def _entry_parts(name: str) -> tuple[str, ...] | None:
    """The entry's path as parts, or None when it would leave the zip."""
    name = name.replace("\\", "/")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return None
    parts = PurePosixPath(name).parts
    if not parts or any(p in ("..", "") for p in parts) or any("\x00" in p for p in parts):
        return None
    return tuple(p for p in parts if p != ".")


def _utc(timestamp: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(timestamp, dt.UTC).replace(microsecond=0)


def _zip_time(info: zipfile.ZipInfo) -> dt.datetime:
    """A zip keeps the local time of the machine that made it, with no zone: read as this
    machine's local time."""
    try:
        return dt.datetime(*info.date_time).astimezone().astimezone(dt.UTC)
    except ValueError:
        return dt.datetime(1980, 1, 1, tzinfo=dt.UTC)

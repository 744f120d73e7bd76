"""An incident file's bytes and text, before any YAML: the size limit, what cannot be read, and
UTF-8. Apart from the YAML reader (drill/incident/yaml_source.py, which re-exports these), so
that the picker's and the briefing's header read (drill/incident/header.py) does not import
the located loader before the first frame."""

from __future__ import annotations

import os
import stat

from drill.incident.errors import IncidentError, Problem

MAX_FILE_BYTES = 256 * 1024


def _fail(filename: str, message: str, line: int = 1, col: int = 1) -> IncidentError:
    return IncidentError([Problem(filename, line, col, message)])


def read_source_bytes(path: str | os.PathLike[str], shown: str) -> bytes:
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise _fail(shown, "this is a directory, not a file; give the path of a .yaml file")
        if not stat.S_ISREG(info.st_mode):
            raise _fail(shown, "this is not a regular file; give the path of a .yaml file")
        if info.st_size > MAX_FILE_BYTES:
            raise _fail(shown, _size_message(info.st_size))
        with open(path, "rb") as handle:
            # Read one byte past the limit in case the file grew since stat.
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise _fail(shown, "file not found; check the path and the file name") from None
    except IsADirectoryError:
        raise _fail(
            shown, "this is a directory, not a file; give the path of a .yaml file"
        ) from None
    except PermissionError:
        raise _fail(
            shown, "permission denied when reading the file; check its permissions"
        ) from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or type(exc).__name__
        raise _fail(shown, f"could not read the file ({reason}); check the path") from None
    if len(raw) > MAX_FILE_BYTES:
        raise _fail(shown, _size_message(len(raw)))
    return raw


def _size_message(size: int) -> str:
    return (
        f"the file is larger than {MAX_FILE_BYTES // 1024} KiB ({size} bytes or more); an incident"
        " file should be a few KiB, so check that this is the right file"
    )


def decode_source(raw: bytes, shown: str) -> str:
    """UTF-8 text from the file's bytes (a BOM is dropped); UTF-16 and bad bytes are located problems."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise _fail(shown, "the file is saved as UTF-16; save it as UTF-8")
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        line_start = before.rfind(b"\n") + 1
        col = len(before[line_start:].decode("utf-8", errors="replace")) + 1
        raise _fail(
            shown,
            f"byte 0x{raw[exc.start]:02x} is not valid UTF-8; save the file as UTF-8",
            line,
            col,
        ) from None

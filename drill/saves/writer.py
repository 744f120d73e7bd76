"""Append a save as the game goes: each line lands whole, or the save stays as it was.

Each line is written with os.write until every byte is out, then fsynced, before the next
action runs, so a kill -9 loses nothing already accepted. When a write fails (a full disk, a
file size limit, an I/O error), the part of the line that did land is cut off again with
ftruncate, so the save ends at its last whole line, and the failure is one SaveError naming the
line that could not be written. The first line of a new save failing removes the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import drill
from drill import __version__
from drill.saves.files import (
    create_save_file,
    fsync_folder,
    open_save_for_append,
    read_save_bytes,
)
from drill.saves.lock import lock_save
from drill.saves.model import Save, SaveError
from drill.saves.origin import current_origin
from drill.saves.reader import FORMAT


class SaveWriter:
    def __init__(self, path: Path, fd: int, *, lines: int, size: int):
        self.path = path
        self._fd: int | None = fd
        self.lines = lines  # whole lines in the file
        self._size = size
        # The header's seed and backend, repeated on the score line: a header edited after the
        # night was scored then names its changed field in `replay --verify`.
        self.night: dict[str, Any] = {}

    @classmethod
    def start(
        cls,
        path,
        *,
        incident_id,
        incident_sha256,
        incident_path,
        seed,
        backend,
        ranks=None,
        origin: dict[str, Any] | None = None,
        replica: str | None = None,
        replica_sha256: str | None = None,
        fd: int | None = None,
        learner: str | None = None,
    ) -> SaveWriter:
        """A new save at `path`; `fd` when the caller already created it (claim_new_save)."""
        path = Path(path)
        header = {
            "type": "header",
            "format": FORMAT,
            "drill_version": __version__,
            # Read when a save is made, not at import: the fingerprint hashes drill's source,
            # which the picker's first frame (it imports the saves for best scores) need not.
            "engine_version": drill.ENGINE_VERSION,
            "incident_id": incident_id,
            "incident_sha256": incident_sha256,
            "incident_path": str(incident_path),
            "seed": seed,
            "backend": backend,
            "ranks": ranks,
            "origin": origin if origin is not None else current_origin(backend != "sim"),
        }
        if replica:
            # Only when it is not the shipped default, so default saves stay as they were.
            header["replica"] = replica
            if replica_sha256:  # a learner's replica: its source, so a replay can tell it changed
                header["replica_sha256"] = replica_sha256
        if learner is not None:
            # A course's night (`drill play --course`): whose it is, repeated on the score line.
            header["learner"] = learner
        if fd is None:
            fd = create_save_file(path)
        writer = cls(path, fd, lines=0, size=0)
        writer.night = {"seed": seed, "backend": backend}
        if learner is not None:
            writer.night["learner"] = learner
        try:
            lock_save(fd, str(path))  # held until close: one writer per save
            if os.fstat(fd).st_size:
                # An empty file we took over was written by another drill meanwhile.
                raise SaveError(
                    str(path), 1, "another drill started a save here just now; pick another path"
                )
        except BaseException:
            writer.close()  # the file is the other drill's: leave it
            raise
        try:
            writer._write(header)
        except SaveError:
            writer.close()
            path.unlink(missing_ok=True)
            raise
        fsync_folder(path.parent)
        return writer

    @classmethod
    def reopen(cls, save: Save) -> SaveWriter:
        """Carry on appending to an existing save: a last line a crash cut short is dropped, a
        whole last line missing its newline gets one."""
        path = Path(save.path)
        fd = open_save_for_append(path)
        writer = cls(path, fd, lines=save.lines, size=0)
        writer.night = {"seed": save.seed, "backend": save.backend}
        if "learner" in save.header:
            writer.night["learner"] = save.header["learner"]
        try:
            lock_save(fd, str(path))  # held until close: one writer per save
            size = os.fstat(fd).st_size
            if size != save.size:
                # Another drill wrote between our read and our lock, and has finished: what we
                # read is stale, and appending after it would double its actions.
                raise SaveError(
                    str(path),
                    save.lines + 1,
                    "the save changed since it was read (another drill wrote to it); resume"
                    " again to carry on from what it holds now",
                )
            writer._size = size
            if save.truncated:
                writer._drop_torn_tail(read_save_bytes(path).rfind(b"\n") + 1)
            elif save.needs_newline:
                writer._append(b"\n", what=f"the newline after line {save.lines}")
        except BaseException:
            writer.close()
            raise
        return writer

    def action(self, n: int, result) -> None:
        self._write(
            {
                "type": "action",
                "n": n,
                "time": round(result.time, 3),
                "end": round(result.end, 3),
                "text": result.text,
                "accepted": result.accepted,
                "result": result.output,
            }
        )

    def text(self, key: str, value: str) -> None:
        self._write({"type": "text", "key": key, "value": value})

    def score(self, score: dict[str, Any], end_time: float) -> None:
        self._write({"type": "score", "score": score, "end_time": round(end_time, 3), **self.night})

    @property
    def closed(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
        self._append(line.encode("utf-8"), what=f"line {self.lines + 1} ({record['type']})")
        self.lines += 1

    def _append(self, data: bytes, *, what: str) -> None:
        if self._fd is None:
            raise SaveError(str(self.path), self.lines + 1, "the save is already closed")
        before = self._size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            os.fsync(self._fd)
        except OSError as exc:
            kept = self._cut(before)
            reason = exc.strerror or type(exc).__name__
            raise SaveError(
                str(self.path),
                self.lines + 1,
                f"cannot write {what}: {reason}. {kept}",
            ) from None
        self._size = before + len(data)

    def _drop_torn_tail(self, size: int) -> None:
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, size)
            os.fsync(self._fd)
        except OSError as exc:
            raise SaveError(
                str(self.path),
                self.lines + 1,
                f"cannot drop the last line, which a crash cut short: {exc.strerror}",
            ) from None
        self._size = size

    def _cut(self, size: int) -> str:
        """Put the file back to `size` bytes; says what the save now holds."""
        assert self._fd is not None
        try:
            os.ftruncate(self._fd, size)
            os.fsync(self._fd)
        except OSError as exc:
            return (
                f"The part of the line that landed could not be cut off either"
                f" ({exc.strerror}); readers skip a last line cut short, so the save still reads"
                f" back to line {self.lines}."
            )
        self._size = size
        if self.lines == 0:
            return "Nothing was saved."
        return (
            f"The save keeps its {self.lines} whole lines; `--resume {self.path}` carries on"
            " from there once there is room."
        )

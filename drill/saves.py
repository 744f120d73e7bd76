"""Saves: one JSON Lines file per session, appended and flushed as the game goes.

    {"type": "header", "format": 1, "drill_version": ..., "engine_version": ..., "incident_id":
     ..., "incident_sha256": ..., "incident_path": ..., "seed": ..., "backend": ...}
    {"type": "action", "n": 1, "time": 1230.0, "end": 1290.0, "text": "health gpu-a-2",
     "accepted": true, "result": "..."}
    {"type": "text", "key": "runbook.health", "value": "..."}      learner's own words
    {"type": "score", "score": {...}, "end_time": ...}

Each line is written whole, flushed and fsynced before the next action runs, so a kill -9
loses nothing already accepted. A reader stops cleanly at a last line cut short by a crash.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from drill import ENGINE_VERSION, __version__

FORMAT = 1
MAX_SAVE_BYTES = 50_000_000


class SaveError(Exception):
    """A save that cannot be read: the message names the file and line."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


@dataclass
class SavedAction:
    n: int
    time: float
    end: float
    text: str
    accepted: bool
    result: str
    line: int  # where it sits in the file, for messages


@dataclass
class Save:
    path: str
    header: dict[str, Any]
    actions: list[SavedAction] = field(default_factory=list)
    texts: dict[str, str] = field(default_factory=dict)
    score: dict[str, Any] | None = None
    truncated: bool = False  # the last line was cut short (a crash mid-write)

    @property
    def seed(self) -> int:
        return int(self.header["seed"])

    @property
    def backend(self) -> str:
        return str(self.header.get("backend", "inprocess"))

    @property
    def ranks(self) -> int | None:
        ranks = self.header.get("ranks")
        return ranks if isinstance(ranks, int) else None

    @property
    def replica(self) -> str | None:
        """The replica the night ran (module:factory or a shipped name); None: the default."""
        replica = self.header.get("replica")
        return replica if isinstance(replica, str) and replica else None


class SaveWriter:
    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (kept open on purpose)
        if fresh:
            self._write({"type": "header", **header})
            _fsync_dir(self.path.parent)

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
        replica=None,
    ) -> SaveWriter:
        if Path(path).exists() and Path(path).stat().st_size > 0:
            raise SaveError(
                str(path),
                1,
                "a save already exists here; carry it on with --resume, or pick another path",
            )
        header = {
            "format": FORMAT,
            "drill_version": __version__,
            "engine_version": ENGINE_VERSION,
            "incident_id": incident_id,
            "incident_sha256": incident_sha256,
            "incident_path": str(incident_path),
            "seed": seed,
            "backend": backend,
            "ranks": ranks,
        }
        if replica:
            # Only when it is not the shipped default, so default saves stay as they were.
            header["replica"] = replica
        return cls(path, header)

    @classmethod
    def reopen(cls, save: Save) -> SaveWriter:
        """Carry on appending to an existing save, dropping a last line a crash cut short."""
        if save.truncated:
            _drop_partial_tail(Path(save.path))
        return cls(save.path, save.header)

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
        self._write({"type": "score", "score": score, "end_time": round(end_time, 3)})

    def close(self) -> None:
        self._file.close()

    def _write(self, record: dict[str, Any]) -> None:
        self._file.write(json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())


def read_save(path: str | Path) -> Save:
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise SaveError(
            shown, 1, "save not found; check the path (saves live in ./saves by default)"
        ) from None
    except IsADirectoryError:
        raise SaveError(shown, 1, "this is a folder; give a .jsonl save file") from None
    except OSError as exc:
        raise SaveError(shown, 1, f"cannot read it: {exc.strerror}") from None
    if len(raw) > MAX_SAVE_BYTES:
        raise SaveError(shown, 1, "the save is over 50 MB; that is not a save this game wrote")
    lines = raw.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a line a crash cut short
    if not lines:
        raise SaveError(shown, 1, "the save is empty or has no complete header line")
    save: Save | None = None
    for number, blob in enumerate(lines, start=1):
        record = _parse_line(shown, number, blob)
        kind = record.get("type")
        if number == 1:
            save = Save(shown, _check_header(shown, record))
            continue
        assert save is not None
        if save.score is not None and kind != "text":
            # The debrief writes the learner's texts after the score; nothing else comes later.
            raise SaveError(
                shown,
                number,
                "an action after the final score; the save was edited or two saves were joined",
            )
        if kind == "action":
            save.actions.append(_action(shown, number, record, len(save.actions) + 1))
        elif kind == "text":
            if not isinstance(record.get("key"), str) or not isinstance(record.get("value"), str):
                raise SaveError(shown, number, "a text line needs string `key` and `value`")
            save.texts[record["key"]] = record["value"]
        elif kind == "score":
            if not isinstance(record.get("score"), dict):
                raise SaveError(shown, number, "a score line needs a `score` object")
            save.score = record["score"]
        else:
            raise SaveError(
                shown, number, f"unknown line type {kind!r}; expected action, text or score"
            )
    assert save is not None
    save.truncated = bool(tail.strip())
    return save


def _parse_line(path: str, number: int, blob: bytes) -> dict[str, Any]:
    try:
        record = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise SaveError(
            path, number, "this line is not valid JSON; the save is corrupted here"
        ) from None
    if not isinstance(record, dict):
        raise SaveError(path, number, "each line must be a JSON object")
    return record


def _check_header(path: str, record: dict[str, Any]) -> dict[str, Any]:
    if record.get("type") != "header":
        raise SaveError(path, 1, "the first line must be the header; is this a save file?")
    version = record.get("format")
    if not isinstance(version, int):
        raise SaveError(path, 1, "the header has no format version")
    if version > FORMAT:
        raise SaveError(
            path,
            1,
            f"save format {version} is newer than this drill reads ({FORMAT}); upgrade drill",
        )
    for key, kind in (
        ("incident_id", str),
        ("incident_sha256", str),
        ("seed", int),
        ("backend", str),
    ):
        if not isinstance(record.get(key), kind):
            raise SaveError(path, 1, f"the header's `{key}` is missing or not a {kind.__name__}")
    return record


def _action(path: str, number: int, record: dict[str, Any], expected_n: int) -> SavedAction:
    try:
        action = SavedAction(
            n=int(record["n"]),
            time=float(record["time"]),
            end=float(record["end"]),
            text=str(record["text"]),
            accepted=bool(record["accepted"]),
            result=str(record["result"]),
            line=number,
        )
    except (KeyError, TypeError, ValueError):
        raise SaveError(
            path, number, "an action line needs n, time, end, text, accepted and result"
        ) from None
    if action.n != expected_n:
        raise SaveError(
            path, number, f"action number {action.n} out of order; expected {expected_n}"
        )
    return action


def _drop_partial_tail(path: Path) -> None:
    data = path.read_bytes()
    cut = data.rfind(b"\n") + 1
    with open(path, "r+b") as handle:
        handle.truncate(cut)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def default_save_path(incident_id: str, seed: int) -> Path:
    from drill.saves_dir import saves_dir

    folder = saves_dir()
    folder.mkdir(parents=True, exist_ok=True)
    n = 1
    while (folder / f"{incident_id}-seed{seed}-{n:03d}.jsonl").exists():
        n += 1
    return folder / f"{incident_id}-seed{seed}-{n:03d}.jsonl"


def best_scores(folder: Path | None = None) -> dict[str, float]:
    """The best finished score per incident id among the saves in a folder (unreadable saves
    are skipped: a picker must open even when one save is damaged)."""
    from drill.saves_dir import saves_dir

    folder = folder or saves_dir()
    best: dict[str, float] = {}
    if not folder.is_dir():
        return best
    for path in sorted(folder.glob("*.jsonl")):
        try:
            save = read_save(path)
        except SaveError:
            continue
        if save.score is None:
            continue
        total = float(save.score.get("total", 0.0))
        incident_id = str(save.header["incident_id"])
        best[incident_id] = max(best.get(incident_id, 0.0), total)
    return best

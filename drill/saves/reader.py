"""Read a save back: every field of every line checked, every problem a SaveError at its line.

The game writes exactly these lines, with exactly these fields:

    header   type format drill_version engine_version incident_id incident_sha256
             incident_path seed backend ranks origin [replica replica_sha256] [learner]
    action   type n time end text accepted result
    text     type key value        (the learner's own words; the debrief writes them after the score)
    score    type score end_time [seed backend] [learner]   (the header's again; older saves
             lack them; `learner` only in a save played for a course)

A field missing, unknown or of the wrong kind is an error naming its line, so an edited or
damaged save is refused here instead of misleading a replay. Lines are split on "\\n" alone (a
form feed or a Unicode line separator inside a line does not shift the numbers). A last line
with no newline after it is read when it parses; when it does not, it is what a crash mid-write
leaves, and the save is `truncated`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, TypeGuard

from drill.saves.files import read_save_bytes
from drill.saves.json_line import parse_record
from drill.saves.model import Save, SavedAction, SaveError
from drill.saves.origin import KEYS as ORIGIN_KEYS
from drill.session_options import MAX_RANKS
from drill.values.bounds import MAX_NIGHT

FORMAT = 2  # 2 added the header's `origin`; format 1 saves are read too
BACKENDS = ("inprocess", "gloo", "sim")
MAX_TIME = MAX_NIGHT  # the longest night an incident may have; the engine stops the clock there
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
SHA256 = re.compile(r"[0-9a-f]{64}")
# A replica: an installed one's name, or module:factory (replayed only when the command line
# repeats it; drill/replica_choice.py).
REPLICA = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
    r"|[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*"
)

HEADER_FIELDS = {
    "type",
    "format",
    "drill_version",
    "engine_version",
    "incident_id",
    "incident_sha256",
    "incident_path",
    "seed",
    "backend",
    "ranks",
    "origin",
    "replica",
    "replica_sha256",
    # Whose night this is, in a save played for a course (`drill play --course`): the name the
    # learner gave. Optional; the score line repeats it, so verify names an edit at line 1.
    "learner",
}
REQUIRED_HEADER = ("type", "format", "incident_id", "incident_sha256", "seed", "backend")
ACTION_FIELDS = ("type", "n", "time", "end", "text", "accepted", "result")
TEXT_FIELDS = ("type", "key", "value")
SCORE_FIELDS = ("type", "score", "end_time")
# The header's seed and backend again, so that verify can name a header edited after the
# night was scored; saves from before they were written lack them.
SCORE_OPTIONAL = ("seed", "backend", "learner")
MAX_LEARNER = 60


def read_save(path: str | Path) -> Save:
    shown = str(path)
    raw = read_save_bytes(path)
    lines = raw.split(b"\n")
    tail = lines.pop()  # after the last newline: empty, or a line with no newline after it
    if not lines and not tail.strip():
        raise SaveError(shown, 1, "the save is empty or has no complete header line")
    save: Save | None = None
    record: dict[str, Any] | None  # the tail's may be None: a line cut short
    for number, blob in enumerate(lines, start=1):
        record = parse_record(shown, number, blob)
        if save is None:
            save = Save(shown, check_header(shown, record))
        else:
            _add_line(save, number, record)
    last = len(lines) + 1
    if tail.strip():
        try:
            record = parse_record(shown, last, tail)
        except SaveError:
            record = None  # cut short by a crash mid-write: resuming drops it
        if record is None:
            if save is None:
                raise SaveError(shown, 1, "the save has no complete header line")
            save.truncated = True
        elif save is None:
            save = Save(shown, check_header(shown, record))
            save.needs_newline = True
        else:
            _add_line(save, last, record)
            save.needs_newline = True
    assert save is not None
    save.lines = len(lines) + (1 if save.needs_newline else 0)
    save.size = len(raw)
    return save


def _add_line(save: Save, number: int, record: dict[str, Any]) -> None:
    path = save.path
    kind = record.get("type")
    if save.score is not None and kind != "text":
        # The debrief writes the learner's texts after the score; nothing else comes later.
        raise SaveError(
            path,
            number,
            f"a line of type {_shown(kind)} after the final score (line {save.score_line});"
            " the save was edited or two saves were joined",
        )
    if kind == "action":
        _fields(path, number, record, ACTION_FIELDS, ACTION_FIELDS, "an action")
        save.actions.append(_action(path, number, record, save))
    elif kind == "text":
        _fields(path, number, record, TEXT_FIELDS, TEXT_FIELDS, "a text")
        for key in ("key", "value"):
            if not isinstance(record[key], str):
                raise SaveError(path, number, f"a text line's `{key}` must be a string")
        if not 0 < len(record["key"]) <= 200:
            raise SaveError(path, number, "a text line's `key` must be 1 to 200 characters")
        save.texts[record["key"]] = record["value"]
    elif kind == "score":
        _fields(path, number, record, SCORE_FIELDS + SCORE_OPTIONAL, SCORE_FIELDS, "a score")
        save.score = check_score(path, number, record["score"])
        if "learner" in record:
            check_learner(path, number, "the score line's", record["learner"])
        save.scored_as = {key: record[key] for key in SCORE_OPTIONAL if key in record}
        save.end_time = _time(path, number, record, "end_time")
        save.score_line = number
    else:
        raise SaveError(
            path, number, f"unknown line type {_shown(kind)}; expected action, text or score"
        )


def check_header(path: str, record: dict[str, Any]) -> dict[str, Any]:
    if record.get("type") != "header":
        raise SaveError(path, 1, "the first line must be the header; is this a save file?")
    _fields(path, 1, record, HEADER_FIELDS, REQUIRED_HEADER, "the header")
    version = record["format"]
    if not _is_int(version) or version < 1:
        raise SaveError(path, 1, "the header's `format` must be a whole number like 2")
    if version > FORMAT:
        raise SaveError(
            path,
            1,
            f"save format {version} is newer than this drill reads ({FORMAT}); upgrade drill",
        )
    for key in ("drill_version", "engine_version", "incident_path"):
        if key in record and not (isinstance(record[key], str) and len(record[key]) <= 4096):
            raise SaveError(path, 1, f"the header's `{key}` must be a string")
    incident_id = record["incident_id"]
    if not (isinstance(incident_id, str) and NAME.fullmatch(incident_id)):
        raise SaveError(
            path,
            1,
            f"the header's incident id {_shown(incident_id)} is not an incident id"
            " (lower case letters, digits and -)",
        )
    if not (
        isinstance(record["incident_sha256"], str) and SHA256.fullmatch(record["incident_sha256"])
    ):
        raise SaveError(path, 1, "the header's `incident_sha256` must be 64 hex digits")
    seed = record["seed"]
    if not _is_int(seed) or not -(2**63) <= seed < 2**63:
        raise SaveError(path, 1, f"the header's `seed` must be a whole number, not {_shown(seed)}")
    backend = record["backend"]
    if backend not in BACKENDS:
        raise SaveError(
            path,
            1,
            f"the header's `backend` {_shown(backend)} is not one drill has; use one of"
            f" {', '.join(BACKENDS)}",
        )
    ranks = record.get("ranks")
    if ranks is not None and not (_is_int(ranks) and 1 <= ranks <= MAX_RANKS):
        raise SaveError(
            path,
            1,
            f"the header's `ranks` must be a whole number from 1 to {MAX_RANKS}, or null for"
            f" the backend's default; it is {_shown(ranks)}",
        )
    replica = record.get("replica")
    if replica is not None and not (
        isinstance(replica, str) and len(replica) <= 200 and REPLICA.fullmatch(replica)
    ):
        raise SaveError(
            path,
            1,
            f"the header's `replica` must name a replica (an installed one's name, or the"
            f" module:factory the night was run with), or be left out for the default; it is"
            f" {_shown(replica)}",
        )
    replica_sha256 = record.get("replica_sha256")
    if replica_sha256 is not None and not (
        replica is not None and isinstance(replica_sha256, str) and SHA256.fullmatch(replica_sha256)
    ):
        raise SaveError(
            path,
            1,
            f"the header's `replica_sha256` must be 64 hex digits beside a `replica`; it is"
            f" {_shown(replica_sha256)}",
        )
    if "learner" in record:
        check_learner(path, 1, "the header's", record["learner"])
    origin = record.get("origin")
    if origin is not None:
        if not isinstance(origin, dict) or set(origin) - set(ORIGIN_KEYS):
            raise SaveError(
                path, 1, f"the header's `origin` must be an object with {', '.join(ORIGIN_KEYS)}"
            )
        if not all(v is None or (isinstance(v, str) and len(v) <= 200) for v in origin.values()):
            raise SaveError(path, 1, "the header's `origin` values must be short strings or null")
    return record


def check_learner(path: str, number: int, whose: str, name: Any) -> str:
    """A learner's name as a save may hold it: 1 to MAX_LEARNER characters of printable text,
    not blank, no control characters (it is shown in gradebooks and file lists)."""
    if not (
        isinstance(name, str)
        and 0 < len(name) <= MAX_LEARNER
        and name.strip()
        and name.isprintable()
    ):
        raise SaveError(
            path,
            number,
            f"{whose} `learner` must be a name of 1 to {MAX_LEARNER} printable characters, not"
            f" {_shown(name)}",
        )
    return name


def _action(path: str, number: int, record: dict[str, Any], save: Save) -> SavedAction:
    expected_n = len(save.actions) + 1
    n = record["n"]
    if not _is_int(n):
        raise SaveError(path, number, f"an action's `n` must be a whole number, not {_shown(n)}")
    if n != expected_n:
        raise SaveError(path, number, f"action number {n} out of order; expected {expected_n}")
    time, end = _time(path, number, record, "time"), _time(path, number, record, "end")
    if end < time:
        raise SaveError(path, number, f"action {n} ends ({end}) before it starts ({time})")
    if time + 1e-6 < save.last_end:
        raise SaveError(
            path,
            number,
            f"action {n} starts at {time}, before the previous action ended ({save.last_end});"
            " actions run one at a time",
        )
    if not isinstance(record["text"], str) or not 0 < len(record["text"]) <= 4000:
        raise SaveError(path, number, "an action's `text` must be a string of 1 to 4000 characters")
    if not isinstance(record["accepted"], bool):
        raise SaveError(
            path,
            number,
            f"an action's `accepted` must be true or false, not {_shown(record['accepted'])}",
        )
    if not isinstance(record["result"], str):
        raise SaveError(path, number, "an action's `result` must be a string")
    return SavedAction(
        n=n,
        time=time,
        end=end,
        text=record["text"],
        accepted=record["accepted"],
        result=record["result"],
        line=number,
    )


def check_score(path: str, number: int, score: Any) -> dict[str, Any]:
    if not isinstance(score, dict):
        raise SaveError(path, number, "a score line's `score` must be an object")
    total = score.get("total")
    if not _is_number(total) or not 0 <= total <= 1000:
        raise SaveError(path, number, f"the score's `total` must be a number, not {_shown(total)}")
    if not isinstance(score.get("grade"), str):
        raise SaveError(path, number, "the score's `grade` must be a string like A")
    components = score.get("components")
    if not isinstance(components, list) or not all(isinstance(c, dict) for c in components):
        raise SaveError(path, number, "the score's `components` must be a list of objects")
    return score


def _time(path: str, number: int, record: dict[str, Any], key: str) -> float:
    value = record[key]
    if not _is_number(value) or not 0 <= value <= MAX_TIME:
        raise SaveError(
            path,
            number,
            f"`{key}` must be seconds into the night (0 to {MAX_TIME:g}), not {_shown(value)}",
        )
    return float(value)


def _fields(path: str, number: int, record: dict[str, Any], allowed, required, what: str) -> None:
    missing = [key for key in required if key not in record]
    if missing:
        raise SaveError(
            path,
            number,
            f"{what} line needs {', '.join(f'`{k}`' for k in missing)}; the save was edited or"
            " damaged here",
        )
    unknown = sorted(set(record) - set(allowed))
    if unknown:
        raise SaveError(
            path,
            number,
            f"{what} line has a field the game never writes: {_shown(unknown[0])}; the save was"
            " edited here",
        )


def _is_int(value: Any) -> bool:
    return type(value) is int  # not bool: `true` is not a count


def _is_number(value: Any) -> TypeGuard[int | float]:
    return type(value) in (int, float) and math.isfinite(value)


def _shown(value: Any) -> str:
    """A value from the save, short and escaped: it may hold anything."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."

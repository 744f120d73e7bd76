"""The saves folder: where a new save goes, and the best score per incident for the picker."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from drill.saves.files import _CREATE, read_save_ends
from drill.saves.json_line import parse_record
from drill.saves.model import SaveError
from drill.saves.reader import check_header, check_score

# The picker reads only the header (the first line) and the score line (last, or followed by
# the debrief's texts), from at most these many bytes at each end of a save: its first frame
# must not wait on a big or hostile file. A finished save whose score line sits further from
# the end than this (debrief answers of hundreds of kB) is left out of the best scores.
HEAD_BYTES = 64 * 1024
TAIL_BYTES = 256 * 1024
MAX_NAMES = 10_000


def save_name(folder: Path, incident_id: str, seed: int, n: int) -> Path:
    return folder / f"{incident_id}-seed{seed}-{n:03d}.jsonl"


def default_save_path(incident_id: str, seed: int) -> Path:
    """The next free name in the saves folder, as it looks now. A name taken by anything, a
    dangling symbolic link included, is skipped: the writer never follows a link. Two drills
    may both see the same name free: a new save takes its name with claim_new_save."""
    from drill.saves_dir import saves_dir

    folder = saves_dir()
    n = 1
    while os.path.lexists(save_name(folder, incident_id, seed, n)):
        n += 1
    return save_name(folder, incident_id, seed, n)


def claim_new_save(incident_id: str, seed: int) -> tuple[Path, int]:
    """A new save file in the saves folder, each name tried with O_CREAT | O_EXCL, so that two
    drills starting the same incident and seed at once get two names: whichever creates a name
    first has it, and the other goes on to the next number. A name taken by anything, a
    dangling symbolic link included, is skipped. (path, fd open for appending)."""
    from drill.saves_dir import saves_dir

    folder = saves_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SaveError(
            str(save_name(folder, incident_id, seed, 1)),
            1,
            f"cannot make the folder {folder}: {exc.strerror or type(exc).__name__}; pick"
            " another with --saves-dir, or give --save",
        ) from None
    for n in range(1, MAX_NAMES + 1):
        path = save_name(folder, incident_id, seed, n)
        try:
            return path, os.open(path, _CREATE, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                continue
            raise SaveError(
                str(path), 1, f"cannot create it: {exc.strerror or type(exc).__name__}"
            ) from None
    raise SaveError(
        str(save_name(folder, incident_id, seed, 1)),
        1,
        f"all {MAX_NAMES} names like this one are taken; clear out the saves folder or give --save",
    )


def best_scores(folder: Path | None = None) -> dict[str, float]:
    """The best finished score per incident id among the saves in a folder. A save that does
    not read quickly is skipped: the picker must open even when one save is damaged or hostile."""
    from drill.saves_dir import saves_dir

    folder = folder or saves_dir()
    best: dict[str, float] = {}
    if not folder.is_dir():
        return best
    for path in sorted(folder.glob("*.jsonl")):
        try:
            found = best_score_of(path)
        except SaveError:
            continue
        if found is None:
            continue
        incident_id, total = found
        best[incident_id] = max(best.get(incident_id, 0.0), total)
    return best


def best_score_of(path: Path) -> tuple[str, float] | None:
    """(incident id, total) of a finished save, from its header and score line alone; None for
    a night not finished. Reads at most HEAD_BYTES + TAIL_BYTES, parses at most that many."""
    shown = str(path)
    head, tail, size = read_save_ends(path, HEAD_BYTES, TAIL_BYTES)
    if b"\n" not in head:
        raise SaveError(shown, 1, "no header line in the first bytes")
    header = check_header(shown, parse_record(shown, 1, head.split(b"\n", 1)[0]))
    lines = tail.split(b"\n")
    if size > len(tail):
        lines = lines[1:]  # the first piece starts mid-line
    for blob in reversed(lines):
        if not blob.strip():
            continue
        record = parse_record(shown, 0, blob)
        kind = record.get("type")
        if kind == "text":
            continue  # the debrief's words come after the score
        if kind != "score":
            return None  # an action last: the night was not finished
        score = check_score(shown, 0, record.get("score"))
        return str(header["incident_id"]), float(score["total"])
    return None

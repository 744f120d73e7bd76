"""`course.toml`: a course's title, its nights in order, and how they are played and graded.

    title = "Cluster orchestration: three nights"
    backend = "inprocess"          # what learners play on and grading replays on: inprocess or sim
    attempt = "best"               # which verified attempt counts: best, last or first

    [[nights]]
    incident = "incidents/tutorial.yaml"   # a file inside the course folder
    seeds = [1, 40]                        # a range, inclusive (each learner gets one), or seed = 1
    deadline = 2026-12-14T23:59:00Z        # optional, with its time zone

The same file, rewritten by `drill course release`, is the learners' pack's: `drill play
--course PACK` reads it with this loader. Nothing in it names code to import or run (a key the
course does not know is refused, whatever it is), and an incident path that leaves the course
folder, by `..`, an absolute path or a link, is refused at its line. Every problem is one
CourseError naming the file, the line and the fix.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drill.classroom.toml_lines import KeyLines, key_lines

COURSE_FILE = "course.toml"
BACKENDS = ("inprocess", "sim")
ATTEMPTS = ("best", "last", "first")
TOP_KEYS = ("title", "backend", "attempt", "nights")
NIGHT_KEYS = ("incident", "seed", "seeds", "deadline")
MAX_NIGHTS = 100
MAX_SEEDS = 100_000  # a range this wide is a typo, not a class
MAX_TITLE = 200
MAX_FILE_BYTES = 200_000
SEED_LIMIT = 2**63


class CourseError(Exception):
    """A course file that cannot be used: one line naming the file, the line and the fix."""

    def __init__(self, path: str | Path, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = str(path), line, message


@dataclass(frozen=True)
class Night:
    id: str  # the incident's id
    incident: Path  # the incident file, resolved inside the course folder
    written: str  # the path as course.toml gives it
    first_seed: int
    last_seed: int
    deadline: dt.datetime | None
    line: int  # where its [[nights]] table starts, for messages

    @property
    def seeds(self) -> range:
        return range(self.first_seed, self.last_seed + 1)

    def has_seed(self, seed: int) -> bool:
        return self.first_seed <= seed <= self.last_seed

    def seed_for(self, learner: str) -> int:
        """The learner's own seed in the night's range: the same every time for the same name
        (however it is capitalised or spaced), spread over the range, so neighbours rarely
        share a night to copy."""
        size = self.last_seed - self.first_seed + 1
        if size == 1:
            return self.first_seed
        digest = hashlib.sha256(f"{self.id}\n{learner_key(learner)}".encode()).digest()
        return self.first_seed + int.from_bytes(digest[:8], "big") % size

    def seeds_text(self) -> str:
        if self.first_seed == self.last_seed:
            return f"seed {self.first_seed}"
        return f"seeds {self.first_seed} to {self.last_seed}"


@dataclass(frozen=True)
class Course:
    folder: Path
    path: Path
    title: str
    backend: str
    attempt: str
    nights: tuple[Night, ...]

    def night(self, incident_id: str) -> Night | None:
        return next((n for n in self.nights if n.id == incident_id), None)

    @property
    def night_ids(self) -> tuple[str, ...]:
        return tuple(n.id for n in self.nights)


def learner_key(name: str) -> str:
    """Who a name is, whatever its case or spacing: "Ada  Lovelace" and "ada lovelace" are one
    learner in the gradebook."""
    return " ".join(name.split()).casefold()


def course_path(folder: str | Path) -> Path:
    """The course file of a course folder (or the file itself, when given)."""
    path = Path(folder)
    return path if path.name == COURSE_FILE or path.suffix == ".toml" else path / COURSE_FILE


def load_course(folder: str | Path) -> Course:
    path = course_path(folder)
    shown = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CourseError(
            shown, 1, "no course here; make one with `drill course new FOLDER`, or pass --course"
        ) from None
    except OSError as exc:
        raise CourseError(shown, 1, f"cannot read it: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise CourseError(shown, 1, f"over {MAX_FILE_BYTES // 1000} kB; a course file is short")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise CourseError(shown, line, "not UTF-8 text; save the file as UTF-8") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_error(shown, exc) from None
    return _course(path, data, key_lines(text))


def _toml_error(shown: str, exc: tomllib.TOMLDecodeError) -> CourseError:
    message = str(exc)
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    line = int(found.group(1)) if found else 1
    what = re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or "a TOML error"
    where = f", column {found.group(2)}" if found else ""
    return CourseError(
        shown, line, f"not valid TOML{where}: {what}; see docs/course.md for the format"
    )


def _course(path: Path, data: dict[str, Any], lines: KeyLines) -> Course:
    shown = str(path)
    _known_keys(shown, data, TOP_KEYS, lines, None, "the course")
    title = data.get("title")
    if not isinstance(title, str) or not title.strip() or len(title) > MAX_TITLE:
        raise CourseError(
            shown,
            lines.of(None, "title"),
            f'`title` must be the course\'s name in 1 to {MAX_TITLE} characters, like title = "Week 6"',
        )
    if not title.isprintable():
        raise CourseError(shown, lines.of(None, "title"), "`title` has a control character")
    backend = data.get("backend", "inprocess")
    if backend not in BACKENDS:
        raise CourseError(
            shown,
            lines.of(None, "backend"),
            f"`backend` must be one of {', '.join(BACKENDS)} (the backend learners play on and"
            f" grading replays on), not {_shown(backend)}",
        )
    attempt = data.get("attempt", "best")
    if attempt not in ATTEMPTS:
        raise CourseError(
            shown,
            lines.of(None, "attempt"),
            f"`attempt` must be one of {', '.join(ATTEMPTS)} (which verified attempt counts"
            f" when a learner hands in several), not {_shown(attempt)}",
        )
    tables = data.get("nights")
    if not isinstance(tables, list) or not tables or not all(isinstance(t, dict) for t in tables):
        raise CourseError(
            shown,
            lines.of(None, "nights"),
            'the course needs its nights, each a [[nights]] table with incident = "FILE" and'
            " seed = N",
        )
    if len(tables) > MAX_NIGHTS:
        raise CourseError(shown, lines.night(MAX_NIGHTS), f"more than {MAX_NIGHTS} nights")
    nights: list[Night] = []
    for index, table in enumerate(tables):
        night = _night(path, index, table, lines)
        earlier = next((n for n in nights if n.id == night.id), None)
        if earlier is not None:
            raise CourseError(
                shown,
                night.line,
                f"incident {night.id!r} is already night {nights.index(earlier) + 1} (line"
                f" {earlier.line}); each night is a different incident",
            )
        nights.append(night)
    return Course(path.parent, path, title.strip(), backend, attempt, tuple(nights))


def _night(path: Path, index: int, table: dict[str, Any], lines: KeyLines) -> Night:
    shown = str(path)
    start = lines.night(index)
    _known_keys(shown, table, NIGHT_KEYS, lines, index, f"night {index + 1}")
    written = table.get("incident")
    if not isinstance(written, str) or not written.strip():
        raise CourseError(
            shown,
            start,
            f'night {index + 1} needs `incident = "FILE"`, an incident file in the course folder',
        )
    incident = inside_folder(shown, lines.of(index, "incident"), path.parent, written)
    first, last = _seeds(shown, index, table, lines)
    deadline = _deadline(shown, index, table, lines)
    from drill.incident.header import read_header

    header = read_header(incident)
    if header is None:
        incident_id = _full_load_id(shown, lines.of(index, "incident"), incident)
    else:
        incident_id = header.id
    return Night(incident_id, incident, written, first, last, deadline, start)


def inside_folder(shown: str, line: int, folder: Path, written: str) -> Path:
    """The file `written` names, relative to `folder`, after links; refused when it is not a
    file inside the folder."""
    given = Path(written)
    if given.is_absolute() or written.startswith(("/", "\\")) or "\\" in written:
        raise CourseError(
            shown,
            line,
            f"{written!r} is not a path inside the course folder; give it relative to"
            f" {folder.name or folder}, like incidents/tutorial.yaml",
        )
    try:
        target = (folder / given).resolve(strict=True)
        root = folder.resolve(strict=True)
    except FileNotFoundError:
        raise CourseError(
            shown, line, f"no file {written!r} in the course folder; check the path"
        ) from None
    except (OSError, RuntimeError) as exc:
        raise CourseError(shown, line, f"cannot read {written!r}: {exc}") from None
    if not target.is_relative_to(root):
        raise CourseError(
            shown,
            line,
            f"{written!r} leads out of the course folder; a course reads only its own files, so"
            " copy the incident into the folder",
        )
    if not target.is_file():
        raise CourseError(shown, line, f"{written!r} is not a file")
    if target.suffix not in (".yaml", ".yml"):
        raise CourseError(shown, line, f"{written!r} is not an incident file (.yaml)")
    return target


def _seeds(shown: str, index: int, table: dict[str, Any], lines: KeyLines) -> tuple[int, int]:
    if ("seed" in table) == ("seeds" in table):
        both = "seed" in table  # then the later of the two is the one to remove
        raise CourseError(
            shown,
            max(lines.of(index, "seed"), lines.of(index, "seeds")) if both else lines.night(index),
            f"night {index + 1} needs one of `seed = N` (every learner plays seed N) or"
            " `seeds = [FIRST, LAST]` (each learner gets a seed of the range)",
        )
    if "seed" in table:
        seed = table["seed"]
        if not _is_seed(seed):
            raise CourseError(
                shown,
                lines.of(index, "seed"),
                f"`seed` must be a whole number, not {_shown(seed)}",
            )
        return seed, seed
    seeds = table["seeds"]
    line = lines.of(index, "seeds")
    if not (isinstance(seeds, list) and len(seeds) == 2 and all(_is_seed(s) for s in seeds)):
        raise CourseError(
            shown,
            line,
            f"`seeds` must be [FIRST, LAST], two whole numbers like [1, 40], not {_shown(seeds)}",
        )
    first, last = seeds
    if first > last:
        raise CourseError(shown, line, f"`seeds` runs backwards; write [{last}, {first}]")
    if last - first + 1 > MAX_SEEDS:
        raise CourseError(shown, line, f"`seeds` spans more than {MAX_SEEDS} seeds")
    return first, last


def _deadline(shown: str, index: int, table: dict[str, Any], lines: KeyLines) -> dt.datetime | None:
    if "deadline" not in table:
        return None
    value = table["deadline"]
    if not isinstance(value, dt.datetime) or value.tzinfo is None:
        raise CourseError(
            shown,
            lines.of(index, "deadline"),
            "`deadline` must be a date and time with its time zone, unquoted, like"
            f" 2026-12-14T23:59:00Z or 2026-12-14T23:59:00+01:00, not {_shown(value)}",
        )
    return value.astimezone(dt.UTC)


def _known_keys(
    shown: str,
    table: dict[str, Any],
    known: tuple[str, ...],
    lines: KeyLines,
    index: int | None,
    what: str,
) -> None:
    for key in table:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"did you mean `{close[0]}`?" if close else f"it takes {', '.join(known)}"
            raise CourseError(
                shown,
                lines.of(index, key),
                f"{what} has no key `{key}`; {hint} (a course file names no code to run)",
            )


def _full_load_id(shown: str, line: int, incident: Path) -> str:
    """The id of an incident whose header does not read on its own: the full load says why."""
    from drill.incident.errors import IncidentError
    from drill.incident.loader import load_incident

    try:
        return load_incident(incident).incident.id
    except IncidentError as exc:
        first = str(exc).splitlines()[0]
        raise CourseError(
            shown, line, f"the incident does not load: {first}; fix it, then `drill validate` it"
        ) from None


def _is_seed(value: Any) -> bool:
    return type(value) is int and -SEED_LIMIT <= value < SEED_LIMIT


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."

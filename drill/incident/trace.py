"""Job traces in the columns of alibaba clusterdata's GPU simulator (cluster-trace-gpu-v2020).

One row a job: `job_id`, `user`, `gpu_type`, `num_inst` (instances, gang-scheduled),
`submit_time` and `duration` (seconds), `num_cpu` and `num_gpu` (per instance; GPUs may be
fractional, like 0.25 or 0.5, where jobs share a GPU). Other columns are read past. Records are
small frozen tuples, so a trace of 100,000 jobs costs a few tens of MB, not a Job each.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from drill.text_safety import codepoint, first_unsafe

if TYPE_CHECKING:
    from _csv import Reader  # what csv.reader() returns

COLUMNS = ("job_id", "user", "num_inst", "submit_time", "duration", "num_gpu")

# A trace of 100,000 jobs in the peer's columns is about 13 MB; four times that is room enough,
# and a file past it is refused before it is read, so no trace can fill memory.
MAX_TRACE_BYTES = 64 * 1024 * 1024
# Names become job and team names on screen and in saves: short, and without control characters.
MAX_NAME = 100
# The csv module's own limit on one field (128 KB). A field that long is almost always a quote
# that is never closed, swallowing the rows after it.
FIELD_LIMIT = csv.field_size_limit()


class TraceError(ValueError):
    """A trace file the engine cannot read: the message names the file, the line and the fix."""


class TraceJob(NamedTuple):
    job_id: str
    user: str
    instances: int
    submit: float
    duration: float
    gpus: float  # per instance, fractional where the trace shares GPUs
    cpus: float


def read_trace(path: Path) -> list[TraceJob]:
    """Every row of the trace, or one TraceError naming the file, the line and the fix. Time
    and memory grow with the file's size: the csv module reads each byte once."""
    text = _decode(path, _read_bytes(path))
    reader = csv.reader(io.StringIO(text, newline=""))
    rows = _rows(path, reader)
    header = next(rows, (1, []))[1]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise TraceError(
            f"{path}:1: the trace has no column {', '.join(missing)}; it needs the columns"
            f" {', '.join(COLUMNS)} (the peer simulator's layout)"
        )
    at = {name: index for index, name in enumerate(header)}  # a repeated name: its last
    cpu = at.get("num_cpu")
    jobs: list[TraceJob] = []
    for line, row in rows:
        if not row:
            continue  # a blank line, as csv.DictReader skips it
        jobs.append(_job(path, line, row, at, cpu))
    return jobs


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_TRACE_BYTES + 1)
    except OSError as exc:
        raise TraceError(
            f"{path}:1: the trace cannot be read ({exc.strerror or exc}); check it is a file"
            " you can read"
        ) from None
    if len(raw) > MAX_TRACE_BYTES:
        raise TraceError(
            f"{path}:1: the trace is over {MAX_TRACE_BYTES // (1024 * 1024)} MB; keep the rows"
            " of the nights you play"
        )
    return raw


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")  # a byte order mark from a spreadsheet is read past
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise TraceError(
            f"{path}:{line}: byte {raw[exc.start]:#04x} at column {column} is not UTF-8; save"
            " the trace as UTF-8 (or remove the byte)"
        ) from None


def _rows(path: Path, reader: Reader) -> Iterator[tuple[int, list[str]]]:
    """(line, row) pairs, the line being the row's first; a csv error as a located TraceError."""
    start = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = start
            if "field larger than field limit" in str(exc):
                raise TraceError(
                    f"{path}:{line}: a field runs on past {FIELD_LIMIT // 1024} KB, most likely"
                    " from a quote that is never closed; close the quote or remove it"
                ) from None
            raise TraceError(
                f"{path}:{reader.line_num}: the CSV is malformed ({exc}); check the quotes on"
                " this line"
            ) from None
        yield start, row
        start = reader.line_num + 1


def _job(path: Path, line: int, row: list[str], at: dict[str, int], cpu: int | None) -> TraceJob:
    def field(name: str) -> str:
        index = at[name]
        return row[index] if index < len(row) else ""

    for name in ("job_id", "user"):
        value = field(name)
        bad = first_unsafe(value)
        if bad is not None or len(value) > MAX_NAME:
            why = f"holds the control character {codepoint(bad)}" if bad else "is too long"
            raise TraceError(
                f"{path}:{line}: {name} {why}; names are shown on screen, so keep them to"
                f" {MAX_NAME} printable characters"
            )
    try:
        job = TraceJob(
            job_id=field("job_id"),
            user=field("user"),
            instances=int(field("num_inst")),
            submit=float(field("submit_time")),
            duration=float(field("duration")),
            gpus=float(field("num_gpu")),
            cpus=float((row[cpu] if cpu is not None and cpu < len(row) else "") or 0.0),
        )
    except (TypeError, ValueError):
        raise TraceError(
            f"{path}:{line}: a number is missing or not a number in this row; fix or remove the row"
        ) from None
    if not all(math.isfinite(value) for value in job[3:]):
        raise TraceError(
            f"{path}:{line}: a number in this row is infinite or not a number; write an"
            " ordinary number"
        )
    if job.instances < 1 or job.duration < 0 or job.gpus < 0 or job.submit < 0:
        raise TraceError(
            f"{path}:{line}: num_inst must be at least 1 and submit_time, duration and"
            " num_gpu at least 0; fix the row"
        )
    return job


def units(gpus: float, per_gpu: int) -> int:
    """A GPU request in sharing units (`per_gpu` units make one GPU), rounded up: a job asking
    for 0.3 of a GPU takes two quarter units, never less than it asked."""
    return -int(-round(gpus * per_gpu, 6) // 1)

"""Job traces in the columns of alibaba clusterdata's GPU simulator (cluster-trace-gpu-v2020).

One row a job: `job_id`, `user`, `gpu_type`, `num_inst` (instances, gang-scheduled),
`submit_time` and `duration` (seconds), `num_cpu` and `num_gpu` (per instance; GPUs may be
fractional, like 0.25 or 0.5, where jobs share a GPU). Other columns are read past. Records are
small frozen tuples, so a trace of 100,000 jobs costs a few tens of MB, not a Job each.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

COLUMNS = ("job_id", "user", "num_inst", "submit_time", "duration", "num_gpu")


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
    jobs: list[TraceJob] = []
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise TraceError(
                f"{path}:1: the trace has no column {', '.join(missing)}; it needs the columns"
                f" {', '.join(COLUMNS)} (the peer simulator's layout)"
            )
        for line, entry in enumerate(reader, start=2):
            try:
                job = TraceJob(
                    job_id=entry["job_id"],
                    user=entry["user"],
                    instances=int(entry["num_inst"]),
                    submit=float(entry["submit_time"]),
                    duration=float(entry["duration"]),
                    gpus=float(entry["num_gpu"]),
                    cpus=float(entry.get("num_cpu") or 0.0),
                )
            except (TypeError, ValueError):
                raise TraceError(
                    f"{path}:{line}: a number is missing or not a number in this row; fix or"
                    " remove the row"
                ) from None
            if job.instances < 1 or job.duration < 0 or job.gpus < 0 or job.submit < 0:
                raise TraceError(
                    f"{path}:{line}: num_inst must be at least 1 and submit_time, duration and"
                    " num_gpu at least 0; fix the row"
                )
            jobs.append(job)
    return jobs


def units(gpus: float, per_gpu: int) -> int:
    """A GPU request in sharing units (`per_gpu` units make one GPU), rounded up: a job asking
    for 0.3 of a GPU takes two quarter units, never less than it asked."""
    return -int(-round(gpus * per_gpu, 6) // 1)

"""The NCCL flight recorder (TORCH_NCCL_TRACE_BUFFER_SIZE): each rank keeps its last collectives
and writes them out when its watchdog times one out (TORCH_NCCL_DUMP_ON_TIMEOUT). `trace JOB`
reads the newest dump.

A rank stuck outside NCCL (a hung data read, a dead GPU) never enqueued the collective the
others time out in: its newest entry is the one before, completed. Ranks that took different
code paths all enqueued the same sequence number, with different op types or sizes. A process
whose GPU or node is gone writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drill.sim.jobs import Attempt, Job

# The gradient all-reduce every rank of a data-parallel step issues (one bucket's elements).
GRAD_OP = "ALLREDUCE"
GRAD_NUMEL = 8388608


def all_reduce(seq: int) -> tuple[str, int]:
    """A data-parallel job's collective at any sequence number: the gradient bucket."""
    return GRAD_OP, GRAD_NUMEL


@dataclass(frozen=True)
class Entry:
    rank: int
    node: str
    seq: int | None  # its newest entry's sequence number; None: no dump from this rank
    op: str
    numel: int
    state: str  # scheduled, started, completed
    completed: int | None  # the last sequence number it completed


@dataclass(frozen=True)
class Dump:
    at: float
    attempt: int
    seq: int  # the collective the watchdog timed out
    entries: tuple[Entry, ...]


def dump(
    now: float,
    job: Job,
    attempt: Attempt,
    seq: int,
    node_of: Callable[[int], str],
    usual: Callable[[int], tuple[str, int]] = all_reduce,
) -> Dump:
    """What the ranks wrote when the watchdog timed out collective `seq` (`node_of`: a rank's
    node; `usual`: the job's own collective and its elements at a sequence number, which for a
    sharded job alternates between the parameter gather and the gradient reduce-scatter)."""
    entries = []
    for rank in range(job.world):
        node = node_of(rank)
        how = attempt.hung_ranks.get(rank)
        if how is not None and how != "hang":
            entries.append(Entry(rank, node, None, "-", 0, "-", None))
        elif how == "hang":
            entries.append(Entry(rank, node, seq - 1, *usual(seq - 1), "completed", seq - 1))
        else:
            op, numel = attempt.mismatched.get(rank, usual(seq))
            entries.append(Entry(rank, node, seq, op, numel, "started", seq - 1))
    return Dump(now, attempt.number, seq, tuple(entries))

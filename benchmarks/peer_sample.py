"""Which jobs the peer simulator plays, and when each arrives: its own sample of its trace.

alibaba clusterdata's cluster-trace-gpu-v2020 simulator (benchmarks/peer/README.md) reads every
row of its trace (its read limit is ten times the jobs it keeps), and in `Simulator.init_go`
shuffles the rows with Python's `random`, seeded with its random seed (42) in the constructor
right after the read and used by nothing in between, and keeps the first `num_jobs_limit`
(20,000). `set_job_list_arrival_time` then sorts those by (submit_time, job_id) and gives them
arrival times `(count // arrival_rate) * interval`: 1,000 jobs together at the start of each
minute. A trace written with `-n 20000` has the same count and distribution but none of the
same jobs, so the comparison plays this sample instead.
"""

from __future__ import annotations

import random

from drill.sim.trace import TraceJob

PEER_SEED = 42
ARRIVAL_RATE = 1000  # jobs per interval
ARRIVAL_INTERVAL = 60.0  # seconds


def peer_sample(rows: list[TraceJob], jobs: int) -> tuple[list[TraceJob], list[float]]:
    """The peer's `jobs` of `rows` (every row of the trace, in file order), in its arrival
    order, with each one's arrival time."""
    shuffled = list(rows)
    if jobs <= len(shuffled):
        # random.seed(42) then random.shuffle: the module's functions are one Random's methods.
        random.Random(PEER_SEED).shuffle(shuffled)
        shuffled = shuffled[:jobs]
    shuffled.sort(key=lambda row: (row.submit, _job_id(row.job_id)))
    arrivals = [(count // ARRIVAL_RATE) * ARRIVAL_INTERVAL for count in range(len(shuffled))]
    return shuffled, arrivals


def _job_id(text: str) -> tuple[int, int | str]:
    """The peer reads a job_id of digits as a number (utils._add_job)."""
    return (0, int(text)) if text.isdigit() else (1, text)

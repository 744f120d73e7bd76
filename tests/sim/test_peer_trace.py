"""The peer's trace through drill's scheduler on one pool, against an exact FIFO with EASY
backfill written independently (tests/sim/pool_oracle.py): average job completion time within
5 percent. The trace comes from the peer's own generator (benchmarks/peer/gen_pai_trace.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drill.sim.trace import TraceError, read_trace
from drill.sim.trace_pool import play_pool, request
from tests.sim.pool_oracle import easy_backfill

REPO = Path(__file__).resolve().parents[2]
GENERATOR = REPO / "benchmarks" / "peer" / "gen_pai_trace.py"


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("peer") / "trace.csv"
    subprocess.run(
        [sys.executable, str(GENERATOR), "-n", "400", "-o", str(path)],
        check=True,
        capture_output=True,
    )
    return read_trace(path)


def oracle_jct(trace, pool_gpus, per_gpu=4, node_units=16, gap=0.06):
    jobs = [
        (index * gap, request(job, per_gpu, node_units), job.duration)
        for index, job in enumerate(trace)
    ]
    times = easy_backfill(jobs, pool_gpus * per_gpu)
    return sum(times) / len(times)


@pytest.mark.parametrize("pool_gpus", [64, 160])
def test_average_jct_matches_an_exact_fifo_with_backfill(trace, pool_gpus):
    ours = play_pool(trace, pool_gpus)
    exact = oracle_jct(trace, pool_gpus)
    assert ours.jobs == len(trace)
    assert abs(ours.average_jct - exact) <= 0.05 * exact, (ours.average_jct, exact)


def test_the_comparison_bites_when_backfill_is_off(trace):
    """A FIFO without backfill waits far longer than the exact one: the 5 percent is a bound
    a scheduler can miss."""
    per_gpu, pool = 4, 64
    jobs = [(i * 0.06, request(j, per_gpu, 16), j.duration) for i, j in enumerate(trace)]
    no_backfill = _strict_fifo(jobs, pool * per_gpu)
    exact = oracle_jct(trace, pool)
    assert abs(no_backfill - exact) > 0.05 * exact


def _strict_fifo(jobs, capacity):
    import heapq

    running, free, now, total = [], capacity, 0.0, 0.0
    for arrival, units, duration in jobs:
        now = max(now, arrival)
        while free < units:
            end, held = heapq.heappop(running)
            now, free = max(now, end), free + held
        while running and running[0][0] <= now:
            free += heapq.heappop(running)[1]
        heapq.heappush(running, (now + duration, units))
        free -= units
        total += now + duration - arrival
    return total / len(jobs)


def test_fractional_requests_take_sharing_units_rounded_up():
    from drill.sim.trace import TraceJob, units

    assert units(0.25, 4) == 1 and units(0.3, 4) == 2 and units(0, 4) == 0
    wide = TraceJob("1", "u", 1, 0.0, 10.0, 5.0, 1.0)
    assert request(wide, 4, 16) == 32  # 20 units, wider than a node: whole nodes


def test_a_trace_without_the_columns_names_them(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("job_id,user\n1,u\n")
    with pytest.raises(TraceError, match="bad.csv:1: the trace has no column"):
        read_trace(path)


def test_the_peers_sample_is_its_shuffle_of_every_row_in_its_arrival_order(tmp_path):
    """benchmarks/peer_sample.py: the peer's seeded shuffle of all rows, the first N, sorted by
    (submit_time, job_id), 1,000 arriving together each minute; and the pool on that sample
    stays within 5 percent of the exact oracle given the same arrivals."""
    import random

    from benchmarks.peer_sample import peer_sample

    path = tmp_path / "rows.csv"
    subprocess.run(
        [sys.executable, str(GENERATOR), "-n", "3000", "-o", str(path)],
        check=True,
        capture_output=True,
    )
    rows = read_trace(path)
    sample, arrivals = peer_sample(rows, 1200)
    assert len(sample) == 1200 and len({job.job_id for job in sample}) == 1200
    shuffled = list(rows)
    random.seed(42)  # the peer's own calls, on the module's shared generator
    random.shuffle(shuffled)
    assert {job.job_id for job in sample} == {job.job_id for job in shuffled[:1200]}
    assert sample == sorted(sample, key=lambda job: (job.submit, int(job.job_id)))
    assert arrivals[:1000] == [0.0] * 1000 and arrivals[1000:] == [60.0] * 200
    assert peer_sample(rows, 5000)[0] == sorted(rows, key=lambda j: (j.submit, int(j.job_id)))
    ours = play_pool(sample, 400, arrivals=arrivals)
    exact = easy_backfill(
        [(arrivals[i], request(job, 4, 16), job.duration) for i, job in enumerate(sample)],
        400 * 4,
    )
    assert ours.jobs == 1200
    assert abs(ours.average_jct - sum(exact) / len(exact)) <= 0.05 * sum(exact) / len(exact)

"""Every process start takes a fresh pid from its node, as the kernel hands them out: over a
whole night of crashes, retries, other teams' jobs and leftover processes, no pid is used twice
on a node, so no two live processes there share one, and a new rank never has the pid of the
leftover that holds its GPU. The numbers follow from the seed alone."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.sim.failures import pid_on
from tests.drillkit import build, job_spec

TRAIN = job_spec(
    "train",
    yours=True,
    gpus=16,
    retry={"max_restarts": 3, "backoff": "30s"},
    checkpoint={"every": 20, "keep": 3},
)


def a_night(seed: int, mtbf: str, zombie_at: str) -> Drill:
    faults = [
        {"id": "z", "kind": "zombie_memory", "at": zombie_at, "target": {"job": "train"}},
        {"id": "k", "kind": "kill_rank", "at": "1h", "target": {"job": "train"}},
        {"id": "r", "kind": "random_failures", "at": "0s", "mtbf": mtbf, "duration": "10m"},
    ]
    background = {"utilization": 0.6, "arrivals_per_hour": 6, "sizes": [1, 2, 4, 8]}
    return Drill(build(jobs=[TRAIN], faults=faults, background=background), seed)


def every_pid(d: Drill) -> dict[str, list[int]]:
    """Each node's pids given out tonight: every attempt's ranks and every leftover."""
    pids: dict[str, list[int]] = {}
    for job in d.world.jobs.values():
        for attempt in job.attempts:
            for (node, _), pid in attempt.pids.items():
                pids.setdefault(node, []).append(pid)
    for picks in d.world.faults.chosen.values():
        for pick in picks:
            if pick.pid is not None:
                pids.setdefault(str(pick.node), []).append(pick.pid)
    return pids


def live_pids(d: Drill) -> dict[str, list[int]]:
    """Each node's processes now: the ranks running on its GPUs and the leftovers."""
    live: dict[str, list[int]] = {}
    for node in d.world.cluster.nodes.values():
        here = live.setdefault(node.name, [])
        for job_name, gpus in node.allocations.items():
            here += [pid_on(d.world.jobs[job_name], node.name, gpu) for gpu in gpus]
        here += [gpu.held_by[0] for gpu in node.gpus if gpu.held_by is not None]
    return live


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(1, 10_000),
    mtbf=st.sampled_from(["10h", "40h"]),
    zombie_at=st.sampled_from(["10m", "25m", "40m"]),
)
@example(seed=89, mtbf="40h", zombie_at="10m")  # the training completes before the night ends
def test_no_pid_is_used_twice_on_a_node_in_a_night(seed, mtbf, zombie_at):
    d = a_night(seed, mtbf, zombie_at)
    # Until the night is over: the learner's job completing ends it early (seed 89 at 3255 s),
    # and the world goes no further, so waiting for the clock to reach 7200 would never end.
    while not d.over:
        d.advance(300)
        for node, pids in live_pids(d).items():
            assert 0 not in pids, f"{node}: a running process with no pid"
            assert len(pids) == len(set(pids)), f"{node} at {d.world.now}: {sorted(pids)}"
    for node, pids in every_pid(d).items():
        twice = [pid for pid, n in Counter(pids).items() if n > 1]
        assert twice == [], f"{node}: {twice} given out more than once"
    assert sum(len(a.pids) for j in d.world.jobs.values() for a in j.attempts) > 16


def test_the_restart_on_the_leftovers_gpu_gets_a_pid_of_its_own():
    d = a_night(1, "100000h", "10m")
    d.advance(1500)
    [pick] = d.world.faults.chosen["z"]
    train = d.world.jobs["train"]
    on_that_gpu = [a.pids.get((pick.node, pick.gpu)) for a in train.attempts]
    assert len(on_that_gpu) >= 2 and None not in on_that_gpu, on_that_gpu
    assert len({*on_that_gpu, pick.pid}) == len(on_that_gpu) + 1, (on_that_gpu, pick.pid)


def test_the_same_seed_gives_the_same_pids():
    first, second = a_night(7, "10h", "25m"), a_night(7, "10h", "25m")
    first.advance(7200)
    second.advance(7200)
    assert every_pid(first) == every_pid(second)

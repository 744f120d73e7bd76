"""Incidents at the edges of their bounds: each must validate, play a whole sim night and be
scored without a hang or a crash. The bounds (drill/values/bounds.py) promise a night the
engine can run; this holds them to it, with a generous cap per night that only a hang misses.

Clusters stay at 64 nodes or fewer: the node count is the one bound whose cost is known to grow
faster than linearly today (benchmarks/bench_scale.py measures it), and a fuzzer that builds
4096-node worlds would spend its time there instead of on the numbers it is here to try.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.scoring.par import score_drill
from drill.engine.timed import parse_text
from drill.incident.loader import load_incident
from drill.values.bounds import HOUR, MAX_COUNTED_STEPS, MAX_QUEUED_JOBS, MAX_REPLICA_STEPS

REPO = Path(__file__).resolve().parents[2]
# One night, scored (par and floor are two more nights): far above any real one. Counted in this
# process's CPU seconds (ITIMER_PROF), not wall time, so a machine busy with other work cannot
# make a night that finishes look like a hang.
CAP_SECONDS = 120


def edge(low: float, high: float, *, integer: bool = False):
    """Mostly the bounds themselves, sometimes a value between."""
    between = st.integers(int(low), int(high)) if integer else st.floats(low, high)
    return st.one_of(st.sampled_from([low, high]), between)


def size_text(size: float) -> str:
    """Sizes as instructors write them (plain YAML numbers stop at 10^12)."""
    return f"{size / 1e9:.6f}GB"


@st.composite
def extreme_incident(draw) -> dict:
    data = yaml.safe_load((REPO / "incidents" / "tutorial.yaml").read_text())
    length = draw(st.sampled_from([600.0, 3600.0, 12 * HOUR]))
    data["night"]["length"] = length
    gpus_per_node = draw(edge(1, 16, integer=True))
    leaves = draw(st.integers(1, 4))
    per_leaf = draw(st.integers(2, 16))
    interval = draw(edge(5, HOUR))
    data["cluster"] = {
        "gpus_per_node": gpus_per_node,
        "islands": [
            {
                "name": "a",
                "leaves": leaves,
                "nodes_per_leaf": per_leaf,
                "spares": draw(edge(0, 16, integer=True)),
            }
        ],
        "mtbf": draw(st.none() | edge(HOUR, 100_000 * HOUR)),
        "heartbeat_timeout": draw(edge(10, HOUR)),
        "scheduling_interval": interval,
        "startup": draw(edge(0, HOUR)),
        "rendezvous": draw(edge(0, HOUR)),
        "reboot_time": draw(edge(1, 12 * HOUR)),
        "swap_time": draw(edge(1, 12 * HOUR)),
        "preempt_grace": draw(edge(0, HOUR)),
    }
    job = data["jobs"][0]
    job.pop("nodes", None)
    step_time = draw(edge(1, HOUR))
    job.update(
        gpus=gpus_per_node,
        steps=draw(
            st.integers(1, max(1, min(100_000, int(MAX_REPLICA_STEPS * step_time / length) or 1)))
        ),
        step_time=step_time,
        time_limit=draw(edge(60, 30 * 24 * HOUR)),
        collective_timeout=draw(edge(10, 12 * HOUR)),
        process_group_timeout=draw(edge(1, 1800)),
        model_params=f"{draw(edge(1, 1e8)):.6f}M",
        bytes_per_param=draw(st.sampled_from([1e-6, 1.0, 64.0])),
        retry={
            "max_restarts": draw(edge(0, 100, integer=True)),
            "backoff": draw(edge(0, 12 * HOUR)),
        },
        checkpoint={
            "every": draw(edge(1, 100_000, integer=True)),
            "keep": draw(edge(1, 100, integer=True)),
            "atomic": draw(st.booleans()),
            "on_sigterm": draw(st.booleans()),
            "write_time": draw(edge(0, 12 * HOUR)),
        },
    )
    if draw(st.booleans()):
        capacity = draw(edge(1e9, 1e18))
        data["storage"] = [
            {
                "name": "scratch",
                "capacity": size_text(capacity),
                "used": size_text(draw(st.floats(0, 1)) * capacity),
                "read_bandwidth": f"{int(draw(edge(1, 1e8)))}MB/s",
                "write_bandwidth": f"{int(draw(edge(1, 1e8)))}MB/s",
                "df_lag": draw(edge(0, HOUR)),
                "quotas": {"ml": size_text(draw(edge(0, 1e18)))},
                "tenants": [{"team": "vision", "rate": f"{int(draw(edge(0, 1e8)))}MB/s"}],
                "quota_response": draw(edge(0, 12 * HOUR)),
            }
        ]
        job["checkpoint"]["volume"] = "scratch"
    others = draw(st.integers(0, 3))
    for index in range(others):
        other_step = draw(edge(1, HOUR))
        job_steps = max(1, int(MAX_COUNTED_STEPS / (others + 1) * other_step / length))
        data["jobs"].append(
            {
                "name": f"other-{index}",
                "gpus": draw(st.sampled_from([1, gpus_per_node])),
                "steps": draw(st.integers(1, min(100_000, job_steps))),
                "step_time": other_step,
                "priority": draw(st.sampled_from(["low", "normal", "high", "urgent"])),
                "submit_at": draw(st.floats(0, length - 1)),
            }
        )
    room = (MAX_QUEUED_JOBS - len(data["jobs"])) * HOUR / length
    data["background"] = {
        "utilization": draw(edge(0, 1)),
        "arrivals_per_hour": draw(st.floats(0, max(0.0, min(200.0, room)))),
        "sizes": draw(
            st.lists(st.sampled_from([1, 2, gpus_per_node, 4096]), min_size=1, max_size=5)
        ),
        "min_duration": 60.0,
        "max_duration": draw(edge(60, 30 * 24 * HOUR)),
        "high_priority_share": draw(edge(0, 1)),
    }
    data["scoring"] = {
        "weights": {"recovered": draw(edge(0, 100)), "discipline": draw(edge(0, 100))},
        "paging_target": draw(edge(10, 12 * HOUR)),
    }
    data["seeds"] = [draw(edge(0, 2**32 - 1, integer=True))]
    return data


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"a sim night ran past {CAP_SECONDS} s of CPU")


def _arm(seconds: float) -> None:
    signal.setitimer(signal.ITIMER_PROF, seconds)


@pytest.fixture
def cap():
    old = signal.signal(signal.SIGPROF, _alarm)
    yield
    _arm(0)
    signal.signal(signal.SIGPROF, old)


def play_scored_night(data: dict, path: Path) -> float:
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    loaded = load_incident(path)  # valid by construction: an IncidentError here is a bug
    incident = loaded.incident
    actions = parse_text(
        "\n".join(incident.reference), "reference", {f.id for f in incident.faults}
    )
    start = time.monotonic()
    _arm(CAP_SECONDS)
    try:
        drill = Drill.create(incident, incident.seeds[0], "sim")
        play(drill, actions)
        score_drill(drill)
        assert drill.now <= incident.night.length
    finally:
        _arm(0)
    return time.monotonic() - start


def run_examples(tmp_path, examples: int):
    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )
    @given(extreme_incident())
    def check(data):
        play_scored_night(data, tmp_path / "extreme.yaml")

    check()


def test_nights_at_the_edges_of_the_bounds_finish(tmp_path, cap):
    run_examples(tmp_path, 10)


@pytest.mark.slow
def test_many_nights_at_the_edges_of_the_bounds_finish(tmp_path, cap):
    run_examples(tmp_path, 80)

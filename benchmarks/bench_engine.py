"""How fast the engine plays a night, against a bare SimPy loop doing the same number of events.

    .venv/bin/python benchmarks/bench_engine.py [--repeat N] [--seed S]

Plays the dead-rank incident's whole night headless with its reference solution, counts the SimPy
events it processes, and times it. Then runs a bare SimPy loop (a few processes that only
`yield env.timeout(...)`) for the same number of events and times that. Prints both rates and
their ratio. It asserts nothing about time: machines differ, and this is a measuring tool.

Counting wraps `env.step` on a separate, untimed pass, so the timed passes run unwrapped. Building
the night (the cluster, the starting background load) is not timed; playing it is.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import simpy

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from drill.engine.drill import Drill  # noqa: E402
from drill.engine.headless import play  # noqa: E402
from drill.engine.timed import parse_text  # noqa: E402
from drill.incident.loader import load_incident  # noqa: E402

INCIDENT = REPO / "drill" / "incidents" / "dead-rank.yaml"
BARE_PROCESSES = 8


def count_steps(env: simpy.Environment) -> list[int]:
    """Wrap env.step on this instance so every processed event adds one to the counter."""
    counter = [0]
    original = env.step

    def step() -> None:
        counter[0] += 1
        original()

    env.step = step  # type: ignore[method-assign]
    return counter


def engine_night(incident, actions, seed: int):
    """Build the night (untimed), then return the work to time: playing it to the end."""
    drill = Drill(incident, seed)
    return lambda: play(drill, actions), drill


def bare_loop(events: int):
    """A few processes that only wait; the work steps the loop exactly `events` times."""
    env = simpy.Environment()

    def waiter(gap: float):
        while True:
            yield env.timeout(gap)

    for index in range(BARE_PROCESSES):
        env.process(waiter(1.0 + index / 10))

    def work() -> None:
        step = env.step
        for _ in range(events):
            step()

    return work, env


def best_of(repeat: int, setup) -> float:
    """The fastest of `repeat` timed runs, each on a fresh setup: the least disturbed one."""
    best = float("inf")
    for _ in range(repeat):
        work, _ = setup()
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeat", type=int, default=20, help="timed runs of each loop (best is kept)"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    incident = load_incident(INCIDENT).incident
    actions = parse_text(
        "\n".join(incident.reference), "reference", {f.id for f in incident.faults}
    )

    work, drill = engine_night(incident, actions, args.seed)
    counter = count_steps(drill.world.env)
    work()
    events = counter[0]
    engine_seconds = best_of(args.repeat, lambda: engine_night(incident, actions, args.seed))
    work, env = bare_loop(events)
    counter = count_steps(env)
    work()
    bare_events = counter[0]
    bare_seconds = best_of(args.repeat, lambda: bare_loop(events))

    engine_rate = events / engine_seconds
    bare_rate = bare_events / bare_seconds
    sim_seconds = drill.end_time
    print(f"incident: {incident.id}, seed {args.seed}, reference solution, best of {args.repeat}")
    print(f"night: {sim_seconds:.0f} s of sim time, learner job {drill.learner_job.state}")
    print(
        f"engine: {events} SimPy events in {engine_seconds * 1000:.1f} ms = {engine_rate:,.0f} events/s"
    )
    print(
        f"bare SimPy: {bare_events} events in {bare_seconds * 1000:.1f} ms = {bare_rate:,.0f} events/s"
    )
    print(
        f"ratio bare/engine: {bare_rate / engine_rate:.2f} (engine cost per event, in bare events)"
    )
    print(f"speed: {sim_seconds / engine_seconds:,.0f} sim seconds per wall second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

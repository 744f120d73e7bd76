"""The collector is held off while a world is built and runs, and is back as it was after."""

from __future__ import annotations

import gc

import pytest

from drill.sim import collector
from tests.drillkit import build, drill


def test_a_pause_puts_the_collector_back_as_it_was() -> None:
    assert gc.isenabled()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():  # a pause inside another leaves it to the outer one
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # off before: off after
    finally:
        gc.enable()


def test_a_night_runs_with_the_collector_off_and_leaves_it_on() -> None:
    seen: list[bool] = []
    d = drill(build(background={"utilization": 0.5, "arrivals_per_hour": 30}))
    d.world.env.process(_look(d.world.env, seen))
    d.play_out()
    d.world.run_rest_of_night()
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_failing_step_still_turns_the_collector_back_on() -> None:
    d = drill(build())

    def broken():
        yield d.world.env.timeout(1)
        raise RuntimeError("a bug in a process")

    d.world.env.process(broken())
    with pytest.raises(RuntimeError, match="a bug in a process"):
        d.advance(10)
    assert gc.isenabled()


def _look(env, seen: list[bool]):
    while True:
        yield env.timeout(600)
        seen.append(gc.isenabled())

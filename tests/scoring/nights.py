"""Runbooks a learner could really type, built per seed: concrete node names and times read off
a dry run of the night (a learner's actions file cannot use `{fault.*}` templates), then played
and scored like any night.

Each builder returns the lines of one runbook; `score_of` plays them and scores them against the
incident's par and floor on the given backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.scoring.par import measured_run, par_and_floor, score_against
from drill.engine.scoring.score import Score
from drill.engine.timed import parse_text
from drill.incident.clock import NightClock
from drill.incident.library import resolve_incident
from drill.incident.models import Incident
from drill.saves_dir import cache_dir


@cache
def incident(name: str) -> Incident:
    return resolve_incident(name).incident


@dataclass(frozen=True)
class Facts:
    """What the night at this seed holds, found by letting it run with nobody acting."""

    node: str | None  # the node the first fault struck
    fault_time: float | None
    first_page: float | None
    clock: NightClock

    def at(self, seconds: float) -> str:
        return self.clock.label(seconds)


@cache
def facts(name: str, seed: int) -> Facts:
    inc = incident(name)
    d = Drill(inc, seed)
    d.advance(inc.night.length)
    node = fault_time = None
    if inc.faults:
        fault = inc.faults[0].id
        picks = d.world.faults.chosen.get(fault) or []
        node = picks[0].node if picks else None
        fault_time = d.world.faults.fired_at.get(fault)
    pages = [a.time for a in d.world.pager.alerts if not a.noise and a.severity != "info"]
    return Facts(node, fault_time, min(pages) if pages else None, NightClock(inc.night.start))


def state_after(name: str, seed: int, lines: list[str]) -> Drill:
    """The night as it stands after these lines (the rest not played): for a runbook that has to
    name what exists at that moment, like the newest good checkpoint."""
    d = Drill(incident(name), seed)
    play(d, parse_text("\n".join(lines), "dry run", set(), templates=False), finish_night=False)
    return d


def score_of(name: str, seed: int, backend: str, lines: list[str]) -> Score:
    inc = incident(name)
    parse_text("\n".join(lines), "learner", set(), templates=False)  # a learner's file, truly
    par, floor = par_and_floor(inc, seed, backend, cache_dir=cache_dir())
    mine = measured_run(inc, seed, backend, lines, "learner", cache_dir=cache_dir())
    return score_against(inc, mine, par, floor)


def reference_score(name: str, seed: int, backend: str) -> Score:
    inc = incident(name)
    par, floor = par_and_floor(inc, seed, backend, cache_dir=cache_dir())
    return score_against(inc, par, par, floor)


def late(lines: list[str], minutes: float) -> list[str]:
    """The same runbook, its first (absolute) line `minutes` later; the rest follow on."""
    first, *rest = lines
    when, text = first.split(" ", 1)
    clock = NightClock("00:00")
    shifted = clock.label(clock.from_clock(when) + minutes * 60)
    return [f"{shifted} {text}", *rest]

"""Par and floor: the same night played by the reference solution and by nobody.

Both are real runs through the same engine and backend, measured like the learner's run, and
cached per (incident, seed, backend, engine version) so they are paid for once.
"""

from __future__ import annotations

import hashlib
import json

from drill import ENGINE_VERSION
from drill.atomic_file import write_text_atomic
from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.outcome import Outcome, measure
from drill.engine.score import Score, build_score
from drill.engine.timed import parse_text
from drill.engine.undisturbed import StepClock, undisturbed_clock
from drill.incident.clock import NightClock
from drill.incident.models import Incident


def incident_fingerprint(incident: Incident) -> str:
    return hashlib.sha256(incident.model_dump_json(by_alias=True).encode()).hexdigest()


def play_lines(incident: Incident, seed: int, backend: str, lines: list[str], name: str) -> Drill:
    drill = Drill.create(incident, seed, backend)
    actions = parse_text("\n".join(lines), name, {f.id for f in incident.faults})
    play(drill, actions)
    return drill


def measured_run(
    incident: Incident, seed: int, backend: str, lines: list[str], name: str
) -> Outcome:
    return _measured(incident, seed, backend, lines, name)[0]


def _measured(incident, seed, backend, lines, name) -> tuple[Outcome, list[dict]]:
    drill = play_lines(incident, seed, backend, lines, name)
    try:
        actions = [
            {
                "time": a.time,
                "clock": drill.clock(a.time),
                "text": a.text,
                "accepted": a.accepted,
                "result": a.output,
            }
            for a in drill.actions
        ]
        clock = step_clock(incident, seed)
        return measure(drill, incident.scoring.paging_target, clock), actions
    finally:
        drill.close()


_CLOCKS: dict[tuple[str, int], StepClock] = {}


def step_clock(incident: Incident, seed: int) -> StepClock:
    """The undisturbed run's step clock for this night (sim only, kept for the process)."""
    key = (incident_fingerprint(incident), seed)
    if key not in _CLOCKS:
        _CLOCKS[key] = undisturbed_clock(incident, seed)
    return _CLOCKS[key]


def _cached(incident: Incident, seed: int, backend: str) -> dict:
    from drill.saves_dir import saves_dir

    key = f"{incident.id}-{incident_fingerprint(incident)[:16]}-s{seed}-{backend}-e{ENGINE_VERSION}"
    path = saves_dir() / "cache" / "par" / f"{key}.json"
    if path.exists():
        try:
            data = json.loads(path.read_text())
            Outcome(**data["par"]), Outcome(**data["floor"])  # still the shape this code reads
            if isinstance(data.get("reference_actions"), list):
                return data
        except (ValueError, KeyError, TypeError):
            pass  # a stale or damaged cache entry is recomputed
    par, actions = _measured(incident, seed, backend, list(incident.reference), "reference")
    floor = measured_run(incident, seed, backend, [], "nobody")
    data = {"par": par.to_json(), "floor": floor.to_json(), "reference_actions": actions}
    write_text_atomic(path, json.dumps(data, sort_keys=True))
    return data


def par_and_floor(incident: Incident, seed: int, backend: str) -> tuple[Outcome, Outcome]:
    data = _cached(incident, seed, backend)
    return Outcome(**data["par"]), Outcome(**data["floor"])


def reference_actions(incident: Incident, seed: int, backend: str) -> list[dict]:
    """The reference solution's actions as the engine played them: time, clock, text."""
    return list(_cached(incident, seed, backend)["reference_actions"])


def score_against(
    incident: Incident, mine: Outcome, par: Outcome, floor: Outcome, *, capped: bool = True
) -> Score:
    """Score one measured night against par and floor with the incident's own weights."""
    return build_score(
        mine,
        par,
        floor,
        capped=capped,
        weights=dict(incident.scoring.weights),
        night_length=incident.night.length,
        job_gpus=incident.learner_job.gpus,
        clock=NightClock(incident.night.start).label,
    )


def score_outcome(incident: Incident, seed: int, backend: str, mine: Outcome) -> Score:
    par, floor = par_and_floor(incident, seed, backend)
    return score_against(incident, mine, par, floor)


def measure_drill(drill: Drill) -> Outcome:
    """The learner's night, measured like par and floor."""
    clock = step_clock(drill.incident, drill.seed)
    return measure(drill, drill.incident.scoring.paging_target, clock)


def score_drill(drill: Drill) -> Score:
    mine = measure_drill(drill)
    return score_outcome(drill.incident, drill.seed, drill.backend, mine)

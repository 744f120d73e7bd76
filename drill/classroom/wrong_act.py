"""The first act a night's score held against the learner, for the class report's "most common
first wrong act": the earliest accepted change that either came with no look that informed it
(the discipline component's rule, drill/engine/scoring/discipline.py) or stopped another team's
running job (the collateral's fixed cost, drill/engine/scoring/excess.py). Read off the replayed
night with the scorer's own functions, so it names what the score counted, not a second opinion.
"""

from __future__ import annotations

from drill.engine.actions.effects import effect_of
from drill.engine.scoring.discipline import measure_discipline
from drill.engine.scoring.excess import stopped_others


def first_wrong_act(drill) -> str | None:
    """The action line as the learner typed it, or None when the score held nothing against
    any act of the night."""
    counted = measure_discipline(drill, drill.incident.scoring.paging_target, drill.end_time)
    wrong = [
        action
        for action in drill.actions
        if action.accepted
        and any(line.startswith(f"{action.text} at {drill.clock(action.time)} ") for line in
                counted.uninformed)
    ]  # fmt: skip
    stopped = set(stopped_others(drill))
    wrong += [
        action
        for action in drill.actions
        if action.accepted and stopped and _names_a_job(action.text, stopped)
    ]
    first = min(wrong, key=lambda action: action.time, default=None)
    return first.text if first is not None else None


def _names_a_job(text: str, jobs: set[str]) -> bool:
    """A change whose subject is one of the stopped jobs (a look at it stops nothing)."""
    done = effect_of(text)
    return bool(done.is_change and done.touches and done.touches[0] == "job"
                and done.touches[1] in jobs)  # fmt: skip

"""`drill test [PATH...]`: prove an incident is solvable and that the obvious wrong answers
score badly, before a class sees it.

At each seed the file lists, it plays the reference, every graded runbook and three strategies
the engine plays by itself (doing nothing, a blind restart and a blind requeue at the first
page), and checks: the reference recovers, ends within its stated steps of the undisturbed run,
has no line the engine refuses, and beats every runbook and every strategy; doing nothing stays
low; each graded runbook lands between doing nothing and the reference and loses the most in the
component its `loses_in` names. It also makes worse runbooks from the reference, one per
class of bad practice (drill/engine/worse_runbooks.py: drop its looks, throw its checkpoint away,
leave the broken node schedulable, skip extra data), and checks each lands in its class's band.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

from drill.commands.printing import say
from drill.engine.scoring.discipline import discipline_value
from drill.engine.scoring.outcome import Outcome
from drill.engine.scoring.par import measured_run, par_and_floor, reference_actions, score_against
from drill.engine.worse_runbooks import worse_runbooks
from drill.incident.library import incident_files
from drill.incident.loader import load_incident
from drill.incident.models import Expectation, Incident
from drill.saves_dir import cache_dir
from drill.values.units import plural

NOTHING_BELOW = 40.0


@dataclass
class Check:
    incident: str
    seed: int
    runbook: str
    ok: bool
    detail: str


def with_reference_discipline(mine: Outcome, par: Outcome) -> Outcome:
    """A graded runbook shows one mistake: it is scored with the reference's acknowledgements
    and notes, so it does not also lose for paperwork it never meant to show."""
    changed = replace(
        mine,
        pages_due=par.pages_due,
        pages_acked_in_time=par.pages_acked_in_time,
        notes=par.notes,
    )
    changed.discipline = discipline_value(
        changed.changes,
        changed.changes_after_look,
        changed.pages_due,
        changed.pages_acked_in_time,
        changed.hints_used,
        changed.notes,
        changed.looks_after_signal,
    )
    return changed


def generic_strategies(incident: Incident, floor: Outcome) -> dict[str, list[str]]:
    """What a person who does not look would do a minute after the first page: restart the
    job from its latest checkpoint, or requeue it."""
    if floor.first_page is None:
        return {}
    job = incident.learner_job.name
    at = _clock(incident, floor.first_page + 60.0)
    return {
        "blind-restart": [f"{at} restart {job} --from latest"],
        "blind-requeue": [f"{at} requeue {job}"],
    }


def _clock(incident: Incident, seconds: float) -> str:
    from drill.incident.clock import NightClock

    return NightClock(incident.night.start).label(seconds)


REPLICA_ONLY = "skipped: it holds only where the replica trains (expect.backend: replica)"


def holds_on(expect: Expectation, backend: str) -> bool:
    """Whether an expectation is checked on this backend: `replica` ones need the real loss."""
    return expect.backend == "any" or backend != "sim"


def check_incident(incident: Incident, backend: str) -> list[Check]:
    checks: list[Check] = []
    for seed in incident.seeds:
        par, floor = par_and_floor(incident, seed, backend, cache_dir=cache_dir())
        floor_score = score_against(incident, floor, par, floor)
        ref_score = score_against(incident, par, par, floor)
        actions = reference_actions(incident, seed, backend, cache_dir=cache_dir())
        checks.append(_reference(incident, seed, par, actions, backend))
        quiet = floor_score.total < NOTHING_BELOW
        detail = f"score {floor_score.total:.1f} ({floor_score.grade}), recovered={floor.recovered}"
        if not quiet:
            detail = (
                f"doing nothing scored {floor_score.total}; it should stay below {NOTHING_BELOW}"
            )
        checks.append(Check(incident.id, seed, "nothing", quiet, detail))
        rivals: list[tuple[str, Outcome]] = [("nothing", floor)]
        for book in incident.runbooks:
            if not holds_on(book.expect, backend):
                checks.append(Check(incident.id, seed, book.name, True, REPLICA_ONLY))
                continue
            mine = measured_run(
                incident, seed, backend, list(book.actions), book.name, cache_dir=cache_dir()
            )
            if book.discipline == "reference":
                mine = with_reference_discipline(mine, par)
            score = score_against(incident, mine, par, floor)
            band = (floor_score.total, ref_score.total)
            checks.append(
                _judge(incident, seed, book.name, mine, score, ref_score, book.expect, band)
            )
            rivals.append((book.name, mine))
        for book in worse_runbooks(list(incident.reference)):
            mine = measured_run(
                incident, seed, backend, list(book.lines), book.name, cache_dir=cache_dir()
            )
            score = score_against(incident, mine, par, floor)
            checks.append(_worse(incident, seed, book, score.total, ref_score.total))
            rivals.append((book.name, mine))
        for name, lines in generic_strategies(incident, floor).items():
            rivals.append(
                (name, measured_run(incident, seed, backend, lines, name, cache_dir=cache_dir()))
            )
        # Without the cap at par, so a runbook that did better than the reference shows it.
        beaten = []
        for rival, outcome in rivals:
            uncapped = score_against(incident, outcome, par, floor, capped=False).total
            if uncapped >= 100.0:
                beaten.append(f"{rival} ({uncapped} against the reference's 100)")
        detail = "beats " + ", ".join(n for n, _ in rivals)
        if beaten:
            detail = f"the reference does not beat: {', '.join(beaten)}"
        checks.append(Check(incident.id, seed, "reference is best", not beaten, detail))
    return checks


def _reference(
    incident: Incident, seed: int, par: Outcome, actions: list[dict], backend: str = "sim"
) -> Check:
    expect = incident.reference_expect
    failures = []
    refused = [a for a in actions if not a.get("accepted", True)]
    for action in refused:
        failures.append(
            f"the engine refused the reference line `{action['text']}` at {action['clock']}:"
            f" {action.get('result', '')}"
        )
    if not holds_on(expect, backend):
        # Its lines must still play; what it recovers is measured only on the replica.
        detail = "; ".join(failures) or REPLICA_ONLY
        return Check(incident.id, seed, "reference", not failures, detail)
    if expect.recovered is not None and par.recovered != expect.recovered:
        failures.append(
            f"expected the reference to end recovered={expect.recovered}, got {par.recovered}"
        )
    if expect.steps_behind_max is not None and par.steps_behind > expect.steps_behind_max:
        failures.append(
            f"the reference ended {par.steps_behind} steps behind the undisturbed run;"
            f" the incident allows {expect.steps_behind_max}"
        )
    summary = f"recovered={par.recovered}, {par.steps_behind} steps behind the undisturbed run"
    return Check(incident.id, seed, "reference", not failures, "; ".join(failures) or summary)


def _worse(incident: Incident, seed: int, book, total: float, reference: float) -> Check:
    """A generated worse runbook must land below its class's ceiling and its margin below the
    reference: otherwise the score rewards the mistake the class names."""
    kind = book.kind
    limit = min(kind.ceiling, reference - kind.margin + 0.05)
    ok = total < limit
    detail = f"score {total:.1f} ({kind.what})"
    if not ok:
        detail = (
            f"{kind.what} scored {total:.1f} against the reference's {reference:.1f}; a worse"
            f" practice must score below {kind.ceiling:.0f} and at least {kind.margin:.0f}"
            " below the reference"
        )
    return Check(incident.id, seed, book.name, ok, detail)


def _judge(incident, seed, name, outcome, score, ref_score, expect: Expectation, band) -> Check:
    failures = []
    if expect.recovered is not None and outcome.recovered != expect.recovered:
        failures.append(f"expected recovered={expect.recovered}, got {outcome.recovered}")
    if expect.score_min is not None and score.total < expect.score_min:
        failures.append(f"expected a score of at least {expect.score_min}, got {score.total}")
    if expect.score_max is not None and score.total > expect.score_max:
        failures.append(f"expected a score of at most {expect.score_max}, got {score.total}")
    if band is not None and expect.score_min is None and expect.score_max is None:
        low, high = band
        if not low < score.total < high:
            failures.append(
                f"a wrong runbook should score between doing nothing ({low}) and the reference ({high}); got {score.total}"
            )
    if expect.loses_in:
        lost = {
            c.name: round(ref_score.component(c.name).points - c.points, 2)
            for c in score.components
        }
        worst = max(lost.values())
        most = sorted(n for n, v in lost.items() if v == worst)
        if worst <= 0 or not set(most) & set(expect.loses_in):
            shown = ", ".join(
                f"{n} {v:+.1f}" for n, v in sorted(lost.items(), key=lambda p: -p[1]) if v
            )
            failures.append(
                f"expected it to lose the most in {' or '.join(expect.loses_in)}, but it lost"
                f" the most in {', '.join(most)} (points lost: {shown or 'none'})"
            )
    summary = f"score {score.total:.1f} ({score.grade}), recovered={outcome.recovered}"
    return Check(incident.id, seed, name, not failures, "; ".join(failures) or summary)


def run_tests(args: argparse.Namespace) -> int:
    files = incident_files(args.paths)
    failed = 0
    for path in files:
        incident = load_incident(path).incident
        for check in check_incident(incident, args.backend):
            mark = "ok  " if check.ok else "FAIL"
            say(f"{mark} {check.incident} seed {check.seed} {check.runbook}: {check.detail}")
            failed += not check.ok
    if failed:
        say(f"{plural(failed, 'expectation')} failed", err=True)
        return 1
    say(f"all expectations hold for {plural(len(files), 'incident')}")
    return 0

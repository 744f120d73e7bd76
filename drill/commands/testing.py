"""`drill test [PATH...]`: prove an incident is solvable and that the obvious wrong answers
score badly, before a class sees it. Plays the reference and every graded runbook headless at
each seed the file lists and checks them against the file's expectations."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from drill.engine.par import measured_run, par_and_floor, score_against
from drill.incident.library import incident_files
from drill.incident.loader import load_incident
from drill.incident.models import Expectation, Incident
from drill.saves_dir import cache_dir

NOTHING_BELOW = 40.0


@dataclass
class Check:
    incident: str
    seed: int
    runbook: str
    ok: bool
    detail: str


def check_incident(incident: Incident, backend: str) -> list[Check]:
    checks: list[Check] = []
    for seed in incident.seeds:
        par, floor = par_and_floor(incident, seed, backend, cache_dir=cache_dir())
        floor_score = score_against(incident, floor, par, floor)
        ref_score = score_against(incident, par, par, floor)
        checks.append(
            _judge(incident, seed, "reference", par, ref_score, incident.reference_expect, None)
        )
        quiet = floor_score.total < NOTHING_BELOW
        detail = f"score {floor_score.total:.1f} ({floor_score.grade}), recovered={floor.recovered}"
        if not quiet:
            detail = (
                f"doing nothing scored {floor_score.total}; it should stay below {NOTHING_BELOW}"
            )
        checks.append(Check(incident.id, seed, "nothing", quiet, detail))
        for book in incident.runbooks:
            mine = measured_run(
                incident, seed, backend, list(book.actions), book.name, cache_dir=cache_dir()
            )
            score = score_against(incident, mine, par, floor)
            band = (floor_score.total, ref_score.total)
            checks.append(_judge(incident, seed, book.name, mine, score, book.expect, band))
    return checks


def _judge(incident, seed, name, outcome, score, expect: Expectation, band) -> Check:
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
    parts = {c.name: c for c in score.components}
    for component in expect.loses_in:
        part = parts[component]
        if part.weight and part.points >= part.weight:
            failures.append(
                f"expected it to lose points in {component}, but it kept all {part.weight:.0f}"
            )
    summary = f"score {score.total:.1f} ({score.grade}), recovered={outcome.recovered}"
    if name == "reference" and score.total < 85:
        failures.append(f"the reference scored {score.total}; it should reach 85 or more")
    return Check(incident.id, seed, name, not failures, "; ".join(failures) or summary)


def run_tests(args: argparse.Namespace) -> int:
    files = incident_files(args.paths)
    failed = 0
    for path in files:
        incident = load_incident(path).incident
        for check in check_incident(incident, args.backend):
            mark = "ok  " if check.ok else "FAIL"
            print(f"{mark} {check.incident} seed {check.seed} {check.runbook}: {check.detail}")
            failed += not check.ok
    if failed:
        print(f"{failed} expectation(s) failed", file=sys.stderr)
        return 1
    print(f"all expectations hold for {len(files)} incident(s)")
    return 0

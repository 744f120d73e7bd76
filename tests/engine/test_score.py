"""The score is a comparison with real runs: par from the reference, floor from doing nothing."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from drill.engine.outcome import Outcome
from drill.engine.score import DEFAULT_WEIGHTS, build_score

REPO = Path(__file__).resolve().parents[2]


def outcome(**changes) -> Outcome:
    base = Outcome(
        recovered=True,
        onset=600.0,
        recovered_at=1200.0,
        final_step=300,
        target_steps=300,
        steps_recomputed=10,
        gpu_hours_wasted=2.0,
        match="bitexact",
        rel_l2=0.0,
        surgery=2,
        surgery_after_look=2,
        pages=1,
        pages_acked_in_time=1,
        notes=1,
    )
    return replace(base, **changes)


PAR = outcome()
FLOOR = outcome(
    recovered=False, recovered_at=None, final_step=100, steps_behind=200, gpu_hours_behind=10.7,
    surgery=0, surgery_after_look=0, pages_acked_in_time=0, notes=0, steps_recomputed=0, gpu_hours_wasted=5.0,
)  # fmt: skip


def score(mine: Outcome):
    return build_score(
        mine, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=lambda t: f"t{t:.0f}"
    )


def parts(result) -> dict:
    return {c.name: c for c in result.components}


def test_par_scores_full_and_floor_scores_low():
    assert score(PAR).total == 100.0 and score(PAR).grade == "A"
    floor = score(FLOOR)
    assert floor.total < 40 and floor.grade == "F"


def test_every_component_has_figures_and_a_plain_reason():
    for component in score(PAR).components:
        assert component.weight == DEFAULT_WEIGHTS[component.name]
        assert component.why and "\u2014" not in component.why
        assert component.par is not None or component.name == "time_to_recovery"


def test_a_mistake_loses_points_where_it_was_made():
    no_look = score(outcome(surgery_after_look=0))
    assert parts(no_look)["discipline"].points < DEFAULT_WEIGHTS["discipline"]
    assert parts(no_look)["collateral"].points == DEFAULT_WEIGHTS["collateral"]
    harmful = score(outcome(harms=["drained gpu-a-3, which was healthy"]))
    assert parts(harmful)["collateral"].points < DEFAULT_WEIGHTS["collateral"]
    assert "gpu-a-3" in parts(harmful)["collateral"].why
    slow = score(outcome(recovered_at=3000.0))
    assert parts(slow)["time_to_recovery"].points < DEFAULT_WEIGHTS["time_to_recovery"]
    poisoned = score(outcome(match="diverged", corrupt_loaded=1))
    assert parts(poisoned)["integrity"].points == 0


def test_beating_par_earns_a_bonus_but_the_total_stays_within_100():
    faster = score(outcome(recovered_at=900.0))
    assert parts(faster)["time_to_recovery"].points > DEFAULT_WEIGHTS["time_to_recovery"]
    assert faster.total <= 100.0


def test_without_a_replica_integrity_is_not_scored():
    bare = [replace(o, match=None) for o in (PAR, FLOOR)]
    result = build_score(
        bare[0], bare[0], bare[1], weights={}, night_length=7200, job_gpus=16, clock=str
    )
    assert parts(result)["integrity"].weight == 0
    assert result.total == 100.0


def test_incident_weights_override_the_defaults():
    result = build_score(
        PAR, PAR, FLOOR, weights={"collateral": 40.0}, night_length=7200, job_gpus=16, clock=str
    )
    assert parts(result)["collateral"].weight == 40.0


@pytest.mark.slow
def test_shipped_incidents_hold_their_score_bands_with_the_real_replica():
    """Reference at least 85 and doing nothing below 40 at every listed seed; every graded wrong
    runbook in between and losing points in the component its mistake names."""
    done = subprocess.run(
        [sys.executable, "-m", "drill", "test", "incidents/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "FAIL" not in done.stdout
    assert done.stdout.count("reference: score") >= 8

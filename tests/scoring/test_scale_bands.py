"""The scale a senior on-call engineer's grades agree with (drill/incidents/README.md, "How a
night is scored"): the bands each class of night lands in, the fixed costs that put it there, and
the bugs in the figures, each on a night or an outcome where it decides the result."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from drill.engine.drill import Drill
from drill.engine.scoring.discipline import discipline_value
from drill.engine.scoring.par import measured_run, par_and_floor, score_against
from drill.engine.scoring.score import build_score, grade_of
from drill.saves_dir import cache_dir
from tests.engine.test_score import FLOOR, PAR, outcome
from tests.scoring.nights import facts, incident, reference_score, score_of

SEEDS = [1, 2, 3]
MARGIN = 10.0
GUIDE = Path(__file__).resolve().parents[2] / "drill" / "incidents" / "README.md"


def _dead_rank(seed: int, *, delay: float = 330.0, start: str = "latest", extra: str = ""):
    """The reference's looks, ack, note and surgery, with the restart changed."""
    f = facts("dead-rank", seed)
    node = f.node
    return [
        f"{f.at(f.fault_time + delay)} ack all",
        "+0s status llm-pretrain",
        f"+0s health {node}",
        f"+0s drain {node}",
        f"+0s restart llm-pretrain --from {start} --exclude {node}{extra}",
        f"+0s swap {node}",
        f"+0s note GPU fell off the bus on {node}; drained, restarted without it, spare swapped in",
    ]


@cache
def _oom_kill(seed: int) -> tuple[float, str]:
    inc = incident("bad-data-shard")
    d = Drill(inc, seed)
    d.advance(inc.night.length)
    return d.world.faults.fired_at["oom-kill"], d.world.faults.chosen["oom-kill"][0].node


def _bad_data_shard(seed: int, skip: str) -> list[str]:
    when, node = _oom_kill(seed)
    return [
        f"{facts('bad-data-shard', seed).at(when + 60)} ack all",
        "+0s status llm-pretrain",
        f"+0s health {node}",
        "+0s logs llm-pretrain --rank 0",
        "+0s ckpt list llm-pretrain",
        f"+0s restart llm-pretrain --from 100 --skip {skip}",
        "+0s note loss jumped after 110; restarted from 100 skipping the bad stretch",
    ]


def _shown(score) -> str:
    return f"{score.total} ({', '.join(f'{c.name} {c.points:+.1f}' for c in score.components)})"


# -- the bands --------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_restarting_from_scratch_with_a_good_checkpoint_lands_c_or_lower(seed):
    """Work thrown away: at seeds 1 and 3 a third of the run (checkpoint 100), at seed 2 a
    sixth (checkpoint 50), with every look, ack and note of the reference."""
    mine = score_of("dead-rank", seed, "sim", _dead_rank(seed, start="scratch"))
    assert mine.total < 80, f"seed {seed}: {_shown(mine)}"
    assert "threw away" in mine.component("progress").why


@pytest.mark.parametrize("seed", SEEDS)
def test_a_correct_but_slower_recovery_lands_in_b(seed):
    """The reference's own fix, fifteen minutes later than it: the right act, late."""
    mine = score_of("dead-rank", seed, "sim", _dead_rank(seed, delay=330.0 + 900.0))
    assert 80.0 <= mine.total < 90.0, f"seed {seed}: {_shown(mine)}"


@pytest.mark.parametrize("seed", [1, 2])
def test_skipping_100_steps_of_data_when_30_were_bad_costs_the_steps(seed):
    mine = score_of("bad-data-shard", seed, "sim", _bad_data_shard(seed, "111-210"))
    ref = reference_score("bad-data-shard", seed, "sim")
    assert mine.total <= ref.total - MARGIN, _shown(mine)
    outcome_ = measured_run(
        incident("bad-data-shard"),
        seed,
        "sim",
        _bad_data_shard(seed, "111-210"),
        "learner",
        cache_dir=cache_dir(),
    )
    assert outcome_.skipped_steps == 70  # 111-210 skipped, 111-140 bad
    assert "70 steps of good data skipped" in mine.component("progress").why


@pytest.mark.parametrize("seed", [1, 2])
def test_restarting_on_32_gpus_instead_of_16_scores_well_below(seed):
    ref = reference_score("preempted-job", seed, "sim")
    lines = [
        line.replace("--world 8", "--world 32") for line in incident("preempted-job").reference
    ]
    assert lines != list(incident("preempted-job").reference)
    mine = score_of("preempted-job", seed, "sim", lines)
    assert mine.total <= ref.total - MARGIN, _shown(mine)


def test_gpus_held_beyond_the_need_while_others_queue_are_harm():
    """Taken before the urgent job comes: 32 GPUs held while other teams' jobs wait."""
    lines = [
        "03:00 set llm-pretrain ckpt-on-sigterm yes",
        "03:05 restart llm-pretrain --world 32",
    ]
    mine = measured_run(
        incident("preempted-job"), 2, "sim", lines, "learner", cache_dir=cache_dir()
    )
    assert mine.extra_gpu_seconds > 0
    par, floor = par_and_floor(incident("preempted-job"), 2, "sim", cache_dir=cache_dir())
    score = score_against(incident("preempted-job"), mine, par, floor)
    assert "beyond the 16 GPUs it needs" in score.component("collateral").why
    # The same restart at the job's own size, played like any night: less harm, on average too.
    own = measured_run(
        incident("preempted-job"),
        2,
        "sim",
        [lines[0], "03:05 restart llm-pretrain"],
        "learner",
        cache_dir=cache_dir(),
    )
    fair = score_against(incident("preempted-job"), own, par, floor)
    assert own.extra_gpu_seconds == 0
    assert score.component("collateral").value > fair.component("collateral").value


@pytest.mark.parametrize(
    ("total", "grade"),
    [(100.0, "A"), (90.0, "A"), (89.9, "B"), (80.0, "B"), (79.9, "C"), (65.0, "C")]
    + [(64.9, "D"), (50.0, "D"), (49.9, "F"), (0.0, "F")],
)
def test_every_grade_band_starts_at_its_cutoff(total, grade):
    assert grade_of(total) == grade


def test_an_uninformed_change_is_no_better_than_b():
    lucky = outcome(uninformed_changes=1)
    score = build_score(lucky, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=str)
    assert all(c.points == c.weight for c in score.components)  # every figure at par
    assert score.total < 90 and score.grade == "B"
    assert "no look that informed" in score.component("discipline").why


def test_stopping_another_teams_running_job_is_d_or_lower():
    harmful = outcome(stopped_others=["vision-001"])
    score = build_score(harmful, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=str)
    assert score.total < 65 and score.grade == "D"
    assert "vision-001" in score.component("collateral").why
    # The same act in the reference is not held against a learner who copies it.
    same = build_score(
        harmful, harmful, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=str
    )
    assert same.total == 100.0


# -- the bugs in the figures ------------------------------------------------------------------


def test_a_dead_job_gets_no_integrity_even_when_par_and_floor_both_have_none():
    """bad-data-shard on the replica: the reference's skipped data makes its weights differ
    (0), doing nothing is dead (0); par equals floor must not hand a dead job all 10 points."""
    par = outcome(match="diverged")
    dead = outcome(alive=False, completed=False, recovered=False)
    floor = replace(FLOOR, match=None)
    score = build_score(dead, par, floor, weights={}, night_length=7200, job_gpus=16, clock=str)
    assert score.component("integrity").points == 0.0
    assert "no integrity points" in score.component("integrity").why


def test_the_guide_states_the_hint_cost_the_code_charges():
    """Each of the first three hints takes a quarter off the hints eighth of discipline: 3/32
    of the value, which on discipline's scale (half the value costs all of it) is 3/16 of its
    points."""
    cost = discipline_value(0, 0, 0, 0, 0, 1) - discipline_value(0, 0, 0, 0, 9, 1)
    assert cost == pytest.approx(3 / 32, abs=1e-4)
    par = outcome()
    hinted = outcome(hints_used=3, discipline=1 - 3 / 32)
    score = build_score(hinted, par, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=str)
    assert score.component("discipline").points == pytest.approx(15.0 * (1 - 3 / 16), abs=0.01)
    guide = " ".join(GUIDE.read_text().split())
    assert "three thirty-seconds of the discipline value" in guide
    assert "three sixteenths of its points" in guide


def test_on_sim_a_finished_job_says_its_step_was_counted_not_measured():
    ref = reference_score("dead-rank", 1, "sim")
    why = ref.component("progress").why
    assert "finished all" in why and "counted without the replica" in why


def test_no_response_to_a_real_page_is_not_discipline():
    """Doing nothing through full-disk's pages earns no looks part, and a plan-only night that
    kept the pages away does not beat the reference's own discipline."""
    par, floor = par_and_floor(incident("full-disk"), 1, "sim", cache_dir=cache_dir())
    assert floor.pages_due and not floor.changes
    assert floor.discipline < 0.5  # looks (half) and pages (a quarter) both missed
    plan_only = measured_run(
        incident("full-disk"),
        1,
        "sim",
        ["03:00 set llm-pretrain ckpt-keep 2"],
        "learner",
        cache_dir=cache_dir(),
    )
    assert plan_only.discipline < par.discipline


def test_a_recorded_skip_is_named_where_the_weights_differ():
    skipped = outcome(match="diverged", skips=[[111, 140]])
    score = build_score(skipped, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=str)
    why = score.component("integrity").why
    assert "111-140" in why and "loaded bad bytes" not in why

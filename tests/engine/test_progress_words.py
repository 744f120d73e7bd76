"""The progress component's sentence, as a learner reads it (audit defect 9).

The undisturbed run is counted on at its pace past the job's last step to the end of the night,
so "steps behind" can be more than the job has steps (doing nothing on a 300-step job: 458
behind). The sentence says where the job got to, where the undisturbed run would be and why it
can be past the job's steps, and the gap in training time before steps. Only words: the
figures and points are the ones the score always gave."""

from __future__ import annotations

from dataclasses import replace

from drill.engine.scoring.outcome import Outcome
from drill.engine.scoring.score import build_score
from drill.values.units import format_clock

START = 3 * 3600  # the night starts at 03:00
PACE = 12.75  # seconds a step, checkpoints included (dead-rank's)


def clock(seconds: float) -> str:
    return format_clock(START + seconds)


def night(**changes) -> Outcome:
    base = Outcome(
        end_time=4620.0,  # 04:17:00
        completed=True,
        alive=True,
        recovered=True,
        final_step=300,
        target_steps=300,
        baseline_step=558,
        effective_step=502,
        progress_how="weights equal to the undisturbed run's, bit for bit",
        pace=PACE,
    )
    return replace(base, **changes)


PAR = night()
FLOOR = night(
    completed=False,
    alive=False,
    recovered=False,
    end_time=7200.0,
    final_step=109,
    effective_step=100,
    progress_how="the newest checkpoint that verifies on disk (step 100)",
)


def why(mine: Outcome) -> str:
    result = build_score(mine, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=clock)
    return result.component("progress").why


def test_a_finished_job_is_behind_by_the_training_time_it_lost():
    assert why(night(effective_step=488)) == (
        "The job finished all 300 steps at 04:17:00. The undisturbed run (the same job alone on a"
        " quiet cluster) would have finished its 300 steps and, counted on at its pace to the end"
        " of the night, reached step 558. Your model ended 14m52s of training (70 steps) behind"
        " that: its effective step is 488, from weights equal to the undisturbed run's, bit for"
        " bit. The reference ended 11m54s of training (56 steps) behind; doing nothing, 1h37m of"
        " training (458 steps)."
    )


def test_a_job_that_did_not_finish_says_how_far_it_got_of_its_steps():
    assert why(FLOOR).startswith(
        "The job reached step 109 of 300 and was not running at the end of the night. The"
        " undisturbed run (the same job alone on a quiet cluster) would have finished its 300"
        " steps and, counted on at its pace to the end of the night, reached step 558. Your"
        " model ended 1h37m of training (458 steps) behind that: its effective step is 100,"
    )
    training = night(completed=False, end_time=7200.0, final_step=250, effective_step=250)
    assert why(training).startswith(
        "The job reached step 250 of 300 by the end of the night. The undisturbed run"
    )


def test_an_undisturbed_run_that_would_not_have_finished_either_is_not_said_to():
    short = night(completed=False, end_time=7200.0, final_step=200, effective_step=200)
    text = why(replace(short, baseline_step=260))
    assert "would have reached step 260 by the end of the night." in text
    assert "finished its" not in text
    assert "Your model ended 12m45s of training (60 steps) behind that" in text


def test_level_with_the_undisturbed_run_says_so():
    assert "Your model ended level with it: its effective step is 558," in why(
        night(effective_step=558)
    )
    one = why(night(effective_step=557))
    assert "13s of training (1 step) behind" in one


def test_every_gap_the_sentence_gives_is_a_time_with_its_steps():
    """No bare "N steps behind": a count past the job's own steps needs its explanation, and a
    time says what a learner lost."""
    for mine in (PAR, FLOOR, night(effective_step=300), night(baseline_step=900)):
        text = why(mine)
        assert "steps behind" not in text and "step behind" not in text
        assert "behind the undisturbed run by the end of the night" not in text
        assert "\u2014" not in text


def test_the_words_change_no_figure():
    mine = night(effective_step=488)
    result = build_score(mine, PAR, FLOOR, weights={}, night_length=7200, job_gpus=16, clock=clock)
    progress = result.component("progress")
    assert progress.value == {"steps_behind": 70}
    assert progress.par == {"steps_behind": 56} and progress.floor == {"steps_behind": 458}

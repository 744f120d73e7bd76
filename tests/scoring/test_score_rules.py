"""The rules behind the score, each shown on a night where it decides the result: progress read
from the replica, a dead job's integrity, each outage timed on its own, proportional harm,
templates kept from learners, and a `drill test` that can fail."""

from __future__ import annotations

import pytest
import yaml

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.scoring.par import measure_drill, measured_run, par_and_floor, score_against
from drill.engine.timed import ActionsFileError, load_file, parse_text
from drill.saves_dir import cache_dir
from tests.clikit import run_drill
from tests.drillkit import REPO, build, job_spec
from tests.scoring.nights import incident, reference_score


def _night(incident_, lines, seed=1, backend="sim"):
    d = Drill.create(incident_, seed, backend)
    play(d, parse_text("\n".join(lines), "test", {f.id for f in incident_.faults}))
    return d


def _score(incident_, lines, *, seed=1, backend="sim"):
    par, floor = par_and_floor(incident_, seed, backend, cache_dir=cache_dir())
    mine = measured_run(incident_, seed, backend, lines, "mine", cache_dir=cache_dir())
    return score_against(incident_, mine, par, floor), mine


# -- progress comes from the replica ---------------------------------------------------------


@pytest.mark.slow
def test_a_resume_that_drops_the_optimizer_state_costs_progress_and_integrity(monkeypatch):
    """Break the replica on purpose: the same reference actions, but a resume that keeps a
    fresh optimizer. The model is measurably worse, and the score says so."""
    dead_rank = incident("dead-rank")
    fine = reference_score("dead-rank", 1, "inprocess")
    from replica.trainer import Trainer

    real = Trainer.load_full_state

    def forgetful(self, state, *, load_optimizer=True):
        return real(self, state, load_optimizer=False)

    monkeypatch.setattr(Trainer, "load_full_state", forgetful)
    broken, outcome = _score(dead_rank, list(dead_rank.reference), backend="inprocess")
    assert outcome.match == "diverged"
    assert "smoothed loss" in outcome.progress_how
    assert broken.component("integrity").points < fine.component("integrity").points
    assert broken.total < fine.total - 5


def test_without_the_replica_progress_is_counted_and_says_so():
    dead_rank = incident("dead-rank")
    score, outcome = _score(dead_rank, list(dead_rank.reference))
    assert "counted" in outcome.progress_how
    assert "counted" in score.component("progress").why or outcome.completed


# -- integrity ----------------------------------------------------------------------------------


def test_a_job_dead_all_night_has_no_integrity():
    dead_rank = incident("dead-rank")
    score, outcome = _score(dead_rank, [])
    assert not outcome.alive
    assert score.component("integrity").points == 0.0
    assert "no integrity points" in score.component("integrity").why


def test_pruning_away_every_good_checkpoint_leaves_a_dead_job_with_nothing():
    full_disk = incident("full-disk")
    lines = [
        "03:56 ack all",
        "+0s ckpt prune llm-pretrain --keep 1",
        "+0s restart llm-pretrain --from latest",
    ]
    score, outcome = _score(full_disk, lines)
    assert not outcome.alive and outcome.effective_step == 0
    assert score.component("integrity").points == 0.0


# -- recovered and time to recovery ----------------------------------------------------------


def test_a_restart_from_scratch_near_the_end_is_no_recovery():
    dead_rank = incident("dead-rank")
    score, outcome = _score(dead_rank, ["04:50 restart llm-pretrain --from scratch"])
    assert not outcome.recovered
    assert score.component("recovered").points == 0.0


def test_each_outage_is_timed_from_its_own_stop_to_its_own_restart():
    spec = job_spec("train", yours=True, steps=600, retry={"max_restarts": 3, "backoff": "30s"})
    faults = [
        {"id": "first", "kind": "kill_rank", "at": "10m", "target": {"job": "train"}},
        {"id": "second", "kind": "kill_rank", "at": "40m", "target": {"job": "train"}},
    ]
    d = Drill(build(jobs=[spec], faults=faults), 1)
    d.play_out()
    outcome = measure_drill(d)
    assert len(outcome.outages) == 2
    (a_start, a_end), (b_start, b_end) = outcome.outages
    assert a_start == pytest.approx(600.0, abs=15) and b_start == pytest.approx(2400.0, abs=15)
    assert a_end < b_start and b_end > b_start
    assert outcome.downtime == pytest.approx((a_end - a_start) + (b_end - b_start))


# -- collateral --------------------------------------------------------------------------------


def test_harm_to_another_team_costs_in_proportion_even_with_a_heavy_weight():
    """Preempting another team's work to jump the queue, with collateral weighted 30: one harm
    no longer costs a third of the weight whatever its size; its size decides."""
    preempted = incident("preempted-job").model_copy(
        update={
            "scoring": incident("preempted-job").scoring.model_copy(
                update={"weights": {"collateral": 30.0}}
            )
        }
    )
    lines = ["03:27 ack all", "+0s queue", "+0s priority llm-pretrain urgent", "+0s note raised"]
    for seed in (1, 2):
        score, outcome = _score(preempted, lines, seed=seed)
        par, floor = par_and_floor(preempted, seed, "sim", cache_dir=cache_dir())
        ref = score_against(preempted, par, par, floor)
        assert score.grade != "A" and score.total <= ref.total - 10, score.total
        assert score.component("collateral").points < 0


def test_looking_without_fixing_is_a_failing_night():
    dead_rank = incident("dead-rank")
    lines = [
        "03:32 ack all",
        "+0s status llm-pretrain",
        "+0s queue",
        "+0s note looked, will escalate",
    ]
    score, _ = _score(dead_rank, lines)
    assert score.total < 35 and score.grade == "F"


def test_pruning_without_a_look_is_a_change_made_blind():
    full_disk = incident("full-disk")
    blind = ["03:56 ack all", "+0s ckpt rm llm-pretrain 200", "+0s ckpt rm llm-pretrain 50"]
    blind += [
        "+0s set llm-pretrain ckpt-keep 2",
        "+0s restart llm-pretrain --from 150",
        "+0s note x",
        "04:01 ack all",  # the volume's page at 04:00, as the reference acknowledges it
    ]
    looked = ["03:56 ack all", "+0s df", "+0s ckpt list llm-pretrain", *blind[1:]]
    score_blind, o_blind = _score(full_disk, blind)
    score_looked, o_looked = _score(full_disk, looked)
    assert o_blind.changes == o_looked.changes == 4
    assert o_blind.changes_after_look == 0 and o_looked.changes_after_look == 4
    assert score_blind.total <= score_looked.total - 10


def test_restarting_behind_a_flapping_leaf_trains_slowly_and_scores_low():
    spec = job_spec("train", yours=True, steps=400, retry={"max_restarts": 0, "backoff": "30s"})
    flap = {
        "id": "flap",
        "kind": "link_flap",
        "at": "10m",
        "duration": "5h",
        "slowdown": 3,
        "target": {"leaf": "leaf-a1"},
    }
    incident_ = build(
        jobs=[spec],
        faults=[flap],
        length="3h",
        reference=[
            "03:25 status train",
            "+0s restart train --from latest --exclude gpu-a-1,gpu-a-2",
            "+0s note off the leaf",
        ],
    )
    back = ["03:25 status train", "+0s restart train --from latest", "+0s note restarted"]
    score, outcome = _score(incident_, back)
    par, floor = par_and_floor(incident_, 1, "sim", cache_dir=cache_dir())
    ref = score_against(incident_, par, par, floor)
    assert ref.total - score.total >= 10, (score.total, ref.total)


# -- no foreknowledge --------------------------------------------------------------------------


def test_a_learners_actions_file_cannot_name_what_a_fault_chose(tmp_path):
    path = tmp_path / "mine.actions"
    path.write_text("03:20 status llm-pretrain\n03:21 health {fault.gpu-dies.node}\n")
    with pytest.raises(ActionsFileError) as caught:
        load_file(path, {"gpu-dies"})
    error = caught.value
    assert (error.line, error.col) == (2, 14)
    assert "templates are for reference and graded runbooks" in str(error)


def test_the_cli_refuses_a_template_in_an_actions_file_with_a_located_line(tmp_path):
    path = tmp_path / "mine.actions"
    path.write_text("{fault.gpu-dies.time}+5m status llm-pretrain\n")
    done = run_drill("run", "dead-rank", "--backend", "sim", "--actions", str(path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{path}:1:1:" in done.stderr and "templates are for" in done.stderr


def test_a_fault_aimed_at_a_job_strikes_it_when_it_next_runs():
    dead_rank = incident("dead-rank")
    at = Drill(dead_rank, 1)
    at.advance(dead_rank.night.length)
    fired = at.world.faults.fired_at["gpu-dies"]
    label = at.clock(fired - 20)
    d = _night(dead_rank, [f"{label} restart llm-pretrain --from latest"])
    assert d.world.faults.fired_at["gpu-dies"] > fired, "it waited for the job to run again"
    [pick] = d.world.faults.chosen["gpu-dies"]
    assert pick.node in d.learner_job.attempts[-1].nodes or d.learner_job.state != "running"


# -- drill test can fail -------------------------------------------------------------------------


def test_drill_test_fails_when_the_reference_is_worse_than_a_graded_runbook(tmp_path):
    data = yaml.safe_load((REPO / "drill" / "incidents" / "dead-rank.yaml").read_text())
    good, bad = data["reference"], data["runbooks"][0]["actions"]
    data["reference"], data["runbooks"][0]["actions"] = bad, good
    path = tmp_path / "swapped.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    done = run_drill("test", str(path), "--backend", "sim")
    assert done.returncode == 1, done.stdout
    assert "FAIL dead-rank seed 1 reference is best: the reference" in done.stdout
    assert "does not beat: restart-from-scratch" in done.stdout


def test_drill_test_fails_a_reference_line_the_engine_refuses(tmp_path):
    data = yaml.safe_load((REPO / "drill" / "incidents" / "tutorial.yaml").read_text())
    data["reference"].insert(1, "+0s release tiny-train")  # parses, but it is not held
    path = tmp_path / "refused.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    done = run_drill("test", str(path), "--backend", "sim")
    assert done.returncode == 1
    assert "FAIL tutorial seed 1 reference" in done.stdout


def test_scores_of_the_same_night_agree_whatever_the_time_slicing():
    dead_rank = incident("dead-rank")
    fine = _night(dead_rank, list(dead_rank.reference))
    coarse = Drill(dead_rank, 1)
    actions = parse_text("\n".join(dead_rank.reference), "ref", {"gpu-dies"})
    play(coarse, actions, finish_night=False)
    while not coarse.over:
        coarse.advance(7.0)
    assert measure_drill(fine) == measure_drill(coarse)


@pytest.mark.slow
def test_loading_a_checkpoint_verify_reported_bad_is_counted_from_the_bytes():
    """`ckpt verify` says FAILED, the learner restarts from it anyway, without verify on resume:
    the replica read bytes that do not match the manifest, and integrity counts it."""
    spec = job_spec(
        "train",
        yours=True,
        gpus=8,
        steps=120,
        checkpoint={"every": 20, "keep": 3, "write_time": "20s"},
        replica={"width": 16, "heads": 2, "ranks": 2, "global_batch": 8},
    )
    rot = {"id": "rot", "kind": "corrupt_checkpoint", "at": "10m", "target": {"job": "train"}}
    night = build(jobs=[spec], faults=[rot], reference=["03:12 status train"])
    d = Drill.create(night, 1, "inprocess")
    try:
        d.advance(660)
        [pick] = d.world.faults.chosen["rot"]
        assert "FAILED" in d.act(f"ckpt verify train {pick.step}").output
        assert d.act(f"restart train --from {pick.step}").accepted
        d.play_out()
        outcome = measure_drill(d)
    finally:
        d.close()
    assert outcome.corrupt_loaded == 1
    assert outcome.corrupt_caught >= 1


def test_a_graded_runbook_is_scored_with_the_references_pages_and_notes():
    """So `drill test` blames the component the runbook's mistake is in, not its paperwork."""
    from drill.commands.testing import with_reference_discipline

    dead_rank = incident("dead-rank")
    par, floor = par_and_floor(dead_rank, 1, "sim", cache_dir=cache_dir())
    bare = dead_rank.runbooks[0].actions[1:]  # the same runbook without its `ack all`
    mine = measured_run(
        dead_rank,
        1,
        "sim",
        [f"03:31 {bare[0].split(' ', 1)[1]}", *bare[1:]],
        "x",
        cache_dir=cache_dir(),
    )
    assert mine.pages_acked_in_time < par.pages_acked_in_time and mine.notes == 0
    judged = with_reference_discipline(mine, par)
    assert (judged.pages_due, judged.pages_acked_in_time, judged.notes) == (
        par.pages_due,
        par.pages_acked_in_time,
        par.notes,
    )
    assert (judged.changes, judged.changes_after_look) == (mine.changes, mine.changes_after_look)
    assert judged.discipline > mine.discipline
    lost = score_against(dead_rank, judged, par, floor)
    ref = score_against(dead_rank, par, par, floor)
    worst = max(lost.components, key=lambda c: ref.component(c.name).points - c.points)
    assert worst.name == "progress"

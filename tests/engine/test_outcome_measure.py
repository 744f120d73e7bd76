"""`outcome.measure` on a real night (dead-rank on the sim, played the way a person would, with two
hints, a note and one mistake: a healthy node drained too), each figure against where the night
keeps it: the job's own record, the pager, the nodes, the ledger. The figures' rules are tested
in test_outcome_figures.py and test_discipline_figures.py; this checks that each one reaches the
Outcome, under its own name, whole."""

from __future__ import annotations

import pytest

from drill.engine.scoring import outcome
from drill.engine.scoring.discipline import measure_discipline
from drill.engine.scoring.par import step_clock
from drill.incident.library import resolve_incident
from drill.sim.jobs import COMPLETED
from tests.drillkit import build, drill, job_spec

PAGING = 300.0


@pytest.fixture
def night():
    # Played again for each test, not once per module: mutmut runs, for a mutant, only the
    # tests that called the mutated code, and a shared night is called by the first test alone.
    incident = resolve_incident("dead-rank").incident
    d = drill(incident)
    while not [a for a in d.world.pager.alerts if not a.noise and a.severity != "info"]:
        d.advance(5)
    first_page = min(a.time for a in d.world.pager.alerts if not a.noise and a.severity != "info")
    d.advance(60)
    [pick] = d.world.faults.chosen["gpu-dies"]
    broken = pick.node
    healthy = next(
        n.name for n in d.world.cluster.nodes.values() if n.name != broken and not n.allocations
    )
    for line in (
        "ack all",
        "hint",
        "hint",
        "drain " + healthy,  # a mistake: nothing is wrong with it
        f"health {broken}",
        f"drain {broken}",
        f"restart llm-pretrain --from latest --exclude {broken}",
        f"note GPU on {broken} fell off the bus; drained and restarted without it",
    ):
        assert d.act(line).accepted, line
    drained_at = next(a.time for a in d.actions if a.text == "drain " + healthy)
    d.play_out()
    job = d.learner_job
    before = {
        "end": d.end_time,
        "state": job.state,
        "step": job.step,
        "outages": [[o.start, o.end] for o in job.outages],
        "discipline": measure_discipline(d, PAGING, d.end_time),
    }
    clock = step_clock(incident, 1)
    measured = outcome.measure(d, PAGING, clock, plan=False)
    return d, measured, before, clock, first_page, healthy, drained_at


def test_the_jobs_own_figures(night):
    d, m, before, clock, *_ = night
    job = d.learner_job
    assert m.end_time == round(before["end"], 3)
    assert m.completed == (before["state"] == COMPLETED)
    assert m.alive and m.recovered
    assert (m.final_step, m.target_steps, m.target_gpus) == (before["step"], job.steps, job.gpus)
    assert m.baseline_step == int(round(clock.steps_by(d.night_end)))
    assert m.pace == round(clock.pace, 3)
    assert m.outages == before["outages"] and len(m.outages) == 1
    assert m.steps_trained == job.steps_executed > m.final_step - 1
    assert (m.skipped_steps, m.skips) == (0, [])
    # Finished before the end: it goes on at the undisturbed pace for the rest of the night.
    assert m.completed and before["end"] < d.night_end
    went_on = job.step + (d.night_end - before["end"]) / clock.pace
    assert m.effective_step == min(int(round(went_on)), m.baseline_step) > job.step
    assert m.progress_how == "counted without the replica (sim backend), not measured"


def test_the_first_page_is_when_the_pager_first_fired(night):
    _, m, _, _, first_page, *_ = night
    assert m.first_page == first_page


def test_discipline_is_copied_whole(night):
    _, m, before, *_ = night
    disc = before["discipline"]
    assert (m.changes, m.changes_after_look) == (disc.changes, disc.changes_after_look)
    assert (m.pages_due, m.pages_acked_in_time) == (disc.pages_due, disc.pages_acked_in_time)
    assert (m.hints_used, m.notes, m.discipline) == (2, 1, disc.value)
    assert m.looks_after_signal == disc.looks_after_signal
    assert m.uninformed_changes == disc.changes - disc.changes_after_look == 2
    assert m.uninformed_lines == disc.uninformed and len(m.uninformed_lines) == 2
    assert m.changes == 3 and m.pages_acked_in_time >= 1


def test_a_healthy_node_taken_out_counts_until_the_night_ends(night):
    d, m, _, _, _, healthy, drained_at = night
    node = d.world.cluster.nodes[healthy]
    assert node.taken_healthy_at is not None
    assert m.healthy_gpu_seconds == round((d.night_end - drained_at) * len(node.gpus), 3)


def test_harm_and_risk_come_from_the_ledger_and_the_exposure(night):
    d, m, *_ = night
    world = d.world
    ledger = [[h.time, h.kind, h.gpu_seconds, h.text] for h in world.ledger.harms]
    assert m.harms[: len(ledger)] == ledger
    assert m.risk_gpu_seconds == round(world.exposure.risk_gpu_seconds, 3)
    assert m.slowed_gpu_seconds == round(world.exposure.slowed_gpu_seconds, 3)
    assert m.left_schedulable == []  # the broken node was drained
    assert m.stopped_others == [] and m.extra_gpu_seconds == 0.0
    assert set(m.others) == {n for n in world.jobs if n != d.learner_job.name}


def _killed_at(at: str, restart_after: float | None, length: str = "2h"):
    """A long job killed at `at` (no retries), restarted by hand after `restart_after` s."""
    incident = build(
        length=length,
        jobs=[job_spec("train", yours=True, steps=5000)],
        faults=[{"id": "kill", "kind": "kill_rank", "at": at, "target": {"job": "train"}}],
    )
    d = drill(incident)
    if restart_after is not None:
        kill = next(  # the night's clock starts at 03:00
            3600 * (int(h) - 3) + 60 * int(m) for h, m in [at.split(":")]
        )
        d.advance_to(kill + restart_after)
        assert d.act("restart train --from latest").accepted
    d.play_out()
    return d


def test_is_recovered_says_what_the_outcome_says(night):
    # The debrief's account asks is_recovered; the score reads Outcome.recovered.
    completed = night[0]
    assert outcome.is_recovered(completed)
    alone = drill(resolve_incident("dead-rank").incident)
    alone.play_out()
    assert alone.learner_job.state != COMPLETED  # dead-rank left alone never finishes
    assert not outcome.is_recovered(alone)
    back = _killed_at("03:20", 300.0)  # training again for over an hour and a half
    assert outcome.is_recovered(back) and back.learner_job.state != COMPLETED
    dead = _killed_at("03:20", None)
    assert not outcome.is_recovered(dead)
    late = _killed_at("04:40", 300.0)  # restarted 15 minutes before the end: too late
    assert not outcome.is_recovered(late)
    clock = step_clock(late.incident, 1)
    assert not outcome.measure(late, PAGING, clock, plan=False).recovered

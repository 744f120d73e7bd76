"""The first signal the learner could see, and the hang rule, on small real nights (built in code,
played on the sim), against the guide's words in drill/engine/scoring/discipline.py:

- a look shows a fault only when it names what the fault struck: the rotten checkpoint's own
  step, the node the GPU died on; a look at something else shows nothing;
- bad data shows in the log from the first step that trained on it, not before;
- a restart of a job with a rank hung needs a look at the hang (`logs`, `perf`, `stack` or
  `trace`); a restart of a job whose rank died does not;
- `fabric` informs a node act when it shows the node's leaf or every leaf, not another leaf;
- looks weigh half of discipline, pages a quarter, a note and hints an eighth each.
"""

from __future__ import annotations

from drill.engine.scoring.discipline import discipline_value, first_signal, measure_discipline
from drill.sim.events import StepTaken
from tests.drillkit import build, drill, job_spec

PAGING = 300.0


def _long_job(**fields) -> dict:
    spec = job_spec("train", yours=True, steps=5000)
    spec.update(fields)
    return spec


def _pages(d) -> list:
    return [a for a in d.world.pager.alerts if not a.noise and a.severity != "info"]


def test_a_checkpoint_look_shows_the_rot_only_at_the_rotten_step():
    incident = build(
        jobs=[_long_job(checkpoint={"every": 20, "keep": 10, "write_time": "20s"})],
        faults=[{"id": "rot", "kind": "corrupt_checkpoint", "at": "03:30"}],
    )
    d = drill(incident)
    d.advance(40 * 60)
    [pick] = d.world.faults.chosen["rot"]
    good = next(r.step for r in d.learner_job.checkpoints.live() if r.step != pick.step)
    assert d.act(f"ckpt verify train {good}").accepted
    assert d.act("ckpt list train").accepted
    assert first_signal(d) is None and not _pages(d)
    seen = d.act(f"ckpt verify train {pick.step}")
    assert seen.accepted and "FAILED" in seen.output
    assert first_signal(d) == seen.end


def test_a_node_look_shows_the_dead_gpu_only_on_its_own_node():
    incident = build(
        jobs=[_long_job()],
        faults=[
            {
                "id": "xid",
                "kind": "gpu_xid",
                "xid": 79,
                "at": "03:20",
                "target": {"job": "train", "select": "one"},
            }
        ],
    )
    d = drill(incident)
    d.advance(20 * 60 + 1)  # a second after the GPU died, before any page
    [pick] = d.world.faults.chosen["xid"]
    other = next(n for n in d.world.cluster.nodes if n != pick.node)
    assert d.act(f"health {other}").accepted
    assert first_signal(d) is None
    seen = d.act(f"health {pick.node}")
    assert seen.accepted and not _pages(d)
    assert first_signal(d) == seen.end


def _bad_data_night():
    incident = build(
        jobs=[_long_job()],
        faults=[
            {
                "id": "shard",
                "kind": "bad_shard",
                "at": "0s",
                "first_step": 60,
                "steps": 20,
                "target": {"job": "train"},
            }
        ],
    )
    d = drill(incident)
    d.advance(5)
    return d


def _first_bad_step_time(d) -> float:
    [pick] = d.world.faults.chosen["shard"]
    return min(
        e.time
        for e in d.world.timeline
        if isinstance(e, StepTaken) and e.subject == "train" and e.step >= pick.step
    )


def test_bad_data_shows_in_the_log_from_the_first_step_that_read_it():
    probe = _bad_data_night()
    probe.advance(40 * 60)
    visible = _first_bad_step_time(probe)
    early = _bad_data_night()
    early.advance_to(visible - 1.0)
    assert early.act("logs train").accepted
    assert first_signal(early) is None
    on_time = _bad_data_night()
    on_time.advance_to(visible)
    look = on_time.act("logs train")
    assert look.time == visible
    assert not _pages(on_time) and first_signal(on_time) == look.end


def _restart_after_status(fault: dict) -> list[str]:
    incident = build(jobs=[_long_job()], faults=[fault])
    d = drill(incident)
    d.advance(25 * 60)  # the hang at 03:20 is still a hang: its watchdog waits ten minutes
    assert d.act("status train").accepted
    assert d.act("restart train --from latest").accepted
    return measure_discipline(d, PAGING, d.now).uninformed


def test_a_hung_rank_needs_a_look_at_the_hang_before_a_restart():
    hung = _restart_after_status(
        {"id": "hang", "kind": "hang_rank", "at": "03:20", "target": {"job": "train", "rank": 3}}
    )
    [line] = hung
    assert line.startswith("restart train --from latest at ")
    assert line.endswith(": `logs`, `perf`, `stack` or `trace` of train would have counted")
    died = _restart_after_status(
        {"id": "kill", "kind": "kill_rank", "at": "03:20", "target": {"job": "train"}}
    )
    assert died == []


def _xid_night_after_its_page():
    incident = build(
        jobs=[_long_job()],
        faults=[
            {
                "id": "xid",
                "kind": "gpu_xid",
                "xid": 79,
                "at": "03:20",
                "target": {"job": "train", "select": "one"},
            }
        ],
    )
    d = drill(incident)
    while not _pages(d):
        d.advance(5)
    [pick] = d.world.faults.chosen["xid"]
    return d, pick.node


def _drain_after(look: str | None) -> list[str]:
    d, node = _xid_night_after_its_page()
    if look is not None:
        assert d.act(look.format(node=node, leaf=d.world.cluster.nodes[node].leaf)).accepted
    assert d.act(f"drain {node}").accepted
    return measure_discipline(d, PAGING, d.now).uninformed


def test_a_fabric_look_informs_a_node_act_for_its_own_leaf_or_all_leaves_only():
    assert _drain_after("fabric") == []
    assert _drain_after("fabric {leaf}") == []
    d, node = _xid_night_after_its_page()
    other = next(
        n.leaf for n in d.world.cluster.nodes.values() if n.leaf != d.world.cluster.nodes[node].leaf
    )
    lacking = _drain_after("fabric " + other)
    assert len(lacking) == 1 and lacking[0].startswith(f"drain {node} at ")
    assert f"came without a look at {node}" in lacking[0] and "`health`" in lacking[0]
    # The same look lacked as with no look at all (only the drain's own time differs).
    [blind] = _drain_after(None)
    assert blind.split(" came ")[1] == lacking[0].split(" came ")[1]


def test_the_parts_weigh_as_the_guide_says():
    # Looks half, pages a quarter, a note and hints an eighth each; three hints cost 3/32.
    assert discipline_value(0, 0, 0, 0, 0, 1) == 1.0  # nothing due, nothing wrong
    assert discipline_value(0, 0, 0, 0, 0, 0) == 0.875  # no note
    assert discipline_value(2, 1, 0, 0, 0, 1) == 0.75  # one change of two uninformed
    assert discipline_value(0, 0, 2, 1, 0, 1) == 0.875  # one page of two in time
    assert discipline_value(0, 0, 0, 0, 3, 1) == round(1 - 3 / 32, 4)
    # Pages came and nobody looked or acted: no looks part; without the count, not judged.
    assert discipline_value(0, 0, 1, 1, 0, 1, looks_after_signal=0) == 0.5
    assert discipline_value(0, 0, 1, 1, 0, 1, looks_after_signal=1) == 1.0
    assert discipline_value(0, 0, 1, 1, 0, 1) == 1.0

"""The world keeps its own rules whatever an incident says: each test here is a way an incident
written outside the project once made the engine break them."""

from __future__ import annotations

import pytest
import yaml

from drill.engine.drill import Drill
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.sim.events import StepTaken
from drill.sim.jobs import FAILED, PENDING, RUNNING
from drill.states import NodeState
from tests.drillkit import build, incident_dict, job_spec

# -- pinned placements ------------------------------------------------------------------------


def _load(tmp_path, **kwargs) -> str:
    path = tmp_path / "pinned.yaml"
    path.write_text(yaml.safe_dump(incident_dict(**kwargs), sort_keys=False))
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    return str(caught.value)


def test_a_pinned_gang_across_islands_is_refused_at_its_line(tmp_path):
    job = job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-b-1"])
    message = _load(tmp_path, jobs=[job])
    assert "span islands a, b" in message and "one fabric island" in message
    assert message.startswith(f"{tmp_path / 'pinned.yaml'}:")


def test_a_pinned_job_on_too_few_nodes_is_refused(tmp_path):
    job = job_spec("train", yours=True, gpus=8, nodes=["gpu-a-1"])
    message = _load(tmp_path, jobs=[job], cluster={"gpus_per_node": 4})
    assert "takes 2 nodes of 4 GPUs" in message and "this lists 1" in message


def test_a_node_pinned_twice_is_refused(tmp_path):
    job = job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-a-1"])
    assert "gpu-a-1 is listed twice" in _load(tmp_path, jobs=[job])


def test_a_pinned_node_in_the_jobs_own_exclude_list_is_refused(tmp_path):
    job = job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-a-2"], exclude=["gpu-a-2"])
    assert "also in this job's `exclude` list" in _load(tmp_path, jobs=[job])


def test_a_pinned_spare_is_refused(tmp_path):
    job = job_spec("train", yours=True, gpus=8, nodes=["spare-a-1"])
    assert "spare-a-1 is a spare" in _load(tmp_path, jobs=[job])


def test_the_engine_keeps_gang_rules_even_for_a_pin_that_skipped_the_loader():
    """Built straight from the model (no cross-reference checks), the pin across islands must
    still not run across islands: every placement goes through the same gang rules."""
    incident = build(jobs=[job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-b-1"])])
    d = Drill(incident, seed=1)
    d.advance(120)
    job = d.learner_job
    islands = {d.world.cluster.nodes[n].island for n in job.nodes}
    assert len(islands) <= 1, f"the gang runs across islands {sorted(islands)}"


# -- what exists on disk ------------------------------------------------------------------------


def _restart_from_a_step_then_delete_it(backend_training=None) -> Drill:
    incident = build(jobs=[job_spec("train", yours=True)])
    d = Drill(incident, seed=1, training=backend_training)
    d.advance(1200)  # checkpoints at steps 20, 40, 60 ... with retention 3
    steps = [r.step for r in d.learner_job.checkpoints.live()]
    assert len(steps) >= 2
    assert d.act(f"restart train --from {steps[0]}").accepted
    assert d.act(f"ckpt rm train {steps[0]}").accepted
    d.advance(300)
    return d


def test_a_step_deleted_while_its_restart_waits_is_not_loaded():
    d = _restart_from_a_step_then_delete_it()
    texts = [e.text for e in d.world.timeline if e.subject == "train"]
    assert not any("training from checkpoint" in t for t in texts), texts[-5:]
    failed = [a for a in d.learner_job.attempts if a.ended_as == FAILED]
    assert failed and "no such checkpoint" in failed[-1].why


# -- faults compose ---------------------------------------------------------------------------


def _node_faults(first: dict, second: dict) -> Drill:
    faults = [
        {"id": "one", "at": "10m", "target": {"node": "gpu-b-1"}, **first},
        {"id": "two", "at": "10m", "target": {"node": "gpu-b-1"}, **second},
    ]
    return Drill(build(jobs=[job_spec("train", yours=True, steps=2000)], faults=faults), seed=1)


@pytest.mark.parametrize("lasting_first", [True, False])
def test_a_lasting_node_fault_is_not_lost_under_a_transient_one_at_the_same_second(
    lasting_first,
):
    lasting = {"kind": "node_down", "persists_after_reboot": True}
    transient = {"kind": "node_down", "duration": "5m"}
    d = _node_faults(*((lasting, transient) if lasting_first else (transient, lasting)))
    d.advance(1800)
    node = d.world.cluster.nodes["gpu-b-1"]
    assert node.state == NodeState.DOWN and not node.responsive
    assert d.act("reboot gpu-b-1").accepted
    d.advance(900)
    assert node.state == NodeState.DOWN, "a reboot does not fix a node that only a swap fixes"


def test_two_transient_node_faults_hold_the_node_until_the_longer_one_ends():
    d = _node_faults(
        {"kind": "node_down", "duration": "5m"}, {"kind": "node_down", "duration": "20m"}
    )
    d.advance(600 + 600)  # the short one is over, the long one is not
    assert not d.world.cluster.nodes["gpu-b-1"].responsive
    d.advance(900)
    assert d.world.cluster.nodes["gpu-b-1"].state == NodeState.UP


def test_a_lasting_gpu_fault_survives_a_reboot_that_clears_a_second_one():
    faults = [
        {"id": "bus", "kind": "gpu_xid", "xid": 79, "at": "10m"},
        {"id": "ecc", "kind": "gpu_xid", "xid": 48, "persists_after_reboot": False, "at": "10m"},
    ]
    for fault in faults:
        fault["target"] = {"job": "train", "rank": 0}
    d = Drill(build(jobs=[job_spec("train", yours=True, steps=2000)], faults=faults), seed=1)
    d.advance(700)
    [bus] = d.world.faults.chosen["bus"]
    [ecc] = d.world.faults.chosen["ecc"]
    assert (bus.node, bus.gpu) == (ecc.node, ecc.gpu)
    assert d.act(f"reboot {bus.node}").accepted
    d.advance(900)
    assert d.world.cluster.nodes[bus.node].gpus[bus.gpu].broken


def test_two_stragglers_on_one_gpu_keep_it_slow_until_both_are_over():
    target = {"job": "train", "rank": 0}
    faults = [
        {"id": "hot", "kind": "straggler", "slowdown": 3, "duration": "5m", "at": "10m"},
        {"id": "power", "kind": "straggler", "slowdown": 2, "duration": "20m", "at": "10m"},
    ]
    for fault in faults:
        fault["target"] = target
    d = Drill(build(faults=faults), seed=1)
    d.advance(700)
    assert d.world.step_factor(d.learner_job) == 3
    d.advance(600)  # the hot one is over
    assert d.world.step_factor(d.learner_job) == 2
    d.advance(900)
    assert d.world.step_factor(d.learner_job) == 1


# -- a lasting link flap ------------------------------------------------------------------------


def test_a_lasting_link_flap_stalls_every_gang_placed_behind_the_leaf_while_it_lasts():
    spec = job_spec("train", yours=True, retry={"max_restarts": 2, "backoff": "30s"})
    faults = [{"id": "flap", "kind": "link_flap", "at": "10m", "target": {"leaf": "leaf-a1"}}]
    d = Drill(build(jobs=[spec], faults=faults), seed=1)
    d.advance(60)
    assert {d.world.cluster.nodes[n].leaf for n in d.learner_job.nodes} == {"leaf-a1"}
    d.advance(600 + 40 + 300)  # the flap, InfiniBand's retries, the retry placed again
    job = d.learner_job
    behind = [a for a in job.attempts if a.start is not None and "gpu-a-1" in a.nodes]
    assert len(behind) >= 2, "the retry landed behind the same leaf"
    retry = behind[1]
    steps = [
        e
        for e in d.world.timeline
        if isinstance(e, StepTaken) and e.subject == "train" and e.time > retry.start
    ]
    assert not steps, "a gang behind a leaf that is still down makes no steps"
    d.advance(900)
    assert retry.ended_as == FAILED and "transport retry counter exceeded" in retry.why


def test_a_short_flap_slows_a_gang_placed_while_it_lasts_and_then_ends():
    spec = job_spec("train", yours=True)
    faults = [
        {
            "id": "flap",
            "kind": "link_flap",
            "at": "10m",
            "duration": "20s",  # shorter than InfiniBand's retry window: only slower
            "slowdown": 4,
            "target": {"leaf": "leaf-a1"},
        }
    ]
    d = Drill(build(jobs=[spec], faults=faults), seed=1)
    d.advance(610)
    assert d.world.step_factor(d.learner_job) == 4
    assert d.learner_job.state == RUNNING
    d.advance(600)
    assert d.world.step_factor(d.learner_job) == 1


# -- what status says ----------------------------------------------------------------------------


def test_status_of_a_job_waiting_for_its_retry_says_where_it_resumes():
    spec = job_spec("train", yours=True, retry={"max_restarts": 2, "backoff": "5m"})
    faults = [{"id": "oom", "kind": "kill_rank", "at": "10m", "target": {"job": "train"}}]
    d = Drill(build(jobs=[spec], faults=faults), seed=1)
    d.advance(620)
    job = d.learner_job
    assert job.state not in (RUNNING,) and job.current is None or not job.current.training
    latest = job.checkpoints.latest_step
    assert latest is not None and job.step > latest
    out = d.act("status train").output
    assert f"resumes from checkpoint step {latest}" in out
    assert job.state in (PENDING, "requeued")

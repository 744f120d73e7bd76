"""Triggers and text templates: every wrong value is refused at its line, with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from drill.incident.loader import load_incident
from tests.drillkit import incident_dict, refused

GPU_DIES = {"id": "gpu-dies", "kind": "gpu_xid", "xid": 79, "at": "10m", "target": {"job": "train"}}


def loaded(tmp_path: Path, **fields):
    path = tmp_path / "night.yaml"
    path.write_text(yaml.safe_dump(incident_dict(**fields), sort_keys=False))
    return load_incident(path)


def later(trigger: dict, **fields) -> dict:
    return {"id": "later", "kind": "kill_rank", "at": "5m", "trigger": trigger, **fields}


def test_each_trigger_shape_loads(tmp_path):
    faults = [
        GPU_DIES,
        later({"event": "fault", "fault": "gpu-dies"}),
        {**later({"event": "restart"}), "id": "on-restart"},
        {**later({"event": "checkpoint", "job": "train"}), "id": "on-write"},
        {**later({"event": "page", "text": "no space left"}), "id": "on-page"},
        {**later({"event": "restart", "fault": "gpu-dies"}), "id": "restart-after"},
    ]
    assert len(loaded(tmp_path, faults=faults).incident.faults) == 6


@pytest.mark.parametrize(
    ("fault", "marker", "words"),
    [
        (later({"event": "fault"}), "event: fault", "event: fault needs `fault: ID`"),
        (later({"event": "fault", "fault": "gpu-dise"}), "gpu-dise", "did you mean 'gpu-dies'"),
        (later({"event": "fault", "fault": "later"}), "fault: later", "cannot follow itself"),
        (later({"event": "page"}), "event: page", "event: page needs `text:`"),
        (later({"event": "restart", "text": "boom"}), "text: boom", "`text` is for event: page"),
        (
            later({"event": "page", "text": "x", "job": "train"}),
            "job: train",
            "`job` is for event:",
        ),
        (later({"event": "restart", "job": "trian"}), "job: trian", "no job named 'trian'"),
        (later({"event": "restart"}, at="03:20"), "03:20", "`at` is the delay after it"),
        (later({"event": "restart"}, at="3h"), "at: 3h", "longer than the night"),
        (later({"event": "sunrise"}), "event: sunrise", "restart"),
        (later({"event": "page", "text": ""}), "text: ''", "at least 1 character"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_wrong_trigger_is_located(tmp_path, fault, marker, words):
    problem, line = refused(tmp_path, marker, faults=[GPU_DIES, fault])
    assert words in problem.message, problem
    assert problem.line == line, (problem, line)


def test_faults_that_wait_for_each_other_are_refused(tmp_path):
    one = later({"event": "fault", "fault": "two"}, id="one")
    two = later({"event": "fault", "fault": "one"}, id="two")
    problem, line = refused(tmp_path, "fault: two", faults=[one, two])
    assert "wait for each other" in problem.message and "one -> two -> one" in problem.message
    assert problem.line == line


@pytest.mark.parametrize(
    ("where", "text", "words"),
    [
        ("hints", "Look at {fault.gpu-dies.nod}", "unknown fault field 'nod'"),
        ("hints", "Look at {fault.gpu-die.node}", "no fault with id 'gpu-die'"),
        ("hints", "Look at {fault.gpu-dies}", "is not a template"),
        ("takeaways", "{fault.nope.leaf} flapped", "no fault with id 'nope'"),
        ("why", "it reboots {fault.gpu-dies.isle}", "unknown fault field 'isle'"),
        ("opinion", "Would you drain {fault.x.leaf_nodes}?", "no fault with id 'x'"),
    ],
)
def test_a_wrong_template_in_shown_text_is_located(tmp_path, where, text, words):
    fields: dict = {"faults": [GPU_DIES]}
    if where == "hints":
        fields["hints"] = [{"after": "1m", "text": text}]
    elif where == "takeaways":
        fields["debrief"] = {"takeaways": ["A fine sentence.", text]}
    elif where == "opinion":
        fields["debrief"] = {"opinion": text}
    else:
        fields["runbooks"] = [{"name": "bad", "why": text, "actions": ["+1m status"]}]
    problem, line = refused(tmp_path, text, **fields)
    assert words in problem.message, problem
    assert problem.line == line, (problem, line)


def test_every_template_field_is_accepted_in_shown_text(tmp_path):
    text = " ".join(
        "{fault.gpu-dies." + f + "}"
        for f in ("node", "gpu", "rank", "job", "leaf", "island", "nodes", "leaf_nodes")
    )
    hints = [{"after": "1m", "text": text + " {fault.gpu-dies.island_nodes} {fault.gpu-dies.time}"}]
    assert loaded(tmp_path, faults=[GPU_DIES], hints=hints).incident.hints


# -- the storage fault kinds' own fields ------------------------------------------------------

SCRATCH = {
    "name": "scratch",
    "capacity": "20TB",
    "quotas": {"ml": "5TB"},
    "read_bandwidth": "10GB/s",
    "write_bandwidth": "10GB/s",
}


def storage_fault(**fields) -> dict:
    return {"id": "disk", "at": "10m", **fields}


@pytest.mark.parametrize(
    ("fault", "marker", "words"),
    [
        (
            storage_fault(kind="volume_fill", volume="scrach", rate="1TB/h"),
            "volume: scrach",
            "did you mean 'scratch'",
        ),
        (
            storage_fault(kind="volume_fill", volume="scratch", rate="0TB/h"),
            "rate: 0TB/h",
            "use 1.0MB/s",
        ),
        (
            storage_fault(kind="volume_fill", volume="scratch", rate="1TB/h", team="mll"),
            "team: mll",
            "no job or quota names team 'mll'",
        ),
        (
            storage_fault(kind="quota_cut", volume="scratch", team="ml", quota="30TB"),
            "quota: 30TB",
            "more than the volume holds",
        ),
        (
            storage_fault(kind="quota_cut", volume="scratch", quota="1TB"),
            "id: disk",
            "missing required key 'team'",
        ),
        (
            storage_fault(kind="slow_disk", volume="scratch", slowdown=0.5),
            "slowdown: 0.5",
            "at least 1, got 0.5",
        ),
        (
            storage_fault(kind="slow_disk", volume="nowhere"),
            "volume: nowhere",
            "no volume named 'nowhere'",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_wrong_storage_fault_field_is_located(tmp_path, fault, marker, words):
    problem, line = refused(tmp_path, marker, faults=[fault], storage=[SCRATCH])
    assert words in problem.message, problem
    assert problem.line == line, (problem, line)


def test_a_storage_fault_in_a_night_without_volumes_says_to_add_one(tmp_path):
    fault = storage_fault(kind="slow_disk", volume="scratch")
    problem, line = refused(tmp_path, "volume: scratch", faults=[fault])
    assert "has no `storage:` volumes" in problem.message and problem.line == line


# -- the GPU and node fault kinds' own fields -------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "marker", "words"),
    [
        ({"kind": "gpu_needs_reset", "xid": 79}, "xid: 79", "74, 119 or 63"),
        ({"kind": "zombie_memory", "held": 100}, "held: 100", "at least 1024"),
        ({"kind": "zombie_memory", "error": ""}, "error: ''", "at least 1 character"),
        (
            {"kind": "fabric_manager_down", "after_reboot": "soon"},
            "after_reboot: soon",
            "expected true or false",
        ),
        ({"kind": "ib_flap", "every": "10s"}, "every: 10s", "closer flaps are one long outage"),
        ({"kind": "ib_flap", "target": {"leaf": "leaf-z9"}}, "leaf: leaf-z9", "no leaf named"),
        ({"kind": "shm_full", "target": {"node": "gpu-q-1"}}, "node: gpu-q-1", "no node named"),
        ({"kind": "nfs_hang", "path": "data/shard"}, "path: data/shard", "use an absolute path"),
        ({"kind": "nfs_hang", "server": "NFS 1"}, "server: NFS 1", "must match the pattern"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_wrong_gpu_or_node_fault_field_is_located(tmp_path, fault, marker, words):
    problem, line = refused(tmp_path, marker, faults=[{"id": "hw", "at": "10m", **fault}])
    assert words in problem.message, problem
    assert problem.line == line, (problem, line)


def test_a_wrong_template_in_a_noise_page_is_located(tmp_path):
    noise = [{"at": "5m", "source": "dcgm", "text": "ECC on {fault.gpu-dies.nood}"}]
    problem, line = refused(tmp_path, "nood", faults=[GPU_DIES], noise=noise)
    assert "unknown fault field 'nood'" in problem.message and problem.line == line

"""`cordon-leaf LEAF` and `drain-leaf LEAF`: every node behind a leaf switch at once, the way an
operator keeps a gang off a flapping leaf; nodes already out of service are left as they are."""

from __future__ import annotations

from drill.engine.static_check import _names
from drill.states import NodeState
from tests.drillkit import build, drill, job_spec


def night():
    # The learner's 16-GPU job sits on two nodes; leaf-b1 holds nothing of it.
    d = drill(build(jobs=[job_spec("train", yours=True, nodes=["gpu-a-1", "gpu-a-2"])]))
    d.advance(120)
    return d


def states(d, leaf: str) -> dict[str, str]:
    return {n: d.world.cluster.nodes[n].state for n in d.world.cluster.leaves[leaf][1]}


def test_leaf_cordon_cordons_every_up_node_behind_the_leaf():
    d = night()
    result = d.act("cordon-leaf leaf-b1")
    assert result.accepted, result.output
    assert set(states(d, "leaf-b1").values()) == {NodeState.CORDONED}
    assert result.output.startswith("leaf-b1: cordoned gpu-b-1, gpu-b-2")
    assert all(s == NodeState.UP for s in states(d, "leaf-b2").values()), "only that leaf"


def test_leaf_cordon_leaves_nodes_already_out_of_service_and_says_so():
    d = night()
    assert d.act("drain gpu-b-1").accepted
    result = d.act("cordon-leaf leaf-b1")
    assert result.accepted
    assert states(d, "leaf-b1") == {"gpu-b-1": NodeState.DRAINED, "gpu-b-2": NodeState.CORDONED}
    assert "left as they are: gpu-b-1 is drained" in result.output
    again = d.act("cordon-leaf leaf-b1")
    assert not again.accepted and "no node behind leaf-b1 is up" in again.output


def test_leaf_drain_lets_running_work_finish():
    d = night()
    leaf = d.world.cluster.nodes["gpu-a-1"].leaf
    result = d.act(f"drain-leaf {leaf}")
    assert result.accepted, result.output
    assert "waiting for train to finish" in result.output
    assert d.world.cluster.nodes["gpu-a-1"].state == NodeState.DRAINING
    assert d.learner_job.state == "running", "drain does not stop the job"


def test_an_unknown_leaf_is_refused_with_the_closest_name():
    d = night()
    result = d.act("drain-leaf leaf-b9")
    assert not result.accepted and "no leaf named 'leaf-b9'" in result.output
    assert d.world.now == 120, "a rejection costs no time"


def test_validate_checks_the_leaf_a_reference_line_names():
    [problem] = _names("cordon-leaf leaf-q1", set(), set(), set(), {"leaf-a1", "leaf-b1"})
    assert "names leaf 'leaf-q1', which does not exist" in problem
    assert _names("cordon-leaf {fault.flap.leaf}", set(), set(), set(), {"leaf-a1"}) == []

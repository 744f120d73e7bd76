"""`{fault.ID.FIELD}` in the text the game shows: hints, takeaways and the opinion question are
filled in with what this night's faults chose, and a fault that has not fired says so. The
leaf and island templates name every node behind the leaf, of the island."""

from __future__ import annotations

from drill.engine import shown_text
from drill.engine.headless import resolve_text
from drill.sim.events import HintShown
from tests.drillkit import build, drill, job_spec

XID = {"id": "gpu-dies", "kind": "gpu_xid", "xid": 79, "at": "10m", "target": {"job": "train"}}
FLAP = {"id": "flap", "kind": "link_flap", "at": "10m", "target": {"leaf": "leaf-a2"}}


def night(**fields):
    return drill(build(jobs=[job_spec("train", yours=True)], faults=[XID, FLAP], **fields))


def test_a_hint_shows_the_node_this_night_chose():
    d = night(hints=[{"after": "11m", "text": "Run health on {fault.gpu-dies.node}."}])
    d.advance(700)
    result = d.act("hint")
    node = d.world.faults.chosen["gpu-dies"][0].node
    assert result.accepted and result.output.endswith(f"Run health on {node}.")
    assert "{fault" not in result.output
    [event] = [e for e in d.world.timeline if isinstance(e, HintShown)]
    assert event.text == f"Run health on {node}."


def test_a_hint_before_its_fault_fires_says_it_is_not_known():
    d = night(hints=[{"after": "0s", "text": "Watch {fault.gpu-dies.node}."}])
    result = d.act("hint")
    assert "Watch (not known: fault gpu-dies did not fire)." in result.output


def test_takeaways_and_opinion_are_filled_in_after_the_night():
    debrief = {
        "takeaways": [
            "{fault.gpu-dies.node} lost GPU {fault.gpu-dies.gpu} at {fault.gpu-dies.time}."
        ],
        "opinion": "Would you drain all of {fault.flap.leaf}?",
    }
    d = night(debrief=debrief)
    d.advance(7200)
    pick = d.world.faults.chosen["gpu-dies"][0]
    assert shown_text.takeaways(d.world) == [
        f"{pick.node} lost GPU {pick.gpu} at {d.clock(d.world.faults.fired_at['gpu-dies'])}."
    ]
    assert shown_text.opinion(d.world) == "Would you drain all of leaf-a2?"


def test_leaf_and_island_templates_name_every_node_behind_them():
    d = night()
    d.advance(700)
    leaf_nodes = resolve_text(d, "{fault.flap.leaf_nodes}")
    assert leaf_nodes == ",".join(sorted(d.world.cluster.leaves["leaf-a2"][1]))
    assert len(leaf_nodes.split(",")) == 2
    assert resolve_text(d, "{fault.flap.island}") == "a"
    island_nodes = resolve_text(d, "{fault.gpu-dies.island_nodes}")
    island = d.world.cluster.nodes[d.world.faults.chosen["gpu-dies"][0].node].island
    assert island_nodes == ",".join(sorted(d.world.cluster.islands[island]))
    assert "spare" not in island_nodes and len(island_nodes.split(",")) == 4


def test_a_leaf_template_of_a_fault_that_chose_no_leaf_is_refused():
    d = drill(
        build(
            jobs=[job_spec("train", yours=True)],
            faults=[{"id": "rot", "kind": "corrupt_checkpoint", "at": "20m"}],
        )
    )
    d.advance(1300)
    from drill.engine.headless import act_line

    result = act_line(d, "cordon {fault.rot.leaf_nodes}")
    assert not result.accepted and "chose no leaf" in result.output


def test_a_noise_page_can_name_what_a_fault_chose():
    noise = [
        {
            "at": "12m",
            "source": "{fault.gpu-dies.node}",
            "text": "ECC count rising on {fault.gpu-dies.node}",
        },
        {"at": "5m", "source": "dcgm", "text": "early: {fault.gpu-dies.node}"},
    ]
    d = night(noise=noise)
    d.advance(800)
    node = d.world.faults.chosen["gpu-dies"][0].node
    texts = {a.source: a.text for a in d.world.pager.alerts if a.noise}
    assert texts[node] == f"ECC count rising on {node}"
    assert texts["dcgm"] == "early: (not known: fault gpu-dies did not fire)"

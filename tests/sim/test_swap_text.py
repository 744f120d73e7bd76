"""`swap` says what a hot spare is (audit row 42): already racked and cabled, in service in
minutes, while the failed node's own repair takes days; no spare is re-cabled into a leaf."""

from __future__ import annotations

from drill.incident.library import resolve_incident
from drill.sim import operations
from drill.sim.world import World
from drill.states import NodeState


def test_the_swap_text_is_a_hot_spare_and_a_repair_of_days():
    incident = resolve_incident("dead-rank").incident
    world = World(incident, 1)
    world.run_until(60.0)
    node = next(n for n in world.cluster.nodes.values() if n.state == NodeState.UP and n.leaf)
    spare = world.cluster.spares_in(node.island)[0]
    text = operations.swap(world, node, spare)
    minutes = int(incident.cluster.swap_time // 60)
    assert text.startswith(f"{node.name} out for repair (a part swap or an RMA takes days);")
    assert f"{spare.name}, a hot spare already cabled, is in service in its place" in text
    assert f"in about {minutes}m" in text and "joins" not in text
    assert "\u2014" not in text

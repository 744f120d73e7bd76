"""The values of `{fault.ID.FIELD}` (drill/incident/templates.py) in a world: what its faults
chose. The engine fills action lines and shown text with them (drill/engine/shown_text.py); the
world fills its own noise pages with them, so a red herring can name the node the fault chose.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.incident.templates import TEMPLATE

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World


class NotKnown(Exception):
    """A template whose value this night does not have (yet)."""


def field_value(world: World, fault_id: str, field: str) -> str:
    """The value of one template, or NotKnown saying why there is none yet."""
    faults = world.faults
    if field == "time":
        if fault_id not in faults.fired_at and fault_id not in faults.times:
            raise NotKnown(f"fault {fault_id} has not fired yet, so its time is unknown")
        return world.clock.label(faults.fired_at.get(fault_id, faults.times[fault_id]))
    picks = faults.chosen.get(fault_id)
    if not picks:
        raise NotKnown(
            f"fault {fault_id} has not fired yet, so {{fault.{fault_id}.{field}}} is unknown"
        )
    cluster = world.cluster
    struck = [str(p.node) for p in picks if p.node in cluster.nodes]
    if field == "nodes":
        return _joined(struck)
    if field == "island":
        if not struck:
            raise NotKnown(f"fault {fault_id} chose no node, so no island")
        return cluster.nodes[struck[0]].island
    if field == "leaf_nodes":
        leaves = {p.leaf for p in picks if p.leaf in cluster.leaves}
        if not leaves:
            raise NotKnown(f"fault {fault_id} chose no leaf")
        return _joined([n for leaf in leaves for n in cluster.leaves[leaf][1]])
    if field == "island_nodes":
        islands = {cluster.nodes[n].island for n in struck}
        if not islands:
            raise NotKnown(f"fault {fault_id} chose no node, so no island")
        return _joined([n for island in islands for n in cluster.islands[island]])
    value = picks[0].field(field)
    if value is None:
        raise NotKnown(f"fault {fault_id} chose no {field}")
    return str(value)


def _joined(nodes: list[str]) -> str:
    return ",".join(sorted(set(nodes)))


def fill_lenient(world: World, text: str) -> str:
    """Text for someone to read: a name that cannot be filled in reads as such."""

    def one(match) -> str:
        try:
            return field_value(world, *match.groups())
        except NotKnown:
            return f"(not known: fault {match.group(1)} did not fire)"

    return TEMPLATE.sub(one, text)

"""Fill `{fault.ID.FIELD}` names (drill/incident/templates.py) with what this night's faults
chose: strictly in an action line, which cannot run with a name missing, and leniently in the
author's text the game shows (hints, a runbook's `why`, takeaways), where a fault that has not
fired says so in place of its value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.engine.actions.errors import Reject
from drill.incident.templates import TEMPLATE

if TYPE_CHECKING:
    from drill.sim.world import World


def field_value(world: World, fault_id: str, field: str) -> str:
    """The value of one template, or Reject saying why there is none yet."""
    faults = world.faults
    if field == "time":
        if fault_id not in faults.fired_at and fault_id not in faults.times:
            raise Reject(f"fault {fault_id} has not fired yet, so its time is unknown")
        return world.clock.label(faults.fired_at.get(fault_id, faults.times[fault_id]))
    picks = faults.chosen.get(fault_id)
    if not picks:
        raise Reject(
            f"fault {fault_id} has not fired yet, so {{fault.{fault_id}.{field}}} is unknown"
        )
    cluster = world.cluster
    struck = [str(p.node) for p in picks if p.node in cluster.nodes]
    if field == "nodes":
        return _joined(struck)
    if field == "island":
        if not struck:
            raise Reject(f"fault {fault_id} chose no node, so no island")
        return cluster.nodes[struck[0]].island
    if field == "leaf_nodes":
        leaves = {p.leaf for p in picks if p.leaf in cluster.leaves}
        if not leaves:
            raise Reject(f"fault {fault_id} chose no leaf")
        return _joined([n for leaf in leaves for n in cluster.leaves[leaf][1]])
    if field == "island_nodes":
        islands = {cluster.nodes[n].island for n in struck}
        if not islands:
            raise Reject(f"fault {fault_id} chose no node, so no island")
        return _joined([n for island in islands for n in cluster.islands[island]])
    value = picks[0].field(field)
    if value is None:
        raise Reject(f"fault {fault_id} chose no {field}")
    return str(value)


def _joined(nodes: list[str]) -> str:
    return ",".join(sorted(set(nodes)))


def fill_action(world: World, text: str) -> str:
    """An action line with every name filled in; Reject when one cannot be yet."""
    return TEMPLATE.sub(lambda m: field_value(world, *m.groups()), text)


def fill_shown(world: World, text: str) -> str:
    """Text for the learner's eyes: a name that cannot be filled in reads as such."""

    def one(match) -> str:
        try:
            return field_value(world, *match.groups())
        except Reject:
            return f"(not known: fault {match.group(1)} did not fire)"

    return TEMPLATE.sub(one, text)


def takeaways(world: World) -> list[str]:
    """The debrief's takeaways as this night's faults filled them in."""
    return [fill_shown(world, text) for text in world.incident.debrief.takeaways]


def opinion(world: World) -> str:
    return fill_shown(world, world.incident.debrief.opinion)

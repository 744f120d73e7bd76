"""Fill `{fault.ID.FIELD}` names (drill/incident/templates.py) with what this night's faults
chose: strictly in an action line, which cannot run with a name missing, and leniently in the
author's text the game shows (hints, a runbook's `why`, takeaways), where a fault that has not
fired says so in place of its value. The values come from drill/sim/fault_fields.py, which the
world also uses for its noise pages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.engine import night_facts
from drill.engine.actions.errors import Reject
from drill.incident.templates import TEMPLATE
from drill.sim import fault_fields

if TYPE_CHECKING:
    from drill.sim.world import World


def field_value(world: World, fault_id: str, field: str) -> str:
    """The value of one template, or Reject saying why there is none yet."""
    try:
        return fault_fields.field_value(world, fault_id, field)
    except fault_fields.NotKnown as exc:
        raise Reject(str(exc)) from None


def fill_action(world: World, text: str) -> str:
    """An action line with every name filled in; Reject when one cannot be yet."""
    return TEMPLATE.sub(lambda m: field_value(world, *m.groups()), text)


def fill_shown(world: World, text: str) -> str:
    """Text for the learner's eyes: a name that cannot be filled in reads as such."""
    return fault_fields.fill_lenient(world, text)


def takeaways(world: World) -> list[str]:
    """The debrief's takeaways that are true of this night (a takeaway's `when`), as this
    night's faults filled them in."""
    shown = []
    for item in world.incident.debrief.takeaways:
        text, when = (item, None) if isinstance(item, str) else (item.text, item.when)
        if night_facts.holds(world, when):
            shown.append(fill_shown(world, text))
    return shown


def opinion(world: World) -> str:
    return fill_shown(world, world.incident.debrief.opinion)

"""Route a parsed command to its handler and price it in sim time."""

from __future__ import annotations

from collections.abc import Callable

from drill.engine.actions import act, look, storage
from drill.engine.actions.catalog import VERBS, help_text
from drill.engine.actions.context import Context
from drill.engine.actions.errors import unknown
from drill.engine.actions.parser import Command

Handler = Callable[[Context, list[str]], str]

HANDLERS: dict[str, Handler] = {
    "status": look.status,
    "queue": look.queue,
    "nodes": look.nodes,
    "logs": look.logs,
    "health": look.health,
    "ckpt list": look.ckpt_list,
    "ckpt verify": storage.ckpt_verify,
    "ckpt rm": storage.ckpt_rm,
    "ckpt prune": storage.ckpt_prune,
    "df": storage.df,
    "quota": storage.quota,
    "set": storage.set_setting,
    "cordon": act.cordon,
    "uncordon": act.uncordon,
    "drain": act.drain,
    "reboot": act.reboot,
    "swap": act.swap,
    "cancel": act.cancel,
    "requeue": act.requeue,
    "restart": act.restart,
    "hold": act.hold,
    "release": act.release,
    "priority": act.priority,
    "ack": act.ack,
    "hint": act.hint,
    "wait": act.wait,
}


def run(ctx: Context, command: Command) -> tuple[str, float]:
    """Apply the command now; return its output and how long it keeps the operator busy."""
    verb = command.verb
    if verb == "help":
        return _help(ctx, command.args), VERBS[verb].cost
    if verb == "note":
        return act.note(ctx, command.args, command.rest), VERBS[verb].cost
    output = HANDLERS[verb](ctx, command.args)
    if verb == "wait":
        cost = act.wait_cost(command.args)
    elif verb == "ckpt verify":
        cost = storage.verify_cost(ctx, command.args)
    elif verb == "set" and ctx.pre_shift:
        cost = 0.0  # the pre-shift plan is made before the night starts
    else:
        cost = VERBS[verb].cost
    return output, cost


def _help(ctx: Context, args: list[str]) -> str:
    notes = storage.incident_notes(ctx)
    if not args:
        return help_text(None, notes)
    name = " ".join(args).lower()
    if name not in VERBS:
        raise unknown("action", name, VERBS)
    return help_text(name, notes)


assert set(HANDLERS) | {"help", "note"} == set(VERBS), "every verb needs a handler"

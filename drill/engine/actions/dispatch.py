"""Apply a parsed command: look up what it names, refuse what the learner may not touch, run
its handler, and price it in sim time. Everything per verb comes from its declaration."""

from __future__ import annotations

from typing import Any

from drill.engine.actions.catalog import (
    VERBS,
    Kind,
    On,
    Verb,
    refusal_on_others_job,
    runs_to_signal,
)
from drill.engine.actions.context import Call, Context
from drill.engine.actions.errors import Reject
from drill.engine.actions.parser import Command


def run(ctx: Context, command: Command) -> tuple[str, float, bool]:
    """Apply the command now; return its output, how long it keeps the operator busy, and
    whether it runs the night until a signal (then that time is the most it may take)."""
    verb = VERBS[command.verb]
    if not verb.plan or ctx.world.now > 0:
        ctx.pre_shift = False
    call = bind(ctx, verb, command)
    exposure = ctx.world.exposure
    exposure.settle()  # what a broken node cost until now, before this changes anything
    output = verb.handler(ctx, call)
    if verb.kind == Kind.LOOK:
        node = call.get("node") if verb.on == On.NODE else None
        exposure.looked(node, output, cluster=verb.on == On.CLUSTER)
        if node is not None:
            ctx.inspected[node.name] = ctx.world.now
    exposure.settle()  # and from now, as this left it
    if verb.plan and ctx.pre_shift:
        return output, 0.0, False  # the pre-shift plan is made before the night starts
    return output, verb.cost.of(ctx, call), runs_to_signal(verb, call.values)


def bind(ctx: Context, verb: Verb, command: Command) -> Call:
    """Look up the nodes, jobs and volumes the command names, in the order it names them, and
    refuse a job that is not the learner's when the verb may not touch one."""
    values: dict[str, Any] = {}
    for part in verb.typed():
        value = command.values.get(part.name)
        kind = part.type.names
        if value is None or kind not in ("node", "job", "volume"):
            values[part.name] = value
        elif part.type.many:
            values[part.name] = tuple(_look_up(ctx, kind, v, part.type.spares) for v in value)
        else:
            values[part.name] = _look_up(ctx, kind, value, part.type.spares)
    call = Call(command.verb, values, command.rest)
    target = verb.target_arg
    if verb.on == On.JOB and target is not None and call.get(target.name) is not None:
        refusal = refusal_on_others_job(verb, call[target.name], ctx.learner_job())
        if refusal:
            raise Reject(refusal)
    return call


def _look_up(ctx: Context, kind: str, name: str, spares: bool) -> Any:
    if kind == "node":
        return ctx.node(name, spares=spares)
    if kind == "job":
        return ctx.job(name)
    return ctx.volume(name)

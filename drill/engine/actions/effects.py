"""What an action touched, and whether it looked or changed something: the score's reading of
the night's actions, taken from each verb's declaration.

    effect_of("status")                -> Effect("status", "look", ("cluster", None))
    effect_of("status llm")            -> Effect("status", "look", ("job", "llm"))
    effect_of("cordon gpu-a-2")        -> Effect("cordon", "act", ("node", "gpu-a-2"))
    effect_of("set llm ckpt-keep 2")   -> Effect("set", "act", ("job", "llm"))
    effect_of("ack all")               -> Effect("ack", "act", None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drill.engine.actions.catalog import VERBS, Kind, On
from drill.engine.actions.parser import Command, parse

# ("node", name), ("job", name), ("volume", name) or ("cluster", None); among `names`, also
# ("leaf", name).
Target = tuple[str, str | None]
CLUSTER: Target = ("cluster", None)


@dataclass(frozen=True)
class Effect:
    verb: str
    kind: Kind  # look or act
    touches: Target | None  # None: only the operator's own record (ack, note, hint, wait, help)
    # Every node, job, volume and leaf the line names, in order: the target and any others,
    # like the nodes of `restart JOB --exclude NODE,...`.
    names: tuple[Target, ...] = ()
    # The line's typed values by argument and option name (`--from`, `--skip`, `step`): what
    # discipline reads to know which of the verb's needs a line has.
    values: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_look(self) -> bool:
        """A look at a node, a job, a volume or the cluster."""
        return self.kind == Kind.LOOK and self.touches is not None

    @property
    def is_change(self) -> bool:
        """An act that changes a node, a job, a volume or the cluster."""
        return self.kind == Kind.ACT and self.touches is not None

    def names_in(self, part: str) -> tuple[Target, ...]:
        """What one argument or option of the line names (`--exclude`: each node)."""
        return _named(self.verb, self.values, part)


def effect(command: Command) -> Effect:
    verb = VERBS[command.verb]
    return Effect(verb.name, verb.kind, touches(command), named(command), dict(command.values))


def named(command: Command) -> tuple[Target, ...]:
    """Every node, job, volume and leaf the command names, by its arguments' declared types."""
    return _named(command.verb, command.values)


def _named(verb: str, values: dict[str, Any], only: str | None = None) -> tuple[Target, ...]:
    out: list[Target] = []
    for part in VERBS[verb].typed():
        if only is not None and part.name != only:
            continue
        kind, value = part.type.names, values.get(part.name)
        if value is None or kind not in ("node", "job", "volume", "leaf"):
            continue
        out += [(kind, name) for name in (value if part.type.many else (value,))]
    return tuple(out)


def touches(command: Command) -> Target | None:
    """What the command works on, by its verb's declaration: the argument that names it, or the
    cluster when that argument is optional and left out."""
    verb = VERBS[command.verb]
    if verb.on == On.NOTHING:
        return None
    if verb.on == On.CLUSTER:
        return CLUSTER
    target = verb.target_arg
    assert target is not None  # a Verb declared on a node, job or volume has one
    name = command.values.get(target.name)
    return (verb.on.value, name) if name is not None else CLUSTER


def effect_of(text: str) -> Effect:
    """The effect of an action line as recorded (an accepted action parses again the same way).
    Raises Reject for a line that does not parse."""
    return effect(parse(text))

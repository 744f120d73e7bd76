"""From a typed line to a verb and its typed arguments, as the verb's declaration (catalog.py)
says: how many arguments, of which types, which options. Whether a named node or job exists is
the business of the moment the action runs (dispatch.py), or of `drill validate`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from drill.engine.actions.catalog import GROUPS, VERBS, Arg, Option, Verb, heads, verb_of
from drill.engine.actions.errors import Reject, closest, unknown

MAX_LINE = 500

# A word that stands for a value filled in later (an incident's `{fault.ID.FIELD}`): any type
# accepts it as it is.
StandIn = Callable[[str], bool]


@dataclass(frozen=True)
class Command:
    verb: str
    args: list[str]  # the words after the verb, as typed
    rest: str  # the raw text after the verb
    # Typed values by argument name and option flag; None for an optional one left out. Names
    # of nodes, jobs and volumes are still text here.
    values: dict[str, Any] = field(default_factory=dict)


def parse(text: str, *, stand_in: StandIn | None = None) -> Command:
    line = text.strip()
    if not line:
        raise Reject("type an action, or `help` for the list")
    if len(line) > MAX_LINE:
        raise Reject(f"that line is {len(line)} characters; keep an action under {MAX_LINE}")
    if not line.isprintable():
        raise Reject("that line has control characters; type plain text")
    words = line.split()
    found = verb_of(words)
    if found is None:
        raise _unknown_verb(words)
    name, used = found
    rest = line.split(None, used)[used] if len(words) > used else ""
    args = words[used:]
    values = read_arguments(VERBS[name], args, rest, stand_in)
    return Command(name, args, rest, values)


def _unknown_verb(words: list[str]) -> Reject:
    head = words[0].lower()
    if head in GROUPS:
        subs = GROUPS[head]
        if len(words) < 2:
            return Reject(f"usage: {head} {'|'.join(sorted(subs))} ...")
        verb = f"{head} {words[1].lower()}"
        guess = closest(words[1].lower(), subs)
        hint = f"; did you mean `{head} {guess}`?" if guess else f"; try {', '.join(subs)}"
        return Reject(f"unknown action `{verb}`{hint}")
    guess = closest(head, heads())
    hint = f"; did you mean `{guess}`?" if guess else "; type `help` for the list"
    return Reject(f"unknown action `{head}`{hint}")


def read_arguments(
    verb: Verb, words: list[str], rest: str, stand_in: StandIn | None = None
) -> dict[str, Any]:
    """First the shape (how many words, which options), then each word as its type, in order,
    so a line with too many words says its usage before it says a number is wrong."""
    usage = f"usage: {verb.usage}"
    given: list[tuple[Arg | Option, str]] = []
    left_out: list[Arg] = []  # left out where an option may stand in for it: checked below
    i = 0
    for arg in verb.args:
        if arg.type.rest:
            text = rest.strip()
            i = len(words)
        elif i < len(words) and not words[i].startswith("--"):
            text = words[i]
            i += 1
        else:
            text = ""
        if text:
            given.append((arg, text))
        elif arg.unless:
            left_out.append(arg)
        elif not arg.optional:
            raise Reject(f"{usage} ({arg.missing})" if arg.missing else usage)
    options = {option.flag: option for option in verb.options}
    while i < len(words):
        key = words[i]
        if key not in options:
            raise unknown("option", key, options) if key.startswith("--") else Reject(usage)
        if i + 1 >= len(words):
            raise Reject(f"{key} needs a value; {usage}")
        given.append((options[key], words[i + 1]))
        i += 2
    named = {part.name for part, _ in given}
    for arg in left_out:
        if arg.unless not in named:
            raise Reject(f"{usage} ({arg.missing})" if arg.missing else usage)
    if any(o.required and o.flag not in named for o in verb.options):
        raise Reject(usage)
    values: dict[str, Any] = {part.name: None for part in verb.typed()}
    for part, text in given:
        values[part.name] = _read(part, text, values, stand_in)
    return values


def _read(part: Arg | Option, text: str, earlier: dict[str, Any], stand_in: StandIn | None):
    kind = part.type
    if kind.many:
        return tuple(_one(part, word, earlier, stand_in) for word in text.split(",") if word)
    return _one(part, text, earlier, stand_in)


def _one(part: Arg | Option, text: str, earlier: dict[str, Any], stand_in: StandIn | None):
    if stand_in is not None and stand_in(text):
        return text
    if part.type.read is None:
        return text
    return part.type.read(text, part.label, earlier)

"""Tab completion for the command line: verbs, then what each argument of the verb can be.

The verbs, their arguments and options and each argument's type come from the verbs'
declarations (drill/engine/actions/catalog.py), so a new verb completes without touching this
file. Names come from the latest snapshot the screen has.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from drill.engine.actions import argtypes
from drill.engine.actions.argtypes import ArgType
from drill.engine.actions.catalog import GROUPS, VERB, VERBS, Option, Verb, heads, verb_of
from drill.engine.actions.settings import SETTINGS
from drill.faults.units import UNITS
from drill.incident.models import PRIORITY_RANK
from drill.tui.words import SPEED, TUI_WORDS

DURATIONS = ("1m", "5m", "10m", "30m")
SPEED_CHOICES = ("1", "10", "60", "300", "600")


@dataclass(frozen=True)
class Names:
    """What can be named right now: read from the latest snapshot."""

    nodes: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()  # every job the learner can see
    own_jobs: tuple[str, ...] = ()  # the learner's: what verbs refused on other teams' jobs take
    volumes: tuple[str, ...] = ()
    leaves: tuple[str, ...] = ()
    alerts: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()


def _first_words() -> list[str]:
    return sorted(set(heads()) | set(TUI_WORDS))


def _values(kind: ArgType, verb: Verb, done: list[str], names: Names) -> list[str]:
    """What a word of this type can be right now."""
    if kind.names == "node":
        return list(names.nodes)
    if kind.names == "job":
        return list(names.jobs if verb.others_jobs else names.own_jobs)
    if kind.names == "volume":
        return list(names.volumes)
    if kind.names == "leaf":
        return list(names.leaves)
    if kind.names == "page":
        return [*names.alerts, "all"]
    if kind is argtypes.STEP:
        return list(names.steps)
    if kind is argtypes.RESUME:
        return [*names.steps, "latest", "scratch"]
    if kind is argtypes.CLASS:
        return list(PRIORITY_RANK)
    if kind is argtypes.KEY:
        return list(SETTINGS)
    if kind is argtypes.VALUE:
        setting = SETTINGS.get(done[-1].lower()) if done else None
        return list(setting.choices) if setting else []
    if kind is argtypes.DURATION:
        return list(DURATIONS)
    if kind is argtypes.SIGNAL:
        return list(argtypes.SIGNALS)
    if kind is argtypes.SERVICE:
        return list(UNITS)
    return []


def _verb_names(args: list[str]) -> list[str]:
    """`help`'s argument: a verb's first word, then a group's second."""
    if not args:
        return heads()
    if len(args) == 1 and args[0].lower() in GROUPS:
        return sorted(GROUPS[args[0].lower()])
    return []


def candidates(text: str, names: Names) -> list[str]:
    """Everything the word being typed (the last one) could become."""
    words = text.split()
    current = "" if not words or text.endswith(" ") else words[-1]
    done = words if not current else words[:-1]
    if not done:
        return [w for w in _first_words() if w.startswith(current.lower())]
    head = done[0].lower()
    if head == SPEED.word and len(done) == 1:
        return [s for s in SPEED_CHOICES if s.startswith(current)]
    if head in TUI_WORDS:
        return []
    if head in GROUPS and len(done) == 1:
        return [s for s in sorted(GROUPS[head]) if s.startswith(current.lower())]
    found = verb_of(done)
    if found is None:
        return []
    verb = VERBS[found[0]]
    args = done[found[1] :]
    rest_arg = next((a for a in verb.args if a.type.rest), None)
    if rest_arg is not None:
        pool = _verb_names(args) if rest_arg.type is VERB else []
        return [c for c in pool if c.startswith(current)]
    options = {o.flag: o for o in verb.options}
    if args and args[-1] in options:
        pool = _values(options[args[-1]].type, verb, args, names)
    else:
        filled = _positional_count(args, options)
        pool = []
        if filled < len(verb.args):
            pool = _values(verb.args[filled].type, verb, args, names)
        # An argument that may be left out (`wait [DURATION] [--until page]`): its options too.
        optional = filled < len(verb.args) and (
            verb.args[filled].optional or verb.args[filled].unless
        )
        if filled >= len(verb.args) or not pool or optional:
            used = set(args)
            pool = pool + [flag for flag in options if flag not in used]
    return [c for c in pool if c.startswith(current)]


def _positional_count(args: list[str], options: dict[str, Option]) -> int:
    count = 0
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in options:
            skip = True
            continue
        count += 1
    return count


def complete(text: str, names: Names) -> tuple[str, list[str]]:
    """The line after a Tab, and the choices left when it is ambiguous."""
    options = candidates(text, names)
    if not options:
        return text, []
    words_end = text.endswith(" ") or not text
    stem = text if words_end else text[: len(text) - len(text.split()[-1])]
    if len(options) == 1:
        return stem + options[0] + " ", []
    prefix = os.path.commonprefix(options)
    return stem + prefix if prefix else text, options


def usage_line(text: str) -> str:
    """The usage and summary of the verb being typed, for the line under the prompt."""
    words = text.split()
    if not words:
        return ""
    head = words[0].lower()
    if head in TUI_WORDS:
        return TUI_WORDS[head].usage
    found = verb_of(words)
    if found is None:
        return ""
    v = VERBS[found[0]]
    return f"{v.usage}: {v.summary} ({v.cost.label})"

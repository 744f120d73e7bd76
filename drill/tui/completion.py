"""Tab completion for the command line: verbs, then the names each verb's usage asks for.

The verbs and their arguments come from the engine's catalog (its usage strings), so a new verb
completes without touching this file. Names come from the latest snapshot the screen has.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from drill.engine.actions.catalog import VERBS
from drill.engine.actions.storage import SETTINGS

# Typed lines the TUI handles itself; they are not actions and are not saved.
TUI_COMMANDS = ("pause", "resume", "speed", "quit", "debrief")
PRIORITIES = ("low", "normal", "high", "urgent")
DURATIONS = ("1m", "5m", "10m", "30m")
SPEED_CHOICES = ("1", "10", "60", "300", "600")


@dataclass(frozen=True)
class Names:
    """What can be named right now: read from the latest snapshot."""

    nodes: tuple[str, ...] = ()
    jobs: tuple[str, ...] = ()
    training_jobs: tuple[str, ...] = ()  # jobs with steps and checkpoints: what ckpt and set take
    volumes: tuple[str, ...] = ()
    alerts: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class Usage:
    positional: tuple[str, ...]  # placeholders in order, like JOB, NODE, STEP
    options: dict[str, str]  # --from: STEP|latest|scratch


def parse_usage(verb: str) -> Usage:
    tokens = VERBS[verb].usage.split()[len(verb.split()) :]
    positional: list[str] = []
    options: dict[str, str] = {}
    i = 0
    while i < len(tokens):
        token = tokens[i]
        bare = token.strip("[]")
        if token.startswith("[--"):
            value = (
                tokens[i + 1].strip("[]") if i + 1 < len(tokens) and not token.endswith("]") else ""
            )
            options[bare] = value
            i += 2 if value else 1
            continue
        if not bare.startswith("+"):
            positional.append(bare)
        i += 1
    return Usage(tuple(positional), options)


def heads() -> list[str]:
    words = sorted({verb.split()[0] for verb in VERBS} | set(TUI_COMMANDS))
    return words


def _placeholder(kind: str, verb: str, done: list[str], names: Names) -> list[str]:
    kind = kind.split("|")[0] if not kind.startswith("ALERT") else kind
    if kind == "JOB":
        return list(names.training_jobs if verb.startswith("ckpt") or verb == "set" else names.jobs)
    if kind == "NODE" or kind.startswith("NODE"):
        return list(names.nodes)
    if kind.startswith("ALERT"):
        return [*names.alerts, "all"]
    if kind == "VOLUME":
        return list(names.volumes)
    if kind in ("STEP", "STEP|latest|scratch"):
        return list(names.steps)
    if kind == "KEY":
        return list(SETTINGS)
    if kind == "VALUE":
        return ["yes", "no"] if done and done[-1] in ("ckpt-on-sigterm", "verify-on-resume") else []
    if kind == "CLASS":
        return list(PRIORITIES)
    if kind == "DURATION":
        return list(DURATIONS)
    if kind == "VERB":
        return sorted(VERBS)
    if kind.startswith("--"):
        return [kind]
    return []


def candidates(text: str, names: Names) -> list[str]:
    """Everything the word being typed (the last one) could become."""
    words = text.split()
    current = "" if not words or text.endswith(" ") else words[-1]
    done = words if not current else words[:-1]
    if not done:
        return [w for w in heads() if w.startswith(current.lower())]
    head = done[0].lower()
    if head == "speed" and len(done) == 1:
        return [s for s in SPEED_CHOICES if s.startswith(current)]
    if head in TUI_COMMANDS:
        return []
    if head == "ckpt" and len(done) == 1:
        subs = sorted(v.split()[1] for v in VERBS if v.startswith("ckpt "))
        return [s for s in subs if s.startswith(current.lower())]
    verb = " ".join(w.lower() for w in done[:2]) if head == "ckpt" else head
    if verb not in VERBS or verb == "note":
        return []
    usage = parse_usage(verb)
    args = done[len(verb.split()) :]
    if args and args[-1] in usage.options:
        value = usage.options[args[-1]]
        pool = _option_values(value, names)
    else:
        filled = _positional_count(args, usage)
        pool = []
        if filled < len(usage.positional):
            pool = _placeholder(usage.positional[filled], verb, args, names)
        if filled >= len(usage.positional) or not pool:
            used = set(args)
            pool = pool + [o for o in usage.options if o not in used]
    if verb == "help" and not args:
        pool = sorted({v.split()[0] for v in VERBS})
    return [c for c in pool if c.startswith(current)]


def _option_values(value: str, names: Names) -> list[str]:
    if value.startswith("STEP"):
        return [*names.steps, "latest", "scratch"]
    if value.startswith("NODE"):
        return list(names.nodes)
    if value == "N":
        return []
    return []


def _positional_count(args: list[str], usage: Usage) -> int:
    count = 0
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in usage.options:
            skip = bool(usage.options[arg])
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
    if head in TUI_COMMANDS:
        return {
            "pause": "pause: hold the clock (not an action, not saved)",
            "resume": "resume: let the clock run again",
            "speed": "speed N: 1 to 600 seconds of night per second (not saved)",
            "quit": "quit: leave; every action is already saved",
            "debrief": "debrief: end the night now and see the score",
        }[head]
    verb = " ".join(w.lower() for w in words[:2]) if head == "ckpt" and len(words) > 1 else head
    if verb not in VERBS:
        return ""
    v = VERBS[verb]
    cost = "its duration" if v.name == "wait" else f"{int(v.cost)}s"
    return f"{v.usage}: {v.summary} ({cost})"

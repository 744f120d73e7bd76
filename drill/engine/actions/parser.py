"""From a typed line to a verb and its arguments. Only the shape is checked here; whether the
node or job exists is the handler's business, at the moment the action runs."""

from __future__ import annotations

from dataclasses import dataclass

from drill.engine.actions.catalog import TWO_WORD, VERBS
from drill.engine.actions.errors import Reject, closest

MAX_LINE = 500


@dataclass(frozen=True)
class Command:
    verb: str
    args: list[str]
    rest: str  # the raw text after the verb, for `note`


def parse(text: str) -> Command:
    line = text.strip()
    if not line:
        raise Reject("type an action, or `help` for the list")
    if len(line) > MAX_LINE:
        raise Reject(f"that line is {len(line)} characters; keep an action under {MAX_LINE}")
    if not line.isprintable():
        raise Reject("that line has control characters; type plain text")
    words = line.split()
    head = words[0].lower()
    if head in TWO_WORD:
        if len(words) < 2:
            subs = sorted(v.split()[1] for v in VERBS if v.startswith(head + " "))
            raise Reject(f"usage: {head} {'|'.join(subs)} ...")
        verb = f"{head} {words[1].lower()}"
        if verb not in VERBS:
            subs = [v.split()[1] for v in VERBS if v.startswith(head + " ")]
            guess = closest(words[1].lower(), subs)
            hint = f"; did you mean `{head} {guess}`?" if guess else f"; try {', '.join(subs)}"
            raise Reject(f"unknown action `{verb}`{hint}")
        args = words[2:]
        rest = line.split(None, 2)[2] if len(words) > 2 else ""
        return Command(verb, args, rest)
    if head not in VERBS:
        guess = closest(head, [v.split()[0] for v in VERBS])
        hint = f"; did you mean `{guess}`?" if guess else "; type `help` for the list"
        raise Reject(f"unknown action `{head}`{hint}")
    rest = line.split(None, 1)[1] if len(words) > 1 else ""
    return Command(head, words[1:], rest)

"""Worse runbooks made from an incident's reference, one per class of bad practice.

A reference solution is what a senior on-call engineer would do. Each class below takes it and
makes the one mistake such an engineer would name, keeping everything else (the timing, the
acknowledgements, the note), so the score can be checked against judgement on every incident,
including ones nobody has written graded runbooks for:

- `uninformed`: the same acts with none of the looks that should have informed them;
- `from-scratch`: every restart throws its checkpoint away;
- `left-schedulable`: the broken node is kept out of your own job (`--exclude`) but nothing takes
  it out of service, so other teams' jobs can land on it;
- `skip-extra-data`: a `restart --skip` that skips far more data than the bad range;
- `lax-cadence`: the pre-shift plan checkpoints three times less often than the reference's.

Each class carries its band: the most it may score (a ceiling on the total) and how far below
the reference it must land. `drill test` plays them at every seed; tests/scoring's calibration
suite plays them on every shipped incident. A class only applies where the reference does the
thing the class undoes (no restart, no from-scratch runbook).

The lines keep the reference's `{fault.ID.FIELD}` templates and times: they are author-side
runbooks, played like the reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drill.engine.actions.catalog import VERBS, Kind, On
from drill.incident.job_settings import CKPT_EVERY

MARGIN = 10.0  # a worse practice lands at least this far below the reference
B_CEILING = 90.0  # "no better than B": below an A
C_CEILING = 80.0  # "C or lower"

# Acts that take a node out of service for everyone, not just for your job (the catalog says).
TAKES_OUT = tuple(verb.name for verb in VERBS.values() if verb.out_of_service)
# The verb that restarts a job from a checkpoint: the one with a `--from` option.
RESTART = next(v.name for v in VERBS.values() if any(o.flag == "--from" for o in v.options))
EXTRA_SKIP = 70  # steps of good data the skip-extra-data class throws away on top
LAX_FACTOR = 3  # the lax-cadence class checkpoints this many times less often


@dataclass(frozen=True)
class WorseClass:
    name: str
    what: str  # what the runbook does wrong, as the `drill test` line says it
    ceiling: float  # the total must stay below this
    margin: float = MARGIN  # and at least this far below the reference's total


CLASSES = {
    c.name: c
    for c in (
        WorseClass("uninformed", "the reference's acts with none of its looks", B_CEILING),
        WorseClass("from-scratch", "every restart throws its checkpoint away", B_CEILING),
        WorseClass(
            "left-schedulable",
            "the broken node kept out of the job but left schedulable for other teams",
            B_CEILING,
        ),
        WorseClass(
            "skip-extra-data", f"{EXTRA_SKIP} more steps of data skipped than were bad", B_CEILING
        ),
        WorseClass(
            "lax-cadence",
            f"checkpoints {LAX_FACTOR} times less often than the reference's plan",
            B_CEILING,
        ),
    )
}


@dataclass(frozen=True)
class WorseRunbook:
    kind: WorseClass
    lines: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"worse:{self.kind.name}"


def worse_runbooks(reference: list[str] | tuple[str, ...]) -> list[WorseRunbook]:
    """Every class that applies to this reference, each as its runbook."""
    lines = [_split(line) for line in reference]
    out = []
    for name, make in _MAKERS.items():
        made = make(lines)
        if made is not None and made != lines:
            out.append(WorseRunbook(CLASSES[name], tuple(_join(w, t) for w, t in made)))
    return out


# -- the classes --------------------------------------------------------------------------------

Line = tuple[str, str]  # (when, text)


def _uninformed(lines: list[Line]) -> list[Line] | None:
    if not any(_is_change(text) for _, text in lines) or not any(
        _is_look(text) for _, text in lines
    ):
        return None
    return _drop(lines, lambda text: _is_look(text))


def _from_scratch(lines: list[Line]) -> list[Line] | None:
    out, changed = [], False
    for when, text in lines:
        words = text.split()
        if words[:1] == [RESTART] and "scratch" not in words:
            kept: list[str] = []
            skip_next = False
            for index, word in enumerate(words):
                if skip_next:
                    skip_next = False
                    continue
                if word in ("--from", "--skip") and index + 1 < len(words):
                    skip_next = True
                    continue
                kept.append(word)
            text = " ".join([*kept, "--from", "scratch"])
            changed = True
        out.append((when, text))
    return out if changed else None


def _left_schedulable(lines: list[Line]) -> list[Line] | None:
    excluded: set[str] = set()
    for _, text in lines:
        words = text.split()
        if words[:1] == [RESTART] and "--exclude" in words:
            index = words.index("--exclude")
            if index + 1 < len(words):
                excluded |= set(words[index + 1].split(","))
    if not excluded:
        return None

    def takes_out(text: str) -> bool:
        words = text.split()
        return len(words) >= 2 and words[0] in TAKES_OUT and words[1] in excluded

    if not any(takes_out(text) for _, text in lines):
        return None
    return _drop(lines, takes_out)


_SKIP = re.compile(r"--skip (\d+)-(\d+)")


def _skip_extra_data(lines: list[Line]) -> list[Line] | None:
    out, changed = [], False
    for when, text in lines:
        match = _SKIP.search(text)
        if match and text.split()[:1] == [RESTART]:
            first, last = int(match.group(1)), int(match.group(2))
            text = text.replace(match.group(0), f"--skip {first}-{last + EXTRA_SKIP}")
            changed = True
        out.append((when, text))
    return out if changed else None


_CADENCE = re.compile(rf"({re.escape(CKPT_EVERY.key)} )(\d+)$")


def _lax_cadence(lines: list[Line]) -> list[Line] | None:
    out, changed = [], False
    for when, text in lines:
        match = _CADENCE.search(text)
        if match and VERBS.get(_verb(text)) is not None and VERBS[_verb(text)].plan:
            every = int(match.group(2)) * LAX_FACTOR
            text = text[: match.start(2)] + str(every)
            changed = True
        out.append((when, text))
    return out if changed else None


_MAKERS = {
    "uninformed": _uninformed,
    "from-scratch": _from_scratch,
    "left-schedulable": _left_schedulable,
    "skip-extra-data": _skip_extra_data,
    "lax-cadence": _lax_cadence,
}


# -- lines -------------------------------------------------------------------------------------


def _split(line: str) -> Line:
    when, _, text = line.strip().partition(" ")
    return when, text.strip()


def _join(when: str, text: str) -> str:
    return f"{when} {text}"


def _verb(text: str) -> str:
    words = text.split()
    if len(words) >= 2 and f"{words[0]} {words[1]}" in VERBS:
        return f"{words[0]} {words[1]}"
    return words[0] if words else ""


def _is_look(text: str) -> bool:
    verb = VERBS.get(_verb(text))
    # A look at something (help looks at nothing on the cluster).
    return verb is not None and verb.kind == Kind.LOOK and verb.on != On.NOTHING


def _is_change(text: str) -> bool:
    verb = VERBS.get(_verb(text))
    # Paperwork (ack, note, hint, wait) needs no look; the plan (`set`) is judged by the plan.
    return verb is not None and verb.kind == Kind.ACT and bool(verb.informed_by) and not verb.plan


def _drop(lines: list[Line], dropped) -> list[Line]:
    """The lines without the dropped ones. A dropped line's time (a time of night, or a delay)
    moves to the next kept line, so what remains happens when it did in the reference."""
    out: list[Line] = []
    carried: str | None = None
    for when, text in lines:
        if dropped(text):
            if not _relative_zero(when):
                carried = _after(carried, when) if carried else when
            continue
        if carried is not None:
            when = carried if _relative_zero(when) else _after(carried, when)
        carried = None
        out.append((when, text))
    return out


def _after(base: str, when: str) -> str:
    """`when` counted from `base`: a delay adds to a base without one; a time of night wins."""
    if not when.startswith("+"):
        return when
    if "+" in base:
        return base  # two delays in a row: the first one's start is the better guess
    return f"{base}{when}"


def _relative_zero(when: str) -> bool:
    return when in ("+0s", "+0m", "+0")

"""Timed action lines: how actions files, reference solutions and saves say when a person typed.

    03:12 health gpu-a-2          at a time of night
    03:12:30 cordon gpu-a-2       with seconds
    +2m restart llm --from latest two minutes after the previous action ended
    {fault.gpu-dies.time}+8m logs llm    relative to when a fault fired

Action text may name what a fault chose: `{fault.gpu-dies.node}`, `.gpu`, `.rank`, `.job`,
`.leaf`, `.island`, `.step` (a corrupted checkpoint), `.nodes` (all chosen nodes, comma
separated), `.leaf_nodes` and `.island_nodes` (every node behind the leaf, of the island) and
`.time` (drill/incident/templates.py). They are filled in when the action runs, so a reference
stays right for every seed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from drill.engine.actions.errors import ActionsFileError, Reject
from drill.engine.actions.parser import parse
from drill.incident.templates import FIELDS, TEMPLATE
from drill.values import units

_TIME = re.compile(
    r"^(?P<base>\d{1,2}:\d{2}(?::\d{2})?|\{fault\.[a-z0-9-]+\.time\})?(?:\+(?P<plus>[0-9smhd.]+))?$"
)
MAX_ACTIONS = 2000


@dataclass(frozen=True)
class TimedAction:
    line: int
    when: str
    text: str


LEARNER_TEMPLATE = (
    "`{fault.ID.FIELD}` names what a fault chose, which only the incident's author knows;"
    " templates are for reference and graded runbooks. Name the node or job yourself"
)


def parse_line(
    raw: str, path: str, number: int, fault_ids: set[str] | None = None, templates: bool = True
) -> TimedAction | None:
    stripped = raw.strip()
    if not stripped or stripped.startswith("#"):
        return None
    indent = len(raw) - len(raw.lstrip()) + 1
    when, _, text = stripped.partition(" ")
    text = text.strip()
    match = _TIME.match(when)
    if not match or not (match.group("base") or match.group("plus")):
        raise ActionsFileError(
            path,
            number,
            indent,
            f"expected a time first, like `03:12 status` or `+2m status`; got {when!r}",
        )
    try:
        if match.group("base") and ":" in match.group("base") and "{" not in match.group("base"):
            units.parse_clock(match.group("base"))
        if match.group("plus"):
            units.parse_duration(match.group("plus"))
    except units.UnitError as exc:
        raise ActionsFileError(path, number, indent, str(exc)) from None
    if not text:
        raise ActionsFileError(
            path, number, indent + len(when) + 1, "a time needs an action after it"
        )
    for template in TEMPLATE.finditer(stripped):
        fault, field = template.groups()
        col = indent + stripped.index(template.group(0))
        if not templates:
            raise ActionsFileError(path, number, col, LEARNER_TEMPLATE)
        if field not in FIELDS:
            raise ActionsFileError(
                path, number, col, f"unknown fault field {field!r}; use one of {', '.join(FIELDS)}"
            )
        if fault_ids is not None and fault not in fault_ids:
            known = ", ".join(sorted(fault_ids)) or "none"
            raise ActionsFileError(
                path, number, col, f"no fault with id {fault!r}; faults here: {known}"
            )
    if "{" in TEMPLATE.sub("x", text):
        raise ActionsFileError(path, number, indent, "a `{...}` here is not `{fault.ID.FIELD}`")
    try:
        parse(text, stand_in=lambda word: TEMPLATE.search(word) is not None)
    except Reject as exc:
        col = indent + stripped.index(text, len(when))
        raise ActionsFileError(path, number, col, str(exc)) from None
    return TimedAction(number, when, text)


def parse_text(
    text: str, path: str, fault_ids: set[str] | None = None, templates: bool = True
) -> list[TimedAction]:
    actions: list[TimedAction] = []
    # "\n" alone ends a line, as in an editor: splitlines() would also split at a form feed or
    # a Unicode line separator and shift every line number after it.
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.removesuffix("\r")
        action = parse_line(raw, path, number, fault_ids, templates)
        if action is not None:
            actions.append(action)
        if len(actions) > MAX_ACTIONS:
            raise ActionsFileError(
                path, number, 1, f"more than {MAX_ACTIONS} actions; split the file"
            )
    return actions


def load_file(
    path: str | Path, fault_ids: set[str] | None = None, templates: bool = False
) -> list[TimedAction]:
    """A learner's actions file: no `{fault.*}` templates unless the caller is an author's."""
    shown = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ActionsFileError(shown, 1, 1, "file not found; check the path") from None
    except IsADirectoryError:
        raise ActionsFileError(shown, 1, 1, "this is a folder; give an actions file") from None
    except OSError as exc:
        raise ActionsFileError(shown, 1, 1, f"cannot read it: {exc.strerror}") from None
    if len(raw) > 1_000_000:
        raise ActionsFileError(shown, 1, 1, "the file is over 1 MB; an actions file is a few lines")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ActionsFileError(shown, line, 1, "not UTF-8 text; save the file as UTF-8") from None
    return parse_text(text, shown, fault_ids, templates)

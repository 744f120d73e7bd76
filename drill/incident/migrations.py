"""Incident files of every earlier schema load through a migration.

An incident file says which schema it was written for (`schema: N`). A rename or a removal in
the models bumps SCHEMA_VERSION and adds a step here, so an instructor's file keeps loading:
the loader migrates the parsed data before validating it, `drill validate` says the file is old
and what `drill migrate` would change, and `drill migrate FILE` rewrites it in place.

Schema 1 to 2:
- the score component `work_lost` became `progress` (in `scoring.weights` and in a graded
  runbook's `expect.loses_in`);
- faults were one model with every field, and each kind now has its own: a field the kind no
  longer takes is dropped (`target` on `random_failures`, which picks its own nodes; `xid` on
  anything but `gpu_xid`, and so on). In schema 1 those fields did nothing for those kinds.

Each change carries the key path it touched, so its line can be shown and rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LATEST = 2

# Every field the single schema-1 fault model had (drill at schema 1, drill/incident/models.py).
_SCHEMA_1_FAULT_FIELDS = (
    "at",
    "jitter",
    "duration",
    "target",
    "xid",
    "slowdown",
    "persists_after_reboot",
    "mtbf",
)


@dataclass(frozen=True)
class Change:
    """One edit a migration makes: `rename` a key to `new`, or `drop` a key and its value."""

    loc: tuple[str | int, ...]
    action: str  # "rename", "drop", "replace" (a scalar value in a list), "version"
    new: Any
    why: str


def migrate(data: Any) -> tuple[Any, list[Change], int | None]:
    """The data as the latest schema reads it, the changes made, and the version it was written
    for (None when it needed nothing). Data that is not an old incident is returned as it is, for
    the models to report."""
    if not isinstance(data, dict):
        return data, [], None
    version = data.get("schema")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version < LATEST:
        return data, [], None
    changes: list[Change] = []
    if version == 1:
        changes += _one_to_two(data)
    changes.append(Change(("schema",), "version", LATEST, f"schema {version} becomes {LATEST}"))
    return _apply(data, changes), changes, version


def _one_to_two(data: dict) -> list[Change]:
    from drill.faults import KINDS  # the fault kinds' own models say what each takes

    changes: list[Change] = []
    weights = _mapping(data.get("scoring")).get("weights")
    if isinstance(weights, dict) and "work_lost" in weights:
        if "progress" in weights:
            changes.append(
                Change(
                    ("scoring", "weights", "work_lost"),
                    "drop",
                    None,
                    "`work_lost` is `progress` now, and `progress` is already set",
                )
            )
        else:
            changes.append(
                Change(
                    ("scoring", "weights", "work_lost"),
                    "rename",
                    "progress",
                    "the score component `work_lost` is `progress` now",
                )
            )
    for r, book in enumerate(_items(data.get("runbooks"))):
        loses = _mapping(_mapping(book).get("expect")).get("loses_in")
        if isinstance(loses, list):
            for i, name in enumerate(loses):
                if name == "work_lost":
                    changes.append(
                        Change(
                            ("runbooks", r, "expect", "loses_in", i),
                            "replace",
                            "progress",
                            "the score component `work_lost` is `progress` now",
                        )
                    )
    for f, fault in enumerate(_items(data.get("faults"))):
        if not isinstance(fault, dict) or not isinstance(fault.get("kind"), str):
            continue
        kind = KINDS.get(fault["kind"])
        if kind is None:
            continue
        fields = kind.spec.model_fields
        takes = set(fields) | {f.alias for f in fields.values() if f.alias}
        for key in _SCHEMA_1_FAULT_FIELDS:
            if key in fault and key not in takes:
                why = (
                    "random_failures picks its own nodes, so it has no `target`"
                    if key == "target" and fault.get("kind") == "random_failures"
                    else f"a {fault.get('kind')} fault has no `{key}`; in schema 1 it did nothing"
                )
                changes.append(Change(("faults", f, key), "drop", None, why))
    return changes


# A file shaped wrong where a migration looks is left as it is, for the models to report in
# one line: only a mapping is looked into, only a list is walked.
def _mapping(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _apply(data: dict, changes: list[Change]) -> dict:
    import copy

    out = copy.deepcopy(data)
    for change in changes:
        *parent_loc, last = change.loc
        parent: Any = out
        for part in parent_loc:
            parent = parent[part]
        if change.action == "rename":
            parent[change.new] = parent.pop(last)
        elif change.action == "drop":
            parent.pop(last, None)
        else:  # replace a value, or set the version
            parent[last] = change.new
    return out


def describe(change: Change, line: int) -> str:
    path = ".".join(f"[{p}]" if isinstance(p, int) else str(p) for p in change.loc).replace(
        ".[", "["
    )
    if change.action == "rename":
        return f"line {line}: `{path}` becomes `{change.new}` ({change.why})"
    if change.action == "drop":
        return f"line {line}: `{path}` is removed ({change.why})"
    if change.action == "replace":
        return f"line {line}: `{path}` becomes `{change.new}` ({change.why})"
    return f"line {line}: `schema` becomes {change.new}"

"""A score's figures in words a person reads, for the debrief and the report alike.

Components are read generically (name, value, par, floor, points, weight, why), from a Score
object or from a save's score line, so a component the engine adds later shows up in both
places without a change here. A few names carry a unit (a duration, a share); everything else
is formatted by its type: yes or no, counts with thousands separators, decimals to a sensible
precision, a dict as "3 steps recomputed, 7.0 GPU hours" (its zero counts left out).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from drill.values.share import percent
from drill.values.units import format_duration

FLOOR_NAME = "doing nothing"
# Units the plain type does not tell: seconds of night, a share shown as a percentage, hours.
DURATIONS = ("time_to_recovery", "seconds", "duration", "wait")
SHARES = ("discipline", "share", "fraction", "recovered")
# Scalars whose unit the name carries.
UNITS = {"collateral": "GPU hours", "plan": "fallback step"}
LABELS = {"gpu_hours": "GPU hours", "rel_l2": "relative distance", "ttr": "time to recovery"}
WORDS = {"bitexact": "bit for bit", "close": "close", "diverged": "diverged"}
# The integrity figure's "weights" key, as a phrase: "weights dead job" read as nonsense.
WEIGHTS = {"dead job": "job dead at the end, weights not compared"}
# Counts that read as a noun, singular and plural: "1 bad checkpoint caught", not "1 corrupt caught".
COUNTED = {
    "corrupt_loaded": ("bad checkpoint loaded", "bad checkpoints loaded"),
    "corrupt_caught": ("bad checkpoint caught", "bad checkpoints caught"),
}


@dataclass(frozen=True)
class Row:
    """One component as a page or a screen shows it."""

    name: str
    title: str
    points: float
    weight: float
    mine: str
    par: str
    floor: str
    why: str
    # "tonight", or "expected over N nights" (drill/engine/scoring/ensemble.py); older saves: tonight.
    basis: str = "tonight"


def title(name: str) -> str:
    """`time_to_recovery` -> `Time to recovery`."""
    words = LABELS.get(name) or name.replace("_", " ").replace("-", " ")
    return words[:1].upper() + words[1:]


def label(name: str) -> str:
    return LABELS.get(name) or name.replace("_", " ").replace("-", " ")


def figure(name: str, value: Any) -> str:
    """One raw figure of the component (or dict key) called `name`."""
    if value is None:
        return "never" if _is(name, DURATIONS) else "not measured"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        # Zero counts say nothing next to the ones that are not: "9 steps recomputed, 4.6 GPU
        # hours" rather than "..., 0 steps behind, ...".
        parts = [_part(key, item) for key, item in value.items() if not _zero(item)]
        return ", ".join(p for p in parts if p) or "none"
    if isinstance(value, int | float):
        return _number(name, float(value), isinstance(value, int))
    if isinstance(value, str):
        return WORDS.get(value, value)
    if isinstance(value, Iterable):
        return ", ".join(figure(name, item) for item in value) or "none"
    return str(value)


def _zero(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 0


def _part(key: str, value: Any) -> str:
    shown = figure(key, value)
    if key == "weights" and value in WEIGHTS:
        return WEIGHTS[value]
    if key in COUNTED and isinstance(value, int) and not isinstance(value, bool):
        one, many = COUNTED[key]
        return f"{shown} {one if value == 1 else many}"
    if isinstance(value, int | float) and not isinstance(value, bool):
        if _is(key, DURATIONS):
            return f"{label(key)} {shown}"
        return f"{shown} {label(key)}"
    if value is None:
        return ""
    return f"{label(key)} {shown}"


def _number(name: str, value: float, whole: bool) -> str:
    if name == "collateral":
        return f"{value:,.1f} {UNITS[name]}"
    if name == "plan":
        return f"{UNITS[name]} {value:,.0f}"
    if _is(name, DURATIONS):
        return "no stop" if value == 0 else format_duration(value)
    if _is(name, SHARES) and 0.0 <= value <= 1.0 and not whole:
        return percent(value)
    if whole or value.is_integer() and abs(value) >= 1:
        return f"{int(value):,}"
    if "hours" in name:
        return f"{value:,.1f}"
    if abs(value) < 0.01:
        return f"{value:.2e}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _is(name: str, kinds: tuple[str, ...]) -> bool:
    return any(kind in name for kind in kinds)


def _field(component: Any, key: str) -> Any:
    if isinstance(component, Mapping):
        return component.get(key)
    return getattr(component, key, None)


def rows(score: Any) -> list[Row]:
    """Every component of a Score (or of a save's score dict), in its own order."""
    components = _field(score, "components") or ()
    out = []
    for component in components:
        name = str(_field(component, "name"))
        if not _field(component, "weight"):
            continue  # not scored on this night (no plan to judge, say)
        out.append(
            Row(
                name=name,
                title=title(name),
                points=float(_field(component, "points") or 0.0),
                weight=float(_field(component, "weight") or 0.0),
                mine=figure(name, _field(component, "value")),
                par=figure(name, _field(component, "par")),
                floor=figure(name, _field(component, "floor")),
                why=str(_field(component, "why") or ""),
                basis=str(_field(component, "basis") or "tonight"),
            )
        )
    return out


def points(row: Row) -> str:
    return f"{row.points:.1f} of {row.weight:.0f}"

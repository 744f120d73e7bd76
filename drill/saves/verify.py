"""What `drill replay --verify` compares, and how a difference is told.

Everything the game decided is compared exactly: each action's start and end, its text, whether
it was accepted and its result; the score's every figure and verdict, including the integrity
match (bitexact, close, diverged); the night's end time.

Two kinds of figure in that text come from the replica's floating-point arithmetic and not from
a decision: a training loss (`loss 2.3456` in a rank's log, from `logs JOB --rank N`) and the
weights' relative distance from the undisturbed run (`relative distance 5.81e-04` in the
integrity sentence of a night that ended "close"). On the machine and torch build that made the
save they replay bit for bit and are compared exactly too. When the save's header names another
machine or torch build (or none, in a save from before drill recorded it), other CPU kernels
round differently and training is chaotic, so those figures are compared within a tolerance:

- a loss within 2 percent (plus one unit of the 4 printed decimals): the same step's loss on two
  builds differs far less, a different step's is in the step number, which is compared exactly;
- a relative distance within a factor of 4: a "close" night's distance is rounding noise grown
  by training, measured at 4e-4 to 1e-3 after a default night (replica/match.py), so another
  build lands elsewhere in that band; the verdict itself is compared exactly.

Everything around those numbers in the same text is still compared exactly.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

LOSS_TOLERANCE = 0.02
LOSS_UNIT = 1e-4
DISTANCE_FACTOR = 4.0

_NUMBER = r"\d+(?:\.\d+)?(?:e[+-]?\d+)?"
FIGURES = (
    ("loss", re.compile(rf"(?<=\bloss ){_NUMBER}")),
    ("distance", re.compile(rf"(?<=relative distance ){_NUMBER}")),
)
_MISSING = object()


@dataclass(frozen=True)
class Difference:
    line: int
    field: str  # in words, as the message shows it
    replayed: str
    saved: str
    key: str = ""  # the field as a path: "actions[3].result", "score.total", "end_time"

    def __str__(self) -> str:
        return f"{self.field}: the replay gives {self.replayed}, the save has {self.saved}"


def compare_action(saved, result, *, tolerant: bool) -> Difference | None:
    """The first field of a saved action that the replay does not reproduce."""
    fresh = {  # times as floats: the save's 0 and 0.0 are the same moment
        "time": float(round(result.time, 3)),
        "end": float(round(result.end, 3)),
        "text": result.text,
        "accepted": result.accepted,
        "result": result.output,
    }
    kept = {
        "time": saved.time,
        "end": saved.end,
        "text": saved.text,
        "accepted": saved.accepted,
        "result": saved.result,
    }
    for key in ("time", "text", "accepted", "result", "end"):
        found = first_difference(fresh[key], kept[key], key, tolerant=tolerant)
        if found is not None:
            where, replayed, stored = found
            return Difference(
                saved.line,
                f"action {saved.n} `{_short(saved.text)}`, `{where}`",
                replayed,
                stored,
                key=f"actions[{saved.n}].{where}",
            )
    return None


def compare_score(
    score: dict[str, Any], end_time: float, save, *, tolerant: bool
) -> Difference | None:
    fresh = json.loads(json.dumps(score))
    found = first_difference(fresh, save.score, "score", tolerant=tolerant)
    if found is None:
        found = first_difference(
            float(round(end_time, 3)), save.end_time, "end_time", tolerant=tolerant
        )
    if found is None:
        return None
    where, replayed, stored = found
    return Difference(save.score_line, f"the score line's `{where}`", replayed, stored, key=where)


def first_difference(fresh: Any, saved: Any, where: str, *, tolerant: bool):
    """(field path, replay's value shown, save's value shown) of the first difference, or None.
    Types count: `true` is not 1, and 15 is not 15.0."""
    if isinstance(fresh, dict) and isinstance(saved, dict):
        for key in sorted(set(fresh) | set(saved)):
            found = first_difference(
                fresh.get(key, _MISSING),
                saved.get(key, _MISSING),
                f"{where}.{key}",
                tolerant=tolerant,
            )
            if found is not None:
                return found
        return None
    if isinstance(fresh, list) and isinstance(saved, list):
        for index in range(max(len(fresh), len(saved))):
            a = fresh[index] if index < len(fresh) else _MISSING
            b = saved[index] if index < len(saved) else _MISSING
            found = first_difference(a, b, f"{where}[{_label(a, b, index)}]", tolerant=tolerant)
            if found is not None:
                return found
        return None
    if isinstance(fresh, str) and isinstance(saved, str):
        if same_text(fresh, saved, tolerant=tolerant):
            return None
        return (where, *show_pair(fresh, saved))
    if type(fresh) is type(saved) and fresh == saved:
        return None
    return (where, *show_pair(fresh, saved))


def same_text(fresh: str, saved: str, *, tolerant: bool) -> bool:
    if fresh == saved:
        return True
    if not tolerant:
        return False
    a_skeleton, a_figures = split_figures(fresh)
    b_skeleton, b_figures = split_figures(saved)
    if a_skeleton != b_skeleton:
        return False
    return all(_close(kind, a, b) for (kind, a), (_, b) in zip(a_figures, b_figures, strict=True))


def split_figures(text: str) -> tuple[str, list[tuple[str, float]]]:
    """The text with each replica figure replaced by its kind, and the figures in order."""
    found: list[tuple[int, int, str, float]] = []
    for kind, pattern in FIGURES:
        for match in pattern.finditer(text):
            found.append((match.start(), match.end(), kind, float(match.group())))
    found.sort()
    pieces, figures, at = [], [], 0
    for start, end, kind, value in found:
        pieces.append(text[at:start] + f"<{kind}>")
        figures.append((kind, value))
        at = end
    pieces.append(text[at:])
    return "".join(pieces), figures


def _close(kind: str, a: float, b: float) -> bool:
    if kind == "loss":
        return abs(a - b) <= LOSS_TOLERANCE * max(abs(a), abs(b)) + LOSS_UNIT
    if a <= 0 or b <= 0:
        return a == b
    return max(a, b) / min(a, b) <= DISTANCE_FACTOR


def show_pair(fresh: Any, saved: Any) -> tuple[str, str]:
    """Both values as text that shows where they differ: long strings as a window around the
    first difference, escaped so that look-alike characters cannot hide it."""
    if fresh is _MISSING:
        return "no such field", _render(saved)
    if saved is _MISSING:
        return _render(fresh), "no such field"
    if isinstance(fresh, str) and isinstance(saved, str):
        at = next(
            (i for i, (x, y) in enumerate(zip(fresh, saved, strict=False)) if x != y),
            min(len(fresh), len(saved)),
        )
        start = max(0, at - 30)
        a, b = _window(fresh, start), _window(saved, start)
        if start:
            a, b = f"...{a}", f"...{b}"
        note = (
            f" (they first differ at character {at + 1})"
            if len(fresh) > 60 or len(saved) > 60
            else ""
        )
        return a, b + note
    a, b = _render(fresh), _render(saved)
    if a == b:  # cannot happen for JSON values that differ; kept so no message ever lies
        a, b = f"{a} ({type(fresh).__name__})", f"{b} ({type(saved).__name__})"
    return a, b


def _window(text: str, start: int) -> str:
    piece = text[start : start + 70]
    shown = json.dumps(piece, ensure_ascii=True)
    return shown if start + 70 >= len(text) else shown[:-1] + '..."'


def _render(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    text = json.dumps(value, ensure_ascii=True, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."


def _label(a: Any, b: Any, index: int) -> str:
    for item in (a, b):
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            return item["name"]
    return str(index)


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."

"""The kinds of thing an action's words can be: what usage shows, how the parser reads one, and
which of the world's names it must be.

The parser reads the shape (a whole number, a duration, a priority class, a setting's value)
with no world at hand, so `drill validate` can check a reference line the same way. Whether a
named node, job or volume exists is checked when the action runs, and statically against the
incident's names, from `ArgType.names`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from drill.engine.actions.errors import Reject, unknown
from drill.engine.actions.settings import SETTINGS
from drill.incident.models import PRIORITY_RANK
from drill.values.units import UnitError, parse_duration, parse_size

# A reader gets the word, the label its messages use, and the values read before it on the line
# (a setting's VALUE depends on its KEY). It returns the typed value or raises Reject.
Reader = Callable[[str, str, Mapping[str, Any]], Any]


@dataclass(frozen=True)
class ArgType:
    shown: str  # how usage writes it: NODE, STEP|latest|scratch, +SIZE
    names: str | None = None  # "node", "leaf", "job", "volume", "page": a name the world has
    read: Reader | None = None  # None: the word as typed
    rest: bool = False  # takes every word to the end of the line (free text, a verb name)
    many: bool = False  # a comma-separated list, like NODE,...
    spares: bool = False  # a node name may be a spare (an exclude list may name one)


def whole_number(text: str, what: str, low: int = 0, high: int = 10**9) -> int:
    try:
        value = int(text)
    except ValueError:
        raise Reject(f"{what} must be a whole number, got {text!r}") from None
    if not low <= value <= high:
        raise Reject(f"{what} must be between {low} and {high}, got {value}")
    return value


def _integer(text: str, what: str, earlier: Mapping[str, Any]) -> int:
    """Any whole number; its range depends on the world, so the handler checks it."""
    return whole_number(text, what, -(10**9), 10**9)


def _step(text: str, what: str, earlier: Mapping[str, Any]) -> int:
    return whole_number(text, what, 0)


def _keep(text: str, what: str, earlier: Mapping[str, Any]) -> int:
    return whole_number(text, what, 1, 100)


def _resume_point(text: str, what: str, earlier: Mapping[str, Any]) -> int | str:
    if text in ("latest", "scratch"):
        return text
    try:
        int(text)
    except ValueError:  # `latets`: the words are allowed too, so say them
        raise Reject(f"{what} must be a step number, latest or scratch, got {text!r}") from None
    return whole_number(text, what, -(10**9), 10**9)


def _batch_range(text: str, what: str, earlier: Mapping[str, Any]) -> tuple[int, int]:
    """A range of batches, both ends included, as A-B (or one batch, A)."""
    first, sep, last = text.partition("-")
    a = whole_number(first, what, 0)
    b = whole_number(last, what, 0) if sep else a
    if b < a:
        raise Reject(f"{what} must be A-B with A at most B, got {text!r}")
    return a, b


def _duration(text: str, what: str, earlier: Mapping[str, Any]) -> float:
    try:
        seconds = parse_duration(text)
    except UnitError as exc:
        raise Reject(str(exc)) from None
    if not 0 < seconds <= 12 * 3600:
        raise Reject(f"{what} between 1s and 12h, like `wait 5m`")
    return seconds


# What fast-forward can run the night to (drill/engine/signals.py says what counts as one).
SIGNALS = ("page",)


def _signal(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    word = text.lower()
    if word not in SIGNALS:
        raise Reject(f"{what} takes {' or '.join(SIGNALS)}, got {text!r}")
    return word


def _priority_class(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    if text not in PRIORITY_RANK:
        raise unknown("priority class", text, PRIORITY_RANK)
    return text


def _setting_key(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    key = text.lower()
    if key not in SETTINGS:
        raise unknown("setting", key, SETTINGS)
    return key


def _setting_value(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    value = text.lower()
    setting = SETTINGS.get(earlier.get("key") or "")
    if setting is not None:  # a key that is a stand-in is checked when it is filled in
        setting.read(value)
    return value


def _size_increase(text: str, what: str, earlier: Mapping[str, Any]) -> int:
    if not text.startswith("+"):
        raise Reject("ask for an increase with a plus sign, like `quota scratch +2TB`")
    try:
        extra = parse_size(text[1:])
    except UnitError as exc:
        raise Reject(str(exc)) from None
    if extra <= 0:
        raise Reject("ask for a positive increase, like +2TB")
    return extra


def _service(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    """A systemd unit as `systemctl status` takes it: `slurmd` or `slurmd.service`. Whether the
    node has it is the node's answer, not a refusal: systemctl prints that it is not found."""
    return text.removesuffix(".service")


NODE = ArgType("NODE", names="node")
LEAF = ArgType("LEAF", names="leaf")
NODES = ArgType("NODE,...", names="node", many=True, spares=True)
JOB = ArgType("JOB", names="job")
VOLUME = ArgType("VOLUME", names="volume")
PAGE = ArgType("ALERT|all", names="page")
STEP = ArgType("STEP", read=_step)
RESUME = ArgType("STEP|latest|scratch", read=_resume_point)
NUMBER = ArgType("N", read=_integer)
PID = ArgType("PID", read=_integer)
BATCHES = ArgType("A-B", read=_batch_range)
KEEP = ArgType("N", read=_keep)
DURATION = ArgType("DURATION", read=_duration)
CLASS = ArgType("CLASS", read=_priority_class)
KEY = ArgType("KEY", read=_setting_key)
VALUE = ArgType("VALUE", read=_setting_value)
SIZE = ArgType("+SIZE", read=_size_increase)
TEXT = ArgType("TEXT", rest=True)
SIGNAL = ArgType("|".join(SIGNALS), read=_signal)
SERVICE = ArgType("SERVICE", read=_service)

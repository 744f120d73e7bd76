"""The value types incident files are written in: durations, moments, sizes, rates, names, text.

Shared by the incident models and the fault kinds (drill/faults), so both speak the same units
and every field documents itself in the JSON Schema editors use.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from drill.values import units

NAME_PATTERN = r"^[a-z0-9][a-z0-9-]{0,39}$"
MAX_TEXT = 4000


def _duration(value: Any) -> float:
    try:
        return units.parse_duration(value)
    except units.UnitError as exc:
        raise ValueError(str(exc)) from None


def _offset(value: Any) -> float | str:
    """A moment of the night: a clock time ('03:12') kept as text, or a duration from the start."""
    if isinstance(value, str) and ":" in value:
        try:
            units.parse_clock(value)
        except units.UnitError as exc:
            raise ValueError(str(exc)) from None
        return value
    return _duration(value)


def _size(value: Any) -> int:
    try:
        return units.parse_size(value)
    except units.UnitError as exc:
        raise ValueError(str(exc)) from None


def _rate(value: Any) -> float:
    try:
        return units.parse_rate(value)
    except units.UnitError as exc:
        raise ValueError(str(exc)) from None


Duration = Annotated[
    float,
    BeforeValidator(_duration),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": r"^(\d+(\.\d+)?[smhd])+$"},
                {"type": "number", "minimum": 0},
            ],
            "description": units.DURATION_HELP,
        }
    ),
]
Moment = Annotated[
    float | str,
    BeforeValidator(_offset),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": r"^(\d{1,2}:\d{2}(:\d{2})?|(\d+(\.\d+)?[smhd])+)$"},
                {"type": "number", "minimum": 0},
            ],
            "description": f"{units.CLOCK_HELP}, or {units.DURATION_HELP} after the night starts",
        }
    ),
]
Size = Annotated[
    int,
    BeforeValidator(_size),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "string", "pattern": r"^\d+(\.\d+)? ?[KMGTP]?i?B$"},
                {"type": "integer", "minimum": 0},
            ],
            "description": units.SIZE_HELP,
        }
    ),
]
Rate = Annotated[
    float,
    BeforeValidator(_rate),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\d+(\.\d+)? ?[KMGTP]?i?B/[smh]$",
            "description": units.RATE_HELP,
        }
    ),
]
Name = Annotated[str, Field(pattern=NAME_PATTERN, description="lower case letters, digits, -")]
Text = Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
PriorityClass = Literal["low", "normal", "high", "urgent"]
PRIORITY_RANK = {"low": 0, "normal": 1, "high": 2, "urgent": 3}


def located(message: str, *at: str | int) -> PydanticCustomError:
    """A whole-model error that names where in the file it belongs.

    A model validator's error has the model's own place as its loc, which for the top level is
    line 1. `at` is the key path, relative to the model, of the value the error is really about
    (the second job with a used name, say); pydantic_errors puts the problem there.
    """
    return PydanticCustomError("located", message, {"at": at})


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

"""Declared settings for a replica: names, types, defaults and the bounds a night can run.

A replica's factory gets the incident's `replica:` block as a plain dict. Declaring its settings
with `Setting` and reading them with `read_settings` gives every replica the same messages: an
unknown key is named with the known ones, and a value out of bounds is named with its bound.
No torch here, so `drill validate` can check a shipped replica's settings cheaply.

    SETTINGS = (
        Setting("hidden", 32, 1, 512, "units per hidden layer"),
        Setting("lr", 0.01, 1e-6, 1.0, "AdamW learning rate"),
    )

    def make(settings):
        s = read_settings(settings, SETTINGS)
        ...
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Setting:
    name: str
    default: int | float
    low: int | float
    high: int | float
    what: str = ""

    @property
    def is_float(self) -> bool:
        return isinstance(self.default, float)


def read_settings(given: Mapping[str, Any], declared: Sequence[Setting]) -> dict[str, Any]:
    """Every declared setting, from `given` or its default. ValueError names the setting."""
    known = {s.name: s for s in declared}
    for key in given:
        if key not in known:
            raise ValueError(
                f"unknown replica setting {key!r}; known: {', '.join(sorted(known)) or 'none'}"
            )
    out: dict[str, Any] = {}
    for setting in declared:
        value = given.get(setting.name, setting.default)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"replica setting {setting.name} must be a number, got {value!r}")
        if not setting.is_float and not isinstance(value, int):
            raise ValueError(
                f"replica setting {setting.name} must be a whole number, got {value!r}"
            )
        if not setting.low <= value <= setting.high:
            raise ValueError(
                f"replica setting {setting.name} is {value!r}; a night on this machine can run"
                f" {setting.low} to {setting.high}"
            )
        out[setting.name] = float(value) if setting.is_float else int(value)
    return out

"""How `set` reads the declared job settings (drill/incident/job_settings.py), and the pre-shift
plan's limits.

`plan_refusal` is the one statement of what a plan allows: the `set` handler refuses with it at
run time and `drill validate` reports it at the reference or runbook line that would be refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.engine.actions.errors import Reject
from drill.incident.job_settings import CKPT_EVERY, JOB_SETTINGS, JobSetting

if TYPE_CHECKING:
    from drill.incident.models import Plan

FLAG_WORDS = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}
MAX_EVERY = CKPT_EVERY.high


def _number(key: str, low: int, high: int) -> Callable[[str], int]:
    def read(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise Reject(f"{key} must be a whole number, got {value!r}") from None
        if not low <= number <= high:
            raise Reject(f"{key} must be between {low} and {high}, got {number}")
        return number

    return read


def _flag(key: str) -> Callable[[str], bool]:
    def read(value: str) -> bool:
        if value not in FLAG_WORDS:
            raise Reject(f"{key} takes yes or no, got {value!r}")
        return FLAG_WORDS[value]

    return read


@dataclass(frozen=True)
class Setting:
    """A declared job setting (drill/incident/job_settings.py) as `set` reads it."""

    declared: JobSetting
    read: Callable[[str], int | bool]  # the typed value, or Reject

    @property
    def key(self) -> str:
        return self.declared.key

    @property
    def policy_field(self) -> str:  # the attribute of the job's CheckpointPolicy it changes
        return self.declared.field

    @property
    def flag(self) -> bool:  # a yes or no answer
        return self.declared.flag

    @property
    def choices(self) -> tuple[str, ...]:
        return ("yes", "no") if self.flag else ()


def _setting(declared: JobSetting) -> Setting:
    if declared.flag:
        return Setting(declared, _flag(declared.key))
    return Setting(declared, _number(declared.key, declared.low, declared.high))


SETTINGS: dict[str, Setting] = {key: _setting(s) for key, s in JOB_SETTINGS.items()}


def plan_refusal(plan: Plan | None, job: str, key: str, value: str) -> str | None:
    """Why the incident's plan refuses `set JOB KEY VALUE`, or None when it allows it. With a
    plan for this job, only its settings can change, and only inside its ranges."""
    if plan is None or plan.job != job:
        return None
    if key not in plan.choices:
        allowed = ", ".join(sorted(plan.choices)) or "none"
        return f"this incident lets you choose {allowed} for {job}, not {key}"
    choice = plan.choices[key]
    if choice.allowed is not None:
        word = {"true": "yes", "on": "yes", "false": "no", "off": "no"}.get(value, value)
        if word not in choice.allowed:
            return f"{key} can be {' or '.join(choice.allowed)} here, not {value!r}"
        return None
    try:
        number = int(value)
    except ValueError:
        return f"{key} must be a whole number, got {value!r}"
    if not (choice.min or 1) <= number <= (choice.max or MAX_EVERY):
        return f"{key} {number} is outside the plan's range {choice.min} to {choice.max}"
    return None

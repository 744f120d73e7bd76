"""The job settings `set` can change, what values each takes, and the pre-shift plan's limits.

`plan_refusal` is the one statement of what a plan allows: the `set` handler refuses with it at
run time and `drill validate` reports it at the reference or runbook line that would be refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.engine.actions.errors import Reject

if TYPE_CHECKING:
    from drill.incident.models import Plan

FLAG_WORDS = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}
MAX_EVERY = 100000


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
    key: str
    meaning: str
    policy_field: str  # the attribute of the job's CheckpointPolicy it changes
    read: Callable[[str], int | bool]  # the typed value, or Reject
    flag: bool = False  # a yes or no answer

    @property
    def choices(self) -> tuple[str, ...]:
        return ("yes", "no") if self.flag else ()


SETTINGS: dict[str, Setting] = {
    s.key: s
    for s in [
        Setting(
            "ckpt-every", "checkpoint every N steps", "every", _number("ckpt-every", 1, MAX_EVERY)
        ),
        Setting("ckpt-keep", "keep the newest N checkpoints", "keep", _number("ckpt-keep", 1, 100)),
        Setting(
            "ckpt-on-sigterm",
            "write a checkpoint in the preemption grace window (yes or no)",
            "on_sigterm",
            _flag("ckpt-on-sigterm"),
            flag=True,
        ),
        Setting(
            "verify-on-resume",
            "check the sha256 before loading on resume (yes or no)",
            "verify_on_resume",
            _flag("verify-on-resume"),
            flag=True,
        ),
    ]
}


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

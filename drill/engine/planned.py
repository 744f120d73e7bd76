"""What the pre-shift plan chose, read back from a night's actions: the runbook's cadence advice
and the season played with the learner's cadence both ask here, by the declared setting."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from drill.engine.actions.catalog import VERBS
from drill.engine.actions.errors import Reject
from drill.engine.actions.parser import parse
from drill.engine.actions.settings import SETTINGS
from drill.incident.job_settings import JobSetting


def planned(actions: Iterable[Any], setting: JobSetting, default: int | bool) -> int | bool:
    """The value the plan chose for a setting: a plan verb's accepted line at the night's start
    (time 0) that sets it, the last one winning; `default` when none does."""
    value = default
    for action in actions:
        if not (action.accepted and action.time == 0):
            continue
        try:
            command = parse(action.text)
            if VERBS[command.verb].plan and command.values.get("key") == setting.key:
                value = SETTINGS[setting.key].read(command.values["value"])
        except Reject:
            continue  # a save from an engine that read the line differently
    return value

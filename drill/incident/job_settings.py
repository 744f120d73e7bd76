"""The job settings a learner can change, declared once: `set JOB KEY VALUE` at night, and the
pre-shift plan before it.

Each declares its key (what `set` and a plan's `choices` say), the field it changes (of the
job's `checkpoint:` block and of its live CheckpointPolicy, which share names), its type by its
default (a number, or yes or no), its range, the incident file's default, the help `set` gives
and the words the plan screen and the runbook use for it. Everything else derives from here:
the incident schema's plan keys and the checkpoint fields' defaults and ranges
(drill/incident/models.py), `set`'s parsing, validation, help and completion
(drill/engine/actions/settings.py and catalog.py), `drill validate`'s plan check, the plan
screen, and reading a plan back from a save (drill/engine/planned.py, for the runbook and the
season).

It lives in the incident layer, the lowest that needs it: the incident models are built from
it, and they may not import the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class JobSetting:
    key: str  # "ckpt-every": the word `set` and the plan use
    field: str  # "every": the attribute of the checkpoint block and the live policy
    help: str  # what `set`'s help and its refusals call it
    label: str  # the plan screen's label and the runbook's words for it
    default: int | bool  # the incident file's default; a bool makes it a yes or no setting
    low: int = 0  # a number's smallest and largest value
    high: int = 0

    @property
    def flag(self) -> bool:
        return isinstance(self.default, bool)

    def value(self, checkpoint: Any) -> int | bool:
        """Its value in a checkpoint block or a live policy."""
        return getattr(checkpoint, self.field)

    def word(self, value: int | bool) -> str:
        """A value as `set` takes it: a number, or yes or no."""
        return ("yes" if value else "no") if self.flag else str(value)


CKPT_EVERY = JobSetting(
    "ckpt-every", "every", "checkpoint every N steps", "Checkpoint every N steps", 50, 1, 100000
)
CKPT_KEEP = JobSetting(
    "ckpt-keep", "keep", "keep the newest N checkpoints", "Checkpoints to keep", 3, 1, 100
)
CKPT_ON_SIGTERM = JobSetting(
    "ckpt-on-sigterm",
    "on_sigterm",
    "write a checkpoint in the preemption grace window",
    "Checkpoint on SIGTERM",
    False,
)
VERIFY_ON_RESUME = JobSetting(
    "verify-on-resume",
    "verify_on_resume",
    "check the sha256 before loading on resume",
    "Verify before resuming",
    False,
)

JOB_SETTINGS: dict[str, JobSetting] = {
    s.key: s for s in (CKPT_EVERY, CKPT_KEEP, CKPT_ON_SIGTERM, VERIFY_ON_RESUME)
}
KEYS = tuple(JOB_SETTINGS)
NUMBER_KEYS = tuple(k for k, s in JOB_SETTINGS.items() if not s.flag)
FLAG_KEYS = tuple(k for k, s in JOB_SETTINGS.items() if s.flag)
# The widest range any number setting takes: a plan's `min` and `max` live inside it.
MAX_NUMBER = max(s.high for s in JOB_SETTINGS.values())

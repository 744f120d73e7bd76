"""The runbook's sections, declared once: their order, their titles, the question the debrief
asks for each, and which score components file their advice under each. Which verbs belong to
a section is declared on each verb (drill/engine/actions/catalog.py, `section=`).

The runbook document (drill/runbook.py), the debrief's runbook questions and the save's keys for
the learner's own words (`runbook.<section>`) all derive from here, so none of them names a
section.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Section(StrEnum):
    """A runbook section: where a verb's actions and a score component's advice are filed."""

    QUEUE = "queue"
    HEALTH = "health"
    CHECKPOINT = "checkpoint"
    NIGHT = "3am"


@dataclass(frozen=True)
class RunbookSection:
    section: Section
    title: str  # the heading in the runbook document
    short: str  # the label of its question in the debrief
    prompt: str  # the debrief's question
    components: tuple[str, ...] = ()  # score components whose advice goes here

    @property
    def save_key(self) -> str:
        """The key the save keeps the learner's own words for this section under."""
        return f"runbook.{self.section.value}"


RUNBOOK_SECTIONS: tuple[RunbookSection, ...] = (
    RunbookSection(
        Section.QUEUE,
        "Queue",
        "Queue",
        "How do you read the queue? What makes a job pend, and what do you do about it?",
        components=("recovered", "collateral"),
    ),
    RunbookSection(
        Section.HEALTH,
        "Health",
        "Health",
        "Which signals tell you a node or a GPU is bad, and what do you check first?",
        components=("discipline",),
    ),
    RunbookSection(
        Section.CHECKPOINT,
        "Checkpoint",
        "Checkpoint",
        "How often do you checkpoint, how many do you keep, and how do you trust one?",
        components=("progress", "plan", "integrity"),
    ),
    RunbookSection(
        Section.NIGHT,
        "What you do at 3am",
        "At 3am",
        "The first five minutes after a page, in order.",
        components=("time_to_recovery",),
    ),
)

# The section a score component's advice is filed under; a component not listed has none.
COMPONENT_SECTION: dict[str, Section] = {
    name: s.section for s in RUNBOOK_SECTIONS for name in s.components
}

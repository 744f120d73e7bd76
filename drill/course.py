"""The lesson this game belongs to: shown by the briefing, the header, the report and the runbook."""

from __future__ import annotations

COURSE = "Edge FDE"
PHASE = "Phase 6 Systems"
LESSON = "lesson 11: Cluster orchestration"
SHORT = f"{COURSE}, {LESSON}"

PRINCIPLE = (
    "You do not need to pretrain an 800B model to understand the shape of the problem. "
    "You do need progressively realistic replicas."
)

KEY_CONCEPTS = (
    "Orchestration is submit, place, run, checkpoint, reclaim, retry.",
    "Multi-GPU jobs need a fabric and a gang, not just more cards.",
    "Storage and quotas kill runs as often as kernels do.",
    "A runbook is part of the replica.",
)

RUNBOOK_SECTIONS = (
    (
        "runbook.queue",
        "Queue",
        "How do you read the queue? What makes a job pend, and what do you do about it?",
    ),
    (
        "runbook.health",
        "Health",
        "Which signals tell you a node or a GPU is bad, and what do you check first?",
    ),
    (
        "runbook.checkpoint",
        "Checkpoint",
        "How often do you checkpoint, how many do you keep, and how do you trust one?",
    ),
    ("runbook.3am", "At 3am", "The first five minutes after a page, in order."),
)

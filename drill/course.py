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
    # Not "as often as kernels do": in the published 54-day account GPUs were most of the
    # interruptions and storage barely shows (drill/values/failure_account.py).
    "Most interruptions at scale are GPU faults; a full volume or a cut quota is rarer,"
    " but no retry gets a run past it.",
    "A runbook is part of the replica.",
)

"""The course's key concepts say only what the data behind the game supports (audit row 46)."""

from __future__ import annotations

from drill.course import KEY_CONCEPTS
from drill.values.failure_account import PUBLISHED


def test_no_concept_claims_storage_fails_runs_as_often_as_gpus():
    text = " ".join(KEY_CONCEPTS)
    assert "as often as kernels" not in text
    # What the concept says instead is what the published account shows: GPUs are most of it.
    gpu = PUBLISHED["gpu"][0] + PUBLISHED["gpu_memory"][0]
    assert gpu > 50.0
    assert any("Most interruptions at scale are GPU faults" in c for c in KEY_CONCEPTS)
    assert "\u2014" not in text

"""The engine's replica backend counts what the files say, not what the simulation meant:
a flipped checkpoint loaded without verify is "corrupt loaded" because its bytes do not hash to
the manifest, whatever label the simulation passed along."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.engine.replica_training import ReplicaTraining
from tests.drillkit import build, job_spec

SMALL = {"width": 16, "context": 16, "global_batch": 8}


@pytest.fixture
def training(tmp_path: Path):
    incident = build(jobs=[job_spec("train", yours=True, steps=12, replica=SMALL)])
    t = ReplicaTraining(incident, cache_dir=tmp_path / "cache")
    yield t
    t.close()


def _train_to(t: ReplicaTraining, step: int) -> None:
    while t.trainer.step < step:
        t.step("train")


def test_corrupt_loaded_is_counted_from_the_bytes_not_the_label(training) -> None:
    t = training
    assert t.start("train", from_step=None, condition="ok", world=16, verify=False).ok
    _train_to(t, 4)
    t.save("train", 4, atomic=True, fail_fraction=None)
    _train_to(t, 8)
    t.save("train", 8, atomic=True, fail_fraction=None)
    # Flipped behind the simulation's back: it still labels step 8 "ok".
    t.store.corrupt(8, seed=5)
    outcome = t.start("train", from_step=8, condition="ok", world=16, verify=False)
    assert outcome.ok and outcome.poisoned
    assert (t.checkpoints_loaded, t.corrupt_loaded) == (1, 1)
    # Labelled "corrupt" but intact: nothing bad was loaded, so nothing is counted.
    outcome = t.start("train", from_step=4, condition="corrupt", world=16, verify=False)
    assert outcome.ok and not outcome.poisoned
    assert (t.checkpoints_loaded, t.corrupt_loaded) == (2, 1)
    # With verify the flipped file is refused and counted as caught, labelled "ok" or not.
    outcome = t.start("train", from_step=8, condition="ok", world=16, verify=True)
    assert not outcome.ok and "sha256 mismatch" in outcome.message
    assert t.corrupt_detected == 1
    ok, reason = t.verify("train", 8, "ok")
    assert not ok and t.corrupt_detected == 2
    assert t.verify("train", 4, "corrupt") == (True, t.store.verify(4).reason)
    assert t.corrupt_detected == 2


def test_the_report_carries_the_curves_and_what_verifies_on_disk(training) -> None:
    t = training
    t.start("train", from_step=None, condition="ok", world=16, verify=False)
    _train_to(t, 6)
    t.save("train", 6, atomic=True, fail_fraction=None)
    _train_to(t, 9)
    t.save("train", 9, atomic=True, fail_fraction=None)
    t.store.corrupt(9, seed=1)
    # A restart from step 6: the lineage is the checkpoint's six steps, then the new ones.
    t.start("train", from_step=6, condition="ok", world=16, verify=True)
    _train_to(t, 12)
    report = t.report(12)
    assert report.replica == "addition-gpt" and report.corrupt_loaded == 0
    assert report.final_step == 12 and len(report.loss_curve) == 12
    assert report.loss_curve[-1] == report.final_loss
    assert report.match == "bitexact" and report.final_loss == report.baseline_loss
    baseline = t.baseline_losses()
    assert list(report.loss_curve) == baseline  # resumed bit for bit: the same curve
    assert report.verified_steps == (6,) and report.newest_verified_step == 6
    assert list(report.verified_loss_curve) == baseline[:6]
    assert report.steps_recomputed == 3  # steps 7 to 9 were trained twice
    assert report.to_json()["newest_verified_step"] == 6
    assert t.verified_checkpoints() == [6]
    detected = t.corrupt_detected
    assert t.verify_on_disk("train", 6) and not t.verify_on_disk("train", 9)
    assert not t.verify_on_disk("train", 3)  # never written
    assert t.corrupt_detected == detected  # the score asking is not the learner catching

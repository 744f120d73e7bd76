"""A learner's replica whose loss plateaus is scored on the steps it trained, not on where its
flat loss first appears on the undisturbed curve (audit defect 7).

The night is no-room-for-the-gang's reference: the job runs on half its GPUs (`--world 8`), so
its weights end close to the undisturbed run's, not bit for bit, and the score has to read the
loss. The same actions with the sim backend count the steps; a replica that plateaus must come
to the same progress."""

from __future__ import annotations

import json

from drill.engine.scoring.progress import smoothed, step_for_loss
from tests.clikit import run_drill

PLATEAU = "tests.replica.plateau_replica:make"


def _progress(tmp_path, *options: str) -> tuple[dict, dict]:
    done = run_drill(
        "run", "no-room-for-the-gang", "--reference", "--json",
        "--saves-dir", str(tmp_path / "saves"), "--save", str(tmp_path / "night.jsonl"),
        *options,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    parts = {c["name"]: c for c in data["score"]["components"]}
    return data, parts["progress"]


def test_a_plateauing_replica_whose_weights_match_makes_the_progress_the_sim_counts(tmp_path):
    from replica.interface import load_replica
    from replica.trainer import Trainer

    data, mine = _progress(tmp_path / "replica", "--replica", PLATEAU)
    replica = data["replica"]
    assert replica["match"] == "close", replica  # the loss is read, not the weights
    final = replica["final_step"]
    # The replica plateaus: read on the curve alone, its loss lands far from its own step.
    baseline = Trainer(load_replica(PLATEAU, {})).train(300)
    by_step = {k + 1: loss for k, loss in enumerate(baseline)}
    assert abs(step_for_loss(baseline, smoothed(by_step, final)) - final) > 50
    _, counted = _progress(tmp_path / "sim", "--backend", "sim")
    # The same night, the same progress, within a step of rounding.
    assert abs(mine["value"]["steps_behind"] - counted["value"]["steps_behind"]) <= 1
    assert f"the {final} steps it trained" in mine["why"]
    assert "cannot tell those steps apart" in mine["why"]

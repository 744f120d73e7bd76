"""gpu_sdc: a GPU that computes wrong results with no Xid. Its fields are refused at their line;
nothing but the loss and the training script's NaN check says so; the script stops after
`nan_after` steps on the GPU; a restart on the same GPU corrupts again and one off its node does
not; with the replica the damage is real, deterministic, and kept in the checkpoint written
meanwhile (which still verifies); `diag` names the GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.engine.actions import dispatch
from drill.engine.actions.parser import parse
from drill.engine.drill import Drill
from drill.engine.replica_training import ReplicaTraining
from drill.sim.jobs import FAILED
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, learner_outputs, refused

SMALL = {"width": 16, "context": 16, "global_batch": 8}
# Fires at 03:06 (360 s): the job (start-up 60 s, rendezvous 30 s, 10 s steps, a 20 s write at
# step 20) is finishing step 25, so steps 25 to 44 run on the GPU, checkpoint 40 is written in
# the middle, and the loss of step 45 is NaN (at 580 s, after the write at step 40).
SDC = {
    "id": "zz-secret-fault",
    "kind": "gpu_sdc",
    "at": "6m",
    "nan_after": 20,
    "target": {"job": "train"},
}
NAN_AT = 60 + 30 + 10 * 45 + 20 * 2  # the NaN step; the launcher notices within a minute
FAILS_AT = NAN_AT + 60


def _incident(steps: int = 120, replica: dict | None = None):
    spec = job_spec("train", yours=True, steps=steps, **({"replica": replica} if replica else {}))
    return build(jobs=[spec], faults=[dict(SDC)], length="2h")


def _pick(d: Drill):
    [pick] = d.world.faults.chosen[SDC["id"]]
    return pick


@pytest.mark.parametrize(
    ("change", "marker", "words"),
    [
        ({"nan_after": 1}, "nan_after: 1", "at least 2, got 1"),
        ({"nan_after": 20_000}, "nan_after: 20000", "at most 10000"),
        ({"target": {"job": "trian"}}, "trian", "no job named 'trian'"),
    ],
)
def test_each_wrong_field_is_refused_at_its_line(tmp_path, change, marker, words) -> None:
    problem, line = refused(tmp_path, marker, faults=[{**SDC, **change}])
    assert problem.line == line, problem
    assert words in problem.message, problem.message


def test_the_script_stops_on_a_nan_after_nan_after_steps_and_nothing_else_tells() -> None:
    d = drill(_incident())
    d.advance(NAN_AT - 5)
    job = d.learner_job
    assert job.training and job.step == 44 and job.current.wrong_steps == 20
    assert not d.world.pager.alerts  # no Xid, no ECC, no page until the job stops
    pick = _pick(d)
    outputs = learner_outputs(d, "train", [str(pick.node)])
    outputs[f"gpus {pick.node}"] = dispatch.run(d.ctx, parse(f"gpus {pick.node}"))[0]
    assert "Xid" not in outputs[f"health {pick.node}"], outputs
    assert "HW Slowdown" not in outputs[f"gpus {pick.node}"]
    assert_no_fault_names(outputs)
    d.advance(65)
    assert job.state == FAILED
    assert "[rank0]: RuntimeError: loss is nan at step 45" in d.act("logs train --rank 0").output
    # The sim's estimate: checkpoint 40 was written by a model trained on the GPU, 20 was not.
    assert job.checkpoints.get(40).poisoned_from == 40
    assert job.checkpoints.get(20).poisoned_from is None


@pytest.mark.parametrize(("off_the_node", "fails_again"), [(False, True), (True, False)])
def test_a_restart_on_the_same_gpu_corrupts_again_and_one_off_its_node_does_not(
    off_the_node, fails_again
) -> None:
    d = drill(_incident())
    d.advance(FAILS_AT)
    node = str(_pick(d).node)
    line = "restart train --from 20" + (f" --exclude {node}" if off_the_node else "")
    assert d.act(line).accepted
    d.advance(60 + 30 + 45 + 10 * 30)
    attempt = d.learner_job.attempts[-1]
    assert (node in attempt.nodes) == fails_again
    assert attempt.wrong_steps == (20 if fails_again else 0)
    assert attempt.poisoned_from is None if not fails_again else attempt.poisoned_from == 40
    assert (d.learner_job.state == FAILED) == fails_again


def test_diag_fails_the_gpu_and_only_once_the_node_is_free() -> None:
    d = drill(_incident())
    d.advance(400)
    pick = _pick(d)
    busy = d.act(f"diag {pick.node}")
    assert not busy.accepted and "is running train" in busy.output
    d.advance(FAILS_AT)
    out = d.act(f"diag {pick.node}")
    assert out.accepted and out.end - out.time == 240
    assert f"Fail - GPU: {pick.gpu}" in out.output
    assert f"Warning                     | GPU {pick.gpu}: matrix multiply" in out.output
    others = ", ".join(str(g) for g in range(8) if g != pick.gpu)
    assert f"Pass - GPUs: {others}" in out.output
    clean = next(n for n in d.world.cluster.nodes if n != pick.node and n.startswith("gpu-"))
    assert "Pass - GPUs: 0, 1, 2, 3, 4, 5, 6, 7" in d.act(f"diag {clean}").output
    assert "Fail" not in d.act(f"diag {clean}").output


def test_the_gloo_backend_refuses_a_night_with_a_wrong_gpu_in_one_line() -> None:
    from drill.engine.gloo_training import GlooTraining
    from replica.errors import ReplicaRefused

    with pytest.raises(ReplicaRefused, match="does not carry a GPU's wrong results"):
        GlooTraining(_incident())


def _replica_night(tmp_path: Path, seed: int, lines: list[str] = ()):
    incident = _incident(replica=SMALL)
    training = ReplicaTraining(incident, cache_dir=tmp_path / "cache")
    d = Drill(incident, seed, training=training, backend="inprocess")
    d.advance(FAILS_AT)
    for line in lines:
        assert d.act(line.replace("NODE", str(_pick(d).node))).accepted, line
    return d, training


def test_the_replica_trains_on_the_wrong_results_and_the_checkpoint_keeps_them(tmp_path):
    from replica.match import weights_digest
    from replica.ranks import replica_rank_for

    d, training = _replica_night(tmp_path, 1)
    pick = _pick(d)
    rank, _seed = training.trainer.wrong_rank
    assert rank == replica_rank_for(int(pick.rank), 16, training.trainer.world_size)
    losses = dict(d.learner_job.losses)
    baseline = training.baseline_losses()
    # The loss leaves the undisturbed curve while the job runs on the GPU, not before.
    assert losses[24] == baseline[23]
    assert losses[44] > baseline[43] + 0.05, (losses[44], baseline[43])
    # Checkpoint 40 verifies (its bytes are the ones written) and holds other weights than the
    # undisturbed run's step 40; checkpoint 20 is the undisturbed run's, bit for bit.
    assert training.verify_on_disk("train", 40)
    kept = training._baseline(keep=[20, 40])
    saved = {s: training.store.load(s, verify=True)["model"] for s in (20, 40)}
    assert weights_digest(saved[20]) == weights_digest(kept.weights[20])
    assert weights_digest(saved[40]) != weights_digest(kept.weights[40])
    training.close()


def test_the_damage_follows_the_night_seed_bit_for_bit(tmp_path):
    from replica.match import weights_digest

    digests, seeds = [], []
    for n, seed in enumerate((1, 1, 2)):
        d, training = _replica_night(tmp_path / str(n), seed)
        digests.append(weights_digest(training.store.load(40, verify=True)["model"]))
        seeds.append(training.trainer.wrong_rank[1])
        training.close()
    assert digests[0] == digests[1] != digests[2]
    assert seeds[0] == seeds[1] != seeds[2]  # the error itself, not only the GPU, is drawn


def test_a_restart_before_the_climb_off_the_node_rejoins_the_undisturbed_run(tmp_path):
    d, training = _replica_night(tmp_path, 1, ["restart train --from 20 --exclude NODE"])
    d.advance(3 * 3600)
    report = training.report(d.learner_job.step)
    assert d.learner_job.state == "completed" and report.match == "bitexact", report
    training.close()


def test_draining_the_node_of_a_wrong_gpu_takes_no_healthy_node() -> None:
    d = drill(_incident())
    d.advance(FAILS_AT)
    node = str(_pick(d).node)
    assert d.act(f"drain {node}").accepted
    assert d.world.cluster.nodes[node].taken_healthy_at is None

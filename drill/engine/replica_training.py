"""The in-process replica behind the simulated training job.

The simulation decides when a step completes, when a checkpoint is written and which one a
restart loads; this adapter makes each of those real: a real torch step, a real file written
the way the job's settings say, a real load that fails the way torch fails. It imports the
replica (and so torch) only when it is built, so nothing that merely plays with the rules pays
for torch.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drill.engine.temp_dirs import make_temp_dir
from drill.incident.models import Incident
from drill.sim.training import LoadOutcome


@dataclass(frozen=True)
class ReplicaReport:
    final_step: int
    final_loss: float | None
    baseline_loss: float | None
    steps_recomputed: int
    checkpoints_written: int
    checkpoints_loaded: int
    corrupt_detected: int
    corrupt_loaded: int
    match: str | None
    rel_l2: float | None
    backend: str = "inprocess"

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "final_step": self.final_step,
            "final_loss": self.final_loss,
            "baseline_loss": self.baseline_loss,
            "steps_recomputed": self.steps_recomputed,
            "checkpoints_written": self.checkpoints_written,
            "checkpoints_loaded": self.checkpoints_loaded,
            "corrupt_detected": self.corrupt_detected,
            "corrupt_loaded": self.corrupt_loaded,
            "match": self.match,
            "rel_l2": self.rel_l2,
        }


class ReplicaTraining:
    """A TrainingBackend that trains the learner's job for real; other jobs only count.

    This one runs every rank in this process. GlooTraining (gloo_training.py) runs them as real
    processes through the same steps below, overriding only the handful of `_` methods.
    """

    backend = "inprocess"

    def __init__(
        self, incident: Incident, *, cache_dir: Path | None = None, ranks: int | None = None
    ):
        from replica.checkpoint import CheckpointStore
        from replica.config import ReplicaConfig

        spec = incident.learner_job
        self.job = spec.name
        self.job_width = spec.gpus
        self.steps = spec.steps
        self.config = ReplicaConfig.from_mapping(dict(spec.replica))
        # The replica's world when the job runs at full width: the baseline's world too.
        self.full_ranks = ranks or self.config.ranks
        self.run_dir = make_temp_dir(f"drill-{incident.id}-")
        # The caller (the session layer) picks where the baseline is kept between runs; with
        # none it is trained into this run's own folder and goes when the run closes.
        self.cache_dir = Path(cache_dir) if cache_dir else self.run_dir / "baseline-cache"
        self.store = CheckpointStore(self.run_dir, config_hash=self.config.config_hash())
        self.trainer = None
        self.steps_trained = 0
        self.checkpoints_written = 0
        self.checkpoints_loaded = 0
        self.corrupt_detected = 0
        self.corrupt_loaded = 0

    # -- the TrainingBackend protocol -------------------------------------------------------

    def start(
        self, job: str, *, from_step: int | None, condition: str, world: int, verify: bool
    ) -> LoadOutcome:
        if job != self.job:
            return LoadOutcome(True)
        from replica.errors import CheckpointError
        from replica.ranks import replica_world_for

        ranks = replica_world_for(
            world, self.job_width, self.full_ranks, global_batch=self.config.global_batch
        )
        try:
            self._launch(ranks, from_step, verify)
        except CheckpointError as exc:
            if verify and condition != "ok":
                self.corrupt_detected += 1
            return LoadOutcome(False, str(exc))
        if from_step is not None:
            self.checkpoints_loaded += 1
            if condition == "corrupt":
                self.corrupt_loaded += 1
        return LoadOutcome(True, poisoned=condition == "corrupt")

    def step(self, job: str) -> float | None:
        if job != self.job or not self._running():
            return None
        self.steps_trained += 1
        return self._train_step()

    def save(self, job: str, step: int, *, atomic: bool, fail_fraction: float | None) -> None:
        if job != self.job or not self._running():
            return
        from replica.errors import CheckpointWriteError

        if self._trained_step() != step:
            raise RuntimeError(f"replica is at step {self._trained_step()}, the job saved {step}")
        if fail_fraction is None:
            self._save(atomic, None)
            self.checkpoints_written += 1
            return
        # Expected to raise: the disk filled or the job was killed part way.
        with contextlib.suppress(CheckpointWriteError):
            self._save(atomic, min(fail_fraction, 0.99))

    def corrupt(self, job: str, step: int, seed: int) -> None:
        if job == self.job:
            self.store.corrupt(step, seed)

    def verify(self, job: str, step: int, condition: str) -> tuple[bool, str]:
        if job != self.job:
            return True, ""
        result = self.store.verify(step)
        if not result.ok and condition != "ok":
            self.corrupt_detected += 1
        return result.ok, result.reason

    def remove(self, job: str, step: int) -> None:
        if job != self.job:
            return
        from replica.errors import CheckpointError

        # A step the store never wrote (a lost atomic write) has nothing to remove.
        with contextlib.suppress(CheckpointError):
            self.store.rm(step)

    def rank_fault(self, job: str, sim_rank: int, sim_world: int, how: str) -> list[str]:
        """A rank dies ("kill") or stops silently ("hang"). In one process there is no other
        process to raise anything: the simulation's own signals are all there is."""
        return []

    # -- how this backend trains (GlooTraining overrides these) ------------------------------

    def _launch(self, ranks: int, from_step: int | None, verify: bool) -> None:
        from replica.trainer import Trainer

        trainer = Trainer(self.config, ranks)
        if from_step is not None:
            trainer.load_full_state(self.store.load(from_step, verify=verify))
        self.trainer = trainer

    def _running(self) -> bool:
        return self.trainer is not None

    def _train_step(self) -> float:
        return self.trainer.train_step()

    def _trained_step(self) -> int:
        return self.trainer.step if self.trainer is not None else 0

    def _save(self, atomic: bool, fail_fraction: float | None) -> None:
        self.store.save(self.trainer, atomic=atomic, fail_after_fraction=fail_fraction)

    def _final_weights(self):
        """(step, loss, parameters) of the replica as the night left it."""
        if self.trainer is None:
            return 0, None, None
        loss = self.trainer.losses[-1][1] if self.trainer.losses else None
        return self.trainer.step, loss, self.trainer.parameters_copy()

    # -- measuring --------------------------------------------------------------------------

    def report(self, final_step: int) -> ReplicaReport:
        from replica.match import match

        verdict = None
        rel = None
        baseline_loss = None
        step, final_loss, params = self._final_weights()
        if step > 0 and params is not None:
            baseline = self._baseline()
            baseline_loss = baseline.losses[step - 1]
            result = match(params, baseline.weights[step])
            verdict, rel = result.kind, result.rel_l2
        return ReplicaReport(
            final_step=step,
            final_loss=final_loss,
            baseline_loss=baseline_loss,
            steps_recomputed=max(0, self.steps_trained - step),
            checkpoints_written=self.checkpoints_written,
            checkpoints_loaded=self.checkpoints_loaded,
            corrupt_detected=self.corrupt_detected,
            corrupt_loaded=self.corrupt_loaded,
            match=verdict,
            rel_l2=rel,
            backend=self.backend,
        )

    def baseline_losses(self) -> list[float]:
        """The undisturbed run's loss per step (trained once, then cached on disk)."""
        return list(self._baseline().losses)

    def _baseline(self):
        from replica.baseline import load_or_train_baseline

        return load_or_train_baseline(
            self.config,
            backend=self.backend,
            world_size=self.full_ranks,
            steps=self.steps,
            keep_steps=range(self.steps + 1),
            cache_dir=self.cache_dir,
        )

    def close(self) -> None:
        shutil.rmtree(self.run_dir, ignore_errors=True)

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
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def default_cache_dir() -> Path:
    from drill.saves_dir import saves_dir

    return saves_dir() / "cache"


class ReplicaTraining:
    """A TrainingBackend that trains the learner's job for real; other jobs only count."""

    backend = "inprocess"

    def __init__(self, incident: Incident, *, cache_dir: Path | None = None):
        from replica.checkpoint import CheckpointStore
        from replica.config import ReplicaConfig

        spec = incident.learner_job
        self.job = spec.name
        self.job_width = spec.gpus
        self.steps = spec.steps
        self.config = ReplicaConfig.from_mapping(dict(spec.replica))
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.run_dir = Path(tempfile.mkdtemp(prefix=f"drill-{incident.id}-"))
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
        from replica.trainer import Trainer

        ranks = replica_world_for(
            world, self.job_width, self.config.ranks, global_batch=self.config.global_batch
        )
        trainer = Trainer(self.config, ranks)
        if from_step is not None:
            try:
                state = self.store.load(from_step, verify=verify)
                trainer.load_full_state(state)
            except CheckpointError as exc:
                if verify and condition != "ok":
                    self.corrupt_detected += 1
                return LoadOutcome(False, str(exc))
            self.checkpoints_loaded += 1
            if condition == "corrupt":
                self.corrupt_loaded += 1
        self.trainer = trainer
        return LoadOutcome(True, poisoned=condition == "corrupt")

    def step(self, job: str) -> float | None:
        if job != self.job or self.trainer is None:
            return None
        self.steps_trained += 1
        return self.trainer.train_step()

    def save(self, job: str, step: int, *, atomic: bool, fail_fraction: float | None) -> None:
        if job != self.job or self.trainer is None:
            return
        from replica.errors import CheckpointWriteError

        if self.trainer.step != step:
            raise RuntimeError(f"replica is at step {self.trainer.step}, the job saved {step}")
        if fail_fraction is None:
            self.store.save(self.trainer, atomic=atomic)
            self.checkpoints_written += 1
            return
        # Expected to raise: the disk filled or the job was killed part way.
        with contextlib.suppress(CheckpointWriteError):
            self.store.save(
                self.trainer, atomic=atomic, fail_after_fraction=min(fail_fraction, 0.99)
            )

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

    # -- measuring --------------------------------------------------------------------------

    def report(self, final_step: int) -> ReplicaReport:
        from replica.match import match

        final_loss = None
        verdict = None
        rel = None
        baseline_loss = None
        if self.trainer is not None and self.trainer.losses:
            final_loss = self.trainer.losses[-1][1]
        step = self.trainer.step if self.trainer is not None else 0
        if step > 0:
            baseline = self._baseline()
            baseline_loss = baseline.losses[step - 1]
            result = match(self.trainer.parameters_copy(), baseline.weights[step])
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
        )

    def baseline_losses(self) -> list[float]:
        """The undisturbed run's loss per step (trained once, then cached on disk)."""
        return list(self._baseline().losses)

    def _baseline(self):
        from replica.baseline import load_or_train_baseline

        return load_or_train_baseline(
            self.config,
            world_size=self.config.ranks,
            steps=self.steps,
            keep_steps=range(self.steps + 1),
            cache_dir=self.cache_dir,
        )

    def close(self) -> None:
        shutil.rmtree(self.run_dir, ignore_errors=True)

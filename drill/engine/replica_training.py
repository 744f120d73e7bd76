"""The in-process replica behind the simulated training job.

The simulation decides when a step completes, when a checkpoint is written and which one a
restart loads; this adapter makes each of those real: a real torch step, a real file written
the way the job's settings say, a real load that fails the way torch fails. It imports the
replica (and so torch, and a learner's replica module) only when it is built, so nothing that
merely plays with the rules pays for torch.

Which replica runs is the learner job's `replica_factory` ("module:factory", or a shipped
short name; the command line's --replica and the project config fill it in), built with the
job's `replica:` settings through replica/interface.py, and checked before the night
(replica/checks.py): a replica that is missing a method, refuses its settings, is not
deterministic or is too slow for the night raises ReplicaRefused, one line, and the night never
starts.

What this adapter counts comes from the files, not from the simulation's labels: a checkpoint
load is hashed as it is read, so "corrupt checkpoint loaded" means the bytes torch loaded were
not the bytes the manifest vouches for, and "corrupt detected" means a verification refused
bytes that did not match. The simulation's `condition` argument is for the counting `sim`
backend only and is ignored here.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drill.engine.cache_files import cache_warning
from drill.engine.temp_dirs import make_temp_dir
from drill.incident.models import Incident
from drill.sim.training import LoadOutcome

if TYPE_CHECKING:
    from replica.trainer import Trainer

# Verification results that mean "these bytes are not what was written".
_BAD_BYTES = ("corrupt", "unverifiable")


@dataclass(frozen=True)
class ReplicaReport:
    final_step: int
    final_loss: float | None
    baseline_loss: float | None
    steps_recomputed: int
    checkpoints_written: int
    checkpoints_loaded: int
    corrupt_detected: int
    # Loads whose bytes did not match their manifest (hashed as they were read).
    corrupt_loaded: int
    match: str | None
    rel_l2: float | None
    backend: str = "inprocess"
    # Which replica ran: its short name or module:factory.
    replica: str = "addition-gpt"
    # The loss of every step of the final weights' lineage: loss_curve[k - 1] is step k's.
    # After a resume from step k it holds the checkpoint's history up to k, then the new steps.
    loss_curve: tuple[float, ...] = ()
    # Checkpoints whose bytes verify on disk at the end (real sha256 against the manifest).
    verified_steps: tuple[int, ...] = ()
    # The loss curve stored in the newest of those: what a job that is not running still has.
    verified_loss_curve: tuple[float, ...] = ()
    # sha256 of the final weights (names, dtypes, shapes, bytes): equal iff bit-identical.
    weights_sha256: str | None = None

    @property
    def newest_verified_step(self) -> int | None:
        return self.verified_steps[-1] if self.verified_steps else None

    def to_json(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "replica": self.replica,
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
            "newest_verified_step": self.newest_verified_step,
            "weights_sha256": self.weights_sha256,
        }


def shipped_settings(ref: str | None):
    """(setting names, a checker raising ValueError) of a shipped replica, or None for a
    learner's own; reads names only, no torch and no learner code (replica/interface.py). The
    static checks ask here: only this adapter, the gloo one and drill/replica_choice.py import
    `replica` (a contract in pyproject.toml)."""
    from replica.interface import shipped_settings as settings_of  # the replica loads only here

    return settings_of(ref)


def replica_for(incident: Incident):
    """The learner job's replica, loaded (its factory imported) and checked for the night.

    Raises ReplicaRefused (a ValueError: the command line prints it as one line, exit 2)."""
    from replica.checks import check_replica
    from replica.interface import load_replica

    spec = incident.learner_job
    replica = load_replica(getattr(spec, "replica_factory", None), dict(spec.replica))
    check_replica(replica, steps=spec.steps)
    return replica


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
        from replica.determinism import NightRng

        spec = incident.learner_job
        self.job = spec.name
        self.job_width = spec.gpus
        self.steps = spec.steps
        # torch's global generator as this night alone would have it, so a second night in
        # another thread (par measured while the learner plays) leaves its checkpoints' bytes
        # alone: every step below that touches it runs under `self.rng.held()`.
        self.rng = NightRng()
        with self.rng.held():
            self.replica = replica_for(incident)
        # The replica's world when the job runs at full width: the baseline's world too.
        self.full_ranks = ranks or self.replica.ranks
        if self.replica.global_batch % self.full_ranks:
            raise ValueError(
                f"--ranks {self.full_ranks} must divide the replica's global batch of"
                f" {self.replica.global_batch}"
            )
        self.run_dir = make_temp_dir(f"drill-{incident.id}-")
        # The caller (the session layer) picks where the baseline is kept between runs; with
        # none it is trained into this run's own folder and goes when the run closes.
        self.cache_dir = Path(cache_dir) if cache_dir else self.run_dir / "baseline-cache"
        self.store = CheckpointStore(self.run_dir, config_hash=self.replica.config_hash)
        self.trainer: Trainer | None = None
        self.steps_trained = 0
        self.checkpoints_written = 0
        self.checkpoints_loaded = 0
        self.corrupt_detected = 0
        self.corrupt_loaded = 0
        # Bad stretches of the learner job's data stream: (first, last, seed), as they fired.
        self.bad_data: list[tuple[int, int, int]] = []

    # -- the TrainingBackend protocol -------------------------------------------------------

    def start(
        self, job: str, *, from_step: int | None, condition: str, world: int, verify: bool
    ) -> LoadOutcome:
        if job != self.job:
            return LoadOutcome(True)
        from replica.errors import CheckpointError
        from replica.ranks import replica_world_for

        ranks = replica_world_for(
            world, self.job_width, self.full_ranks, global_batch=self.replica.global_batch
        )
        try:
            with self.rng.held():  # builds a model, may load a checkpoint
                bytes_status = self._launch(ranks, from_step, verify)
        except CheckpointError as exc:
            if verify and exc.status in _BAD_BYTES:
                self.corrupt_detected += 1
            return LoadOutcome(False, str(exc))
        poisoned = bytes_status == "corrupt"
        if from_step is not None:
            self.checkpoints_loaded += 1
            self.corrupt_loaded += poisoned
        return LoadOutcome(True, poisoned=poisoned)

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
            with self.rng.held():  # the checkpoint records the generator's state
                self._save(atomic, None)
            self.checkpoints_written += 1
            return
        # Expected to raise: the disk filled or the job was killed part way.
        with contextlib.suppress(CheckpointWriteError), self.rng.held():
            self._save(atomic, min(fail_fraction, 0.99))

    def corrupt(self, job: str, step: int, seed: int) -> None:
        if job == self.job:
            self.store.corrupt(step, seed)

    # The simulation numbers steps as the log does: step N is the N-th step, which trains on
    # batch N - 1 of the replica's stream (batch 0 is the first). These two convert.
    def corrupt_data(self, job: str, first: int, last: int, seed: int) -> None:
        """The batches steps first..last of an undisturbed run train on are bad from now on."""
        if job != self.job:
            return
        self.bad_data.append((first - 1, last - 1, seed))
        if self._running():
            self._data_changed()

    def skip_data(self, job: str, first: int, last: int) -> None:
        """The running attempt skips the batches steps first..last of an undisturbed run read."""
        if job == self.job and self._running():
            self._skip(first - 1, last - 1)

    def wrong_results(self, job: str, rank: int, world: int, seed: int) -> None:
        """The next step's simulated rank `rank` of `world` runs on a GPU that computes wrong
        results: the replica rank that stands for its block adds the seeded error."""
        if job != self.job or not self._running():
            return
        from replica.ranks import replica_rank_for

        self._wrong(replica_rank_for(rank, world, self._replica_world()), seed)

    def verify(self, job: str, step: int, condition: str) -> tuple[bool, str]:
        if job != self.job:
            return True, ""
        result = self.store.verify(step)
        if result.status in _BAD_BYTES:
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

    # -- what is on disk --------------------------------------------------------------------

    def verify_on_disk(self, job: str, step: int) -> bool:
        """Whether the learner's checkpoint `step` verifies on disk right now (real sha256
        against its manifest). The score asks; nothing is counted, no learner looked."""
        if job != self.job:
            return True
        from replica.errors import CheckpointError

        try:
            return self.store.verify(step).ok
        except CheckpointError:
            return False

    def verified_checkpoints(self) -> list[int]:
        """Steps of the learner's checkpoints that verify on disk right now (real sha256
        against the manifest), oldest first."""
        return self.store.verified_steps()

    def checkpoint_losses(self, step: int) -> list[float]:
        """The loss curve recorded in a checkpoint that verifies (losses[k - 1] is step k's)."""
        state = self.store.load(step, verify=True)
        return _curve(state.get("losses", []))

    # -- how this backend trains (GlooTraining overrides these) ------------------------------

    def _launch(self, ranks: int, from_step: int | None, verify: bool) -> str | None:
        """Start training at `ranks`, from scratch or from a checkpoint; returns the hash check
        status of the checkpoint bytes that were loaded, or None from scratch."""
        from replica.trainer import Trainer

        trainer = Trainer(self.replica, ranks)
        status = None
        if from_step is not None:
            loaded = self.store.read(from_step, verify=verify)
            trainer.load_full_state(loaded.state)
            status = loaded.check.status
        trainer.bad_ranges = tuple(self.bad_data)
        self.trainer = trainer
        return status

    def _live(self) -> Trainer:
        """The running attempt's trainer: the `_` methods below are called only while one runs
        (`_running()`), which the public methods check first."""
        assert self.trainer is not None, "called with no attempt running"
        return self.trainer

    def _data_changed(self) -> None:
        self._live().bad_ranges = tuple(self.bad_data)

    def _skip(self, first: int, last: int) -> None:
        self._live().skip_data(first, last)

    def _replica_world(self) -> int:
        return self._live().world_size

    def _wrong(self, rank: int, seed: int) -> None:
        self._live().wrong_rank = (rank, seed)

    def _running(self) -> bool:
        return self.trainer is not None

    def _train_step(self) -> float:
        return self._live().train_step()

    def _trained_step(self) -> int:
        return self.trainer.step if self.trainer is not None else 0

    def _save(self, atomic: bool, fail_fraction: float | None) -> None:
        self.store.save(self._live(), atomic=atomic, fail_after_fraction=fail_fraction)

    def _final_weights(self):
        """(step, loss, parameters, loss history) of the replica as the night left it."""
        if self.trainer is None:
            return 0, None, None, []
        loss = self.trainer.losses[-1][1] if self.trainer.losses else None
        return self.trainer.step, loss, self.trainer.parameters_copy(), list(self.trainer.losses)

    # -- measuring --------------------------------------------------------------------------

    def report(self, final_step: int) -> ReplicaReport:
        from replica.match import match, weights_digest

        verdict = None
        rel = None
        baseline_loss = None
        digest = None
        step, final_loss, params, history = self._final_weights()
        if params is not None:
            digest = weights_digest(params)
        if step > 0 and params is not None:
            baseline = self._baseline(keep=[step])
            baseline_loss = baseline.losses[step - 1]
            result = match(params, baseline.weights[step], threshold=self.replica.close_threshold)
            verdict, rel = result.kind, result.rel_l2
        verified = tuple(self.verified_checkpoints())
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
            replica=self.replica.name,
            loss_curve=tuple(_curve(history)),
            verified_steps=verified,
            verified_loss_curve=tuple(self.checkpoint_losses(verified[-1])) if verified else (),
            weights_sha256=digest,
        )

    def baseline_losses(self) -> list[float]:
        """The undisturbed run's loss per step (trained once, then cached on disk)."""
        return list(self._baseline(keep=()).losses)

    def _baseline(self, keep):
        from replica.baseline import load_or_train_baseline

        def load():
            with self.rng.held():  # builds models, loads and may write checkpoints
                return _load_baseline()

        def _load_baseline():
            return load_or_train_baseline(
                self.replica,
                backend=self.backend,
                world_size=self.full_ranks,
                steps=self.steps,
                keep_steps=keep,
                cache_dir=self.cache_dir,
            )

        private = self.run_dir / "baseline-cache"
        if self.cache_dir == private:
            return load()
        try:
            return load()
        except OSError as exc:
            # The shared cache is best-effort: a dangling link, a plain file or a full disk
            # there costs a training in this run's own folder, never the night.
            cache_warning(self.cache_dir, "use", exc)
            self.cache_dir = private
            return load()

    def close(self) -> None:
        shutil.rmtree(self.run_dir, ignore_errors=True)


def _curve(history) -> list[float]:
    """[(step, loss), ...] as a list indexed by step - 1 (the lineage has every step once)."""
    return [float(loss) for _, loss in sorted((int(s), float(v)) for s, v in history)]

"""How the simulated job reaches a real training job, without the simulation knowing torch.

The simulation decides when a step completes, when a checkpoint is written and which one a
restart loads; a TrainingBackend does the work. `CountingTraining` keeps only counts and is what
the simulation uses on its own; the engine plugs in the replica (drill/engine/replica_training.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# The text torch raises when it opens a checkpoint whose zip was cut short.
TORN_LOAD_ERROR = "PytorchStreamReader failed reading zip archive: failed finding central directory"


@dataclass(frozen=True)
class LoadOutcome:
    ok: bool
    message: str = ""
    poisoned: bool = False  # loaded bytes that were not what was written


class TrainingBackend(Protocol):
    def start(
        self, job: str, *, from_step: int | None, condition: str, world: int, verify: bool
    ) -> LoadOutcome: ...

    def step(self, job: str) -> float | None: ...

    def save(self, job: str, step: int, *, atomic: bool, fail_fraction: float | None) -> None: ...

    def corrupt(self, job: str, step: int, seed: int) -> None: ...

    def verify(self, job: str, step: int, condition: str) -> tuple[bool, str]: ...

    def remove(self, job: str, step: int) -> None: ...

    # The data that steps first..last of an undisturbed run read is bad from now on
    # (drill/faults/bad_shard). Steps count from 1, as the job's log numbers them.
    def corrupt_data(self, job: str, first: int, last: int, seed: int) -> None: ...

    # The next step's rank `rank` (of `world`) runs on a GPU that computes wrong results
    # (drill/faults/gpu_sdc): its gradients carry an error drawn from `seed`.
    def wrong_results(self, job: str, rank: int, world: int, seed: int) -> None: ...

    # The attempt that just started skips the data steps first..last would read (`--skip`).
    def skip_data(self, job: str, first: int, last: int) -> None: ...


class CountingTraining:
    """Stands in for the replica when only the simulation runs: no losses, no files."""

    def start(
        self, job: str, *, from_step: int | None, condition: str, world: int, verify: bool
    ) -> LoadOutcome:
        if from_step is None or condition == "ok":
            return LoadOutcome(True)
        if verify:
            return LoadOutcome(
                False, f"checkpoint step {from_step}: sha256 does not match manifest"
            )
        if condition == "torn":
            return LoadOutcome(False, TORN_LOAD_ERROR)
        return LoadOutcome(True, poisoned=True)

    def step(self, job: str) -> float | None:
        return None

    def save(self, job: str, step: int, *, atomic: bool, fail_fraction: float | None) -> None:
        return None

    def corrupt(self, job: str, step: int, seed: int) -> None:
        return None

    def verify(self, job: str, step: int, condition: str) -> tuple[bool, str]:
        if condition == "ok":
            return True, ""
        if condition == "torn":
            return False, "size does not match the manifest"
        return False, "sha256 does not match the manifest"

    def remove(self, job: str, step: int) -> None:
        return None

    def corrupt_data(self, job: str, first: int, last: int, seed: int) -> None:
        return None

    def skip_data(self, job: str, first: int, last: int) -> None:
        return None

    def wrong_results(self, job: str, rank: int, world: int, seed: int) -> None:
        return None

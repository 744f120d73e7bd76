"""The in-process data-parallel trainer: all ranks in one process, bit-deterministic.

One step: the global batch for the current step is generated (the replica's `batch`, a pure
function of its seed and the step), each rank runs forward and backward over its contiguous
shard (replica/parallel.py), the rank gradients are summed in rank order and divided by the world
size, and the replica's optimizer takes one step. The shipped GPT's learning rate is constant so
that a step's math depends only on the state, never on how long the night is.

The trainer works on any replica (replica/interface.py): a `LoadedReplica`, or a ReplicaConfig,
which means the shipped GPT with that config.

Determinism rules: torch's switches are set once in replica/determinism.py; the replica's model
init uses a private generator; no dropout; the data for a step is a pure function of (seed,
step). The global torch RNG is not used, but it is captured in full_state and restored on load
anyway so that anything added later that does use it still resumes exactly. Building a model
does draw from it (torch's default layer init, overwritten by the seeded one), so its state, and
with it a checkpoint's bytes, depends on what ran before: replica/checks.py starts every night
from one state, so nights in one process hash the same as in a fresh one.

Cost: the per-step overhead over a plain gradient-accumulation loop is a few foreach adds and
one Python float per micro-batch; see benchmarks/bench_replica.py.
"""

from __future__ import annotations

from typing import Any

import torch

from replica import parallel
from replica.config import ReplicaConfig
from replica.data import shard_bounds
from replica.data_stream import (
    BadRange,
    Skip,
    bad_range_of,
    batch_for_step,
    check_skips,
    corrupt_batch,
    past_skips,
)
from replica.determinism import configure_determinism
from replica.eager import optimizer_stepper, skip_compiler_imports
from replica.errors import ConfigMismatchError
from replica.interface import LoadedReplica
from replica.wrong_results import add_error, error_for

STATE_FORMAT = 1
_STATE_KEYS = (
    "format",
    "config",
    "config_hash",
    "step",
    "data_cursor",
    "world_size",
    "model",
    "optimizer",
    "rng",
    "losses",
)


def make_optimizer(model: torch.nn.Module, config: ReplicaConfig) -> torch.optim.Optimizer:
    """The shipped GPT's optimizer (AdamW), for code that builds the model by hand."""
    from replica.gpt import AdditionGPT

    return AdditionGPT(config).make_optimizer(model)


def as_replica(replica: LoadedReplica | ReplicaConfig) -> LoadedReplica:
    """A LoadedReplica for either spelling; a ReplicaConfig is the shipped GPT with it."""
    if isinstance(replica, LoadedReplica):
        return replica
    if isinstance(replica, ReplicaConfig):
        from replica.gpt import AdditionGPT
        from replica.interface import DEFAULT_REF

        return LoadedReplica(DEFAULT_REF, replica.to_dict(), AdditionGPT(replica))
    raise TypeError(f"expected a LoadedReplica or a ReplicaConfig, got {type(replica).__name__}")


class Trainer:
    def __init__(
        self, replica: LoadedReplica | ReplicaConfig, world_size: int | None = None
    ) -> None:
        configure_determinism()
        skip_compiler_imports()
        self.replica = as_replica(replica)
        self.world_size = self.replica.ranks if world_size is None else int(world_size)
        # Validates that the world divides the global batch.
        self.micro_batch = parallel.micro_batch_size(
            self.replica.global_batch, self.replica.ranks, self.world_size
        )
        self.model = self.replica.build_model()
        self._params = list(self.model.parameters())
        self.optimizer = self.replica.make_optimizer(self.model)
        self.optimizer_step = optimizer_stepper(self.optimizer)
        self.step = 0
        self.losses: list[tuple[int, float]] = []
        # The data cursor: the next batch of the stream, and the skips the job was given.
        self.next_batch = 0
        self.skips: tuple[Skip, ...] = ()
        # Corrupt stretches of the stream (the world's data, set by whoever runs the job).
        self.bad_ranges: tuple[BadRange, ...] = ()
        # A rank on a GPU that computes wrong results, and the error's seed (whoever runs the
        # job sets it; the GPU stays faulty for the rest of this attempt).
        self.wrong_rank: tuple[int, int] | None = None
        self._error: list[torch.Tensor] | None = None
        self._config_hash = self.replica.config_hash

    @classmethod
    def fresh(
        cls, replica: LoadedReplica | ReplicaConfig, world_size: int | None = None
    ) -> Trainer:
        """A trainer at step 0: what a restart from scratch gets."""
        return cls(replica, world_size)

    @property
    def config_hash(self) -> str:
        return self._config_hash

    def train_step(self) -> float:
        """Train on the batch for the current step; returns the mean loss over the global batch."""
        replica = self.replica
        index = self.next_batch
        batch = replica.batch(index, 0, replica.global_batch)
        bad = bad_range_of(index, self.bad_ranges)
        if bad is not None:
            batch = corrupt_batch(batch, bad[2], index)
        summed: list[torch.Tensor] | None = None
        loss_sum = 0.0
        for p in self._params:
            p.grad = None
        for rank in range(self.world_size):
            start, stop = shard_bounds(replica.global_batch, rank, self.world_size)
            loss_sum += parallel.rank_backward(
                replica,
                self.model,
                self._params,
                tuple(t[start:stop] for t in batch),
                self.micro_batch,
            )
            grads = parallel.take_rank_grads(self._params)
            if self.wrong_rank is not None and self.wrong_rank[0] == rank:
                if self._error is None:
                    self._error = error_for(grads, self.wrong_rank[1])
                add_error(grads, self._error)
            summed = parallel.accumulate_rank_grads(summed, grads)
        assert summed is not None
        parallel.finish_mean(self._params, summed, self.world_size)
        self.optimizer_step()
        self.step += 1
        self.next_batch = past_skips(index + 1, self.step, self.skips)
        loss = loss_sum / self.world_size
        self.losses.append((self.step, loss))
        return loss

    @property
    def config(self) -> Any:
        """The shipped GPT's ReplicaConfig; another replica's own settings object, if any."""
        return getattr(self.replica.impl, "config", self.replica.settings)

    def skip_data(self, first: int, last: int) -> None:
        """Skip batches first..last of the stream from this step on (an operator's `--skip`).

        Recorded in the cursor, so checkpoints written from here on resume past the range too.
        Giving the same range again is a no-op: a job's skips are re-applied at every start."""
        if not 0 <= first <= last:
            raise ValueError(f"a skip needs 0 <= first <= last, got {first}-{last}")
        if any((f, la) == (first, last) for _, f, la in self.skips):
            return
        self.skips = (*self.skips, (self.step, first, last))
        self.next_batch = past_skips(self.next_batch, self.step, self.skips)

    def train(self, steps: int) -> list[float]:
        return [self.train_step() for _ in range(steps)]

    def parameters_copy(self) -> dict[str, torch.Tensor]:
        return {name: p.detach().clone() for name, p in self.model.named_parameters()}

    def full_state(self) -> dict[str, Any]:
        """A snapshot (cloned tensors) of everything needed to resume bit for bit.

        Only tensors, numbers, strings, lists and dicts, so it loads with weights_only=True.
        "model" comes first: checkpoint.corrupt relies on the model's tensors being the first
        storages in the file.
        """
        opt = self.optimizer.state_dict()
        return {
            "model": {k: v.detach().clone() for k, v in self.model.state_dict().items()},
            "optimizer": _clone_tree(opt),
            "format": STATE_FORMAT,
            "config": dict(self.replica.settings),
            "config_hash": self._config_hash,
            "step": self.step,
            # The data stream is a pure function of (seed, batch); the cursor is the next batch
            # and the skips that moved it (recorded only when there are any).
            "data_cursor": self._cursor(),
            "world_size": self.world_size,
            "rng": {"torch_cpu": torch.get_rng_state()},
            "losses": [[s, float(v)] for s, v in self.losses],
        }

    def _cursor(self) -> dict[str, Any]:
        cursor: dict[str, Any] = {"seed": self.replica.seed, "next_batch": self.next_batch}
        if self.skips:
            cursor["skips"] = [list(s) for s in self.skips]
        return cursor

    def load_full_state(self, state: dict[str, Any], *, load_optimizer: bool = True) -> None:
        """Resume from a full_state. Everything is checked before anything is changed.

        load_optimizer=False keeps a fresh AdamW (zero moments, step count 0): what a script
        that saved only the weights gets, and why it does not rejoin the baseline.
        A different world size is allowed: same samples, different float summation order.
        """
        if not isinstance(state, dict):
            raise ConfigMismatchError(
                f"not a replica state: expected a dict, got {type(state).__name__}"
            )
        missing = [k for k in _STATE_KEYS if k not in state]
        if missing:
            raise ConfigMismatchError(f"not a replica state: missing {', '.join(missing)}")
        if state["format"] != STATE_FORMAT:
            raise ConfigMismatchError(f"state format {state['format']!r} is not {STATE_FORMAT}")
        if state["config_hash"] != self._config_hash:
            raise ConfigMismatchError(
                f"config mismatch: state was written by config {str(state['config_hash'])[:12]}, "
                f"this trainer runs config {self._config_hash[:12]}"
            )
        step = state["step"]
        cursor = state["data_cursor"]
        # The cursor must follow from the step and the skips it records: a cursor that moved
        # for any other reason is refused, never guessed at.
        try:
            if not isinstance(step, int) or step < 0 or not isinstance(cursor, dict):
                raise ValueError("not a step and a cursor")
            skips = check_skips(cursor.get("skips"), step)
            if cursor.get("next_batch") != batch_for_step(step, skips):
                raise ValueError("the cursor does not follow from the step and its skips")
        except ValueError as exc:
            raise ConfigMismatchError(
                f"inconsistent step {step!r} and data cursor {cursor!r}: {exc}"
            ) from None
        own = self.model.state_dict()
        model_state = state["model"]
        if set(model_state) != set(own) or any(
            tuple(model_state[k].shape) != tuple(own[k].shape) for k in own
        ):
            raise ConfigMismatchError("model tensors do not match this config's model")

        self.model.load_state_dict(model_state)
        self.optimizer = self.replica.make_optimizer(self.model)
        if load_optimizer:
            # A copy: torch's optimizer adopts the given tensors as its live state, and
            # training would then mutate the caller's dict (a second load would differ).
            self.optimizer.load_state_dict(_clone_tree(state["optimizer"]))
        self.optimizer_step = optimizer_stepper(self.optimizer)
        torch.set_rng_state(state["rng"]["torch_cpu"])
        self.step = step
        self.skips = skips
        self.next_batch = cursor["next_batch"]
        self.losses = [(int(s), float(v)) for s, v in state["losses"] if s <= step]
        for p in self._params:
            p.grad = None


def _clone_tree(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach().clone()
    if isinstance(obj, dict):
        return {k: _clone_tree(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clone_tree(v) for v in obj]
    return obj

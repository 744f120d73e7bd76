"""The checks a replica passes before a night starts, so a bad one gets a clear line, not a
wrong score.

1. Its batches are a pure function of (step, sample index): asked twice, or asked in two
   pieces split at a rank boundary, a step's batch is the same bytes.
2. It is deterministic: two fresh runs of the same CHECK_STEPS steps give the same losses and
   the same weights bit for bit, and a resume from a checkpoint taken after the first step
   (serialized and loaded back with weights_only=True, as the store does) reproduces the rest.
   The game's integrity verdict and every replay depend on this. When two fresh runs differ,
   a third started from the first one's global RNG state says which rule was broken: it
   repeats the first when the replica draws from a global RNG, and still differs when state
   kept outside the model (a counter on the replica object) carried over between runs.
3. It is fast enough: the measured step time times the job's steps must fit in the night's
   budget (NIGHT_BUDGET_S of training on this machine). The step is timed in CPU seconds of
   the thread that runs it (torch runs on one thread here, see replica/determinism.py), so
   neither a machine busy with other work nor the game's other threads (the screen, par
   measured in the background while the learner plays) make a good replica look slow; a
   step that takes far longer in wall time than that (a replica that sleeps or waits on a
   file) is refused too once its wall time exceeds WALL_SLACK times the budget. A night also
   trains the baseline once and the reference and do-nothing runs that set par, so a replica at
   the budget makes the first night take a few times the budget.
4. Its losses are finite numbers.

Each failure raises ReplicaRefused with one line naming the replica and what to change. The
check trains a few steps (tens of milliseconds for the shipped replicas), reads the wall clock
only to time them, and runs once per process for a replica and a step count.

torch's global RNG: no replica draws from it, but a checkpoint records it (replica/trainer.py),
so the state a night leaves it in is part of the night's checkpoint bytes. The check builds
models, and building one draws from it (torch's default layer init, before the replica's own
seeded init overwrites the weights). So the check starts from a fixed state (seed 0, as a fresh
process has) and, when it is answered from memory, puts the global RNG where running it would
have left it: a night then starts from the same state whether or not this process played
another before it, and its checkpoints hash the same as in a fresh process.
"""

from __future__ import annotations

import io
import math
import random
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from replica.errors import ReplicaRefused
from replica.interface import LoadedReplica

CHECK_STEPS = 3
# Wall seconds of replica training one night may take here. The shipped GPT's 300 steps take
# about 2.5 s; this leaves room for a learner's bigger model without a night that drags.
NIGHT_BUDGET_S = 30.0
# Wall time may exceed CPU time on a shared machine; only this many times the budget refuses.
WALL_SLACK = 4.0

# A passed check's report, and torch's global RNG state as the check left it.
_passed: dict[tuple[str, int, int], tuple[CheckReport, Any]] = {}
# One check at a time in a process: two nights starting in two threads (the game measures par
# in the background while the learner plays) must not interleave one check's seeding and model
# building with the other's, or the RNG state kept in _passed would depend on the timing.
_checking = threading.Lock()


@dataclass(frozen=True)
class CheckReport:
    step_seconds: float  # median measured step time
    night_seconds: float  # step_seconds times the job's steps
    losses: tuple[float, ...]  # the checked steps' losses


def check_replica(
    replica: LoadedReplica,
    *,
    steps: int,
    budget_s: float = NIGHT_BUDGET_S,
    clock: Callable[[], float] = time.thread_time,
    wall_clock: Callable[[], float] = time.perf_counter,
) -> CheckReport:
    """Refuse a replica that is not deterministic or too slow for `steps` steps in a night.

    `clock` times a step's CPU (this thread: process time would count the game's other
    threads too), `wall_clock` its wall time."""
    with _checking:
        return _check_replica(replica, steps, budget_s, clock, wall_clock)


def _check_replica(replica, steps, budget_s, clock, wall_clock) -> CheckReport:
    import torch

    from replica.determinism import configure_determinism
    from replica.trainer import Trainer

    key = (replica.config_hash, steps, int(budget_s * 1000))
    if key in _passed:
        report, rng_after = _passed[key]
        torch.set_rng_state(rng_after)
        return report
    configure_determinism()
    torch.manual_seed(0)

    name = replica.name
    _check_batches(replica, torch)
    world = replica.ranks

    rng_before = _global_rngs(torch)  # where the first run starts, for telling causes apart
    first = _build(Trainer, replica, world)
    times: list[float] = []
    walls: list[float] = []
    losses: list[float] = []
    snapshot = None

    def timed_step(trainer, number: int) -> float:
        c0, w0 = clock(), wall_clock()
        loss = _step(trainer, name, number)
        times.append(clock() - c0)
        walls.append(wall_clock() - w0)
        return loss

    for i in range(CHECK_STEPS):
        losses.append(timed_step(first, i + 1))
        # Far over already: say so now rather than time the remaining steps too. (A first
        # step pays for warm-up, hence the factor.)
        _refuse_if_slow(name, times[-1], walls[-1], steps, 2 * budget_s, budget_s)
        if i == 0:
            snapshot = _round_trip(first.full_state(), name, torch)

    second = _build(Trainer, replica, world)
    for i in range(CHECK_STEPS):
        loss = timed_step(second, i + 1)
        if loss != losses[i]:
            raise ReplicaRefused(
                f"replica {name} is not deterministic: two runs of the same steps from the same"
                f" settings differ at step {i + 1} (loss {losses[i]!r}, then {loss!r});"
                f" {_why_runs_differ(Trainer, replica, world, rng_before, first, torch)}"
            )
    different = _first_difference(first.parameters_copy(), second.parameters_copy(), torch)
    if different:
        raise ReplicaRefused(
            f"replica {name} is not deterministic: two runs of the same {CHECK_STEPS} steps"
            f" end with different weights ({different});"
            f" {_why_runs_differ(Trainer, replica, world, rng_before, first, torch)}"
        )

    resumed = _build(Trainer, replica, world)
    try:
        resumed.load_full_state(snapshot)
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {name}: its own checkpoint does not load back ({type(exc).__name__}: {exc})"
        ) from exc
    for i in range(1, CHECK_STEPS):
        loss = _step(resumed, name, i + 1)
        if loss != losses[i]:
            raise ReplicaRefused(
                f"replica {name} is not deterministic across a resume: after loading the"
                f" checkpoint of step 1, step {i + 1} gives loss {loss!r} instead of"
                f" {losses[i]!r}; keep all state in the model and the optimizer, and draw"
                " randomness from generators seeded by the step"
            )
    different = _first_difference(first.parameters_copy(), resumed.parameters_copy(), torch)
    if different:
        raise ReplicaRefused(
            f"replica {name} is not deterministic across a resume: the resumed run's weights"
            f" differ ({different}); keep all state in the model and the optimizer"
        )

    per_step = sorted(times)[len(times) // 2]
    _refuse_if_slow(name, per_step, sorted(walls)[len(walls) // 2], steps, budget_s, budget_s)
    report = CheckReport(per_step, per_step * steps, tuple(losses))
    _passed[key] = (report, torch.get_rng_state())
    return report


# The two causes of runs that differ, each with the rule it broke (docs/bring-your-replica.md).
DRAWS_GLOBAL_RNG = (
    "draw every random number from a generator seeded by the settings, the step and the sample"
    " (no global RNG, no unseeded dropout)"
)
STATE_OUTSIDE = (
    "a run started from the same global RNG state differs too, so the steps read state kept"
    " outside the model and the optimizer (a counter or cache on the replica object or in a"
    " module global, which the next run inherits); keep all state in the model and the optimizer"
)


def _why_runs_differ(trainer_cls, replica, world: int, rng_before, first, torch) -> str:
    """Two fresh runs differed. A third, started with every global RNG where the first run
    started, tells the two causes apart: it repeats the first when the replica draws from a
    global RNG, and still differs when state outside the model carried over between runs."""
    _set_global_rngs(rng_before, torch)
    third = _build(trainer_cls, replica, world)
    for i in range(CHECK_STEPS):
        _step(third, replica.name, i + 1)
    if _first_difference(first.parameters_copy(), third.parameters_copy(), torch):
        return STATE_OUTSIDE
    return DRAWS_GLOBAL_RNG


def _global_rngs(torch) -> tuple:
    """torch's, Python's and (when something imported it) numpy's global generator states."""
    numpy = sys.modules.get("numpy")
    return (torch.get_rng_state(), random.getstate(), numpy.random.get_state() if numpy else None)


def _set_global_rngs(states: tuple, torch) -> None:
    torch_state, python_state, numpy_state = states
    torch.set_rng_state(torch_state)
    random.setstate(python_state)
    numpy = sys.modules.get("numpy")
    if numpy is not None and numpy_state is not None:
        numpy.random.set_state(numpy_state)


def _build(trainer_cls, replica: LoadedReplica, world: int):
    try:
        return trainer_cls(replica, world)
    except ReplicaRefused:
        raise
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {replica.name}: building the model and optimizer failed"
            f" ({type(exc).__name__}: {exc})"
        ) from exc


def _step(trainer, name: str, number: int) -> float:
    try:
        loss = trainer.train_step()
    except ReplicaRefused:  # the learner's method raised; it says which already
        raise
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {name}: training step {number} failed ({type(exc).__name__}: {exc})"
        ) from exc
    if not isinstance(loss, float) or not math.isfinite(loss):
        raise ReplicaRefused(
            f"replica {name}: the loss of step {number} is {loss!r}, not a finite number"
        )
    return loss


def _refuse_if_slow(
    name: str, cpu_s: float, wall_s: float, steps: int, limit_s: float, budget_s: float
) -> None:
    """Refuse when the CPU estimate passes `limit_s`, or the wall one WALL_SLACK times it."""
    if cpu_s * steps > limit_s:
        took, need = f"{cpu_s * 1000:.0f} ms of CPU", cpu_s * steps
    elif wall_s * steps > WALL_SLACK * limit_s:
        took, need = f"{wall_s * 1000:.0f} ms", wall_s * steps
    else:
        return
    raise ReplicaRefused(
        f"replica {name} is too slow for a night: a step took {took} here, so the job's"
        f" {steps} steps need about {need:.0f} s of training, over the {budget_s:.0f} s a night"
        " may spend; make the model or the batch smaller, or give the job fewer steps"
    )


def _check_batches(replica: LoadedReplica, torch) -> None:
    name = replica.name
    g = replica.global_batch
    cut = g // replica.ranks
    try:
        whole = replica.batch(0, 0, g)
        again = replica.batch(0, 0, g)
        head = replica.batch(0, 0, cut)
        tail = replica.batch(0, cut, g) if cut < g else None
    except ReplicaRefused:
        raise
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {name}: batch(0, 0, {g}) failed ({type(exc).__name__}: {exc})"
        ) from exc
    if not whole or not all(isinstance(t, torch.Tensor) for t in whole):
        raise ReplicaRefused(
            f"replica {name}: batch() must return a tuple of tensors, got"
            f" {type(whole[0] if whole else whole).__name__}"
        )
    if any(t.dim() == 0 or t.shape[0] != g for t in whole):
        raise ReplicaRefused(
            f"replica {name}: batch(step, start, stop) must give stop - start rows in every"
            f" tensor; batch(0, 0, {g}) gave {[tuple(t.shape) for t in whole]}"
        )
    if not _same(whole, again, torch):
        raise ReplicaRefused(
            f"replica {name} is not deterministic: batch(0, 0, {g}) asked twice gives different"
            " samples; make each sample a pure function of the seed, the step and its index"
        )
    pieces = (
        head if tail is None else tuple(torch.cat([a, b]) for a, b in zip(head, tail, strict=False))
    )
    if not _same(whole, pieces, torch):
        raise ReplicaRefused(
            f"replica {name}: a sample depends on which range asked for it (batch(0, 0, {g})"
            f" is not batch(0, 0, {cut}) followed by batch(0, {cut}, {g})); make each sample a"
            " pure function of the seed, the step and its index"
        )


def _same(a, b, torch) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and x.dtype == y.dtype and torch.equal(x, y)
        for x, y in zip(a, b, strict=True)
    )


def _round_trip(state, name: str, torch):
    """A checkpoint's way: torch.save, then torch.load with weights_only=True."""
    buf = io.BytesIO()
    try:
        torch.save(state, buf)
        buf.seek(0)
        return torch.load(buf, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {name}: its checkpoint does not load with weights_only=True"
            f" ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); keep only"
            " tensors, numbers, strings, lists and dicts in the model and optimizer state"
        ) from exc


def _first_difference(a, b, torch) -> str:
    for key in sorted(a):
        if key not in b or a[key].shape != b[key].shape or not torch.equal(a[key], b[key]):
            return f"first in {key}"
    return ""

"""Which batch of the data stream a step trains on, and the bad ranges of that stream.

Undisturbed, step k trains on batch k of the stream. An operator who finds a bad stretch of data
restarts from a checkpoint and tells the job to skip it (`--skip A-B`): from the step the skip
was given at, whenever the cursor reaches batch A it jumps to batch B + 1. The skips a job was
given are part of its data cursor, so a checkpoint written after a skip resumes on the same
batches, and the cursor of a checkpoint is checked against its step and its recorded skips:
a cursor that does not follow from them is refused (replica/trainer.py).

A bad range is the world's data, not the job's state: batches first..last of the stream are
corrupt for whoever reads them, until a job skips them. Corrupting a batch keeps every tensor's
values and shape and rotates the rows of every tensor after the first (the inputs) by a seeded
offset: each sample is paired with another sample's targets, the way a join that lost its key
misaligns a shard. The loss the model sees spikes and its gradients train on noise, and any
replica's batch stays valid for its own loss function.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

import torch

# (at_step, first, last): from step at_step on, batches first..last are skipped.
Skip = tuple[int, int, int]
# (first, last, seed): batches first..last of the stream are corrupt.
BadRange = tuple[int, int, int]


def past_skips(batch: int, step: int, skips: Iterable[Skip]) -> int:
    """The batch a cursor at `batch` really reads at `step`: moved past every skipped range
    already given by then (repeated, so back-to-back or overlapping skips all apply)."""
    rules = [s for s in skips if s[0] <= step]
    moved = True
    while moved:
        moved = False
        for _, first, last in rules:
            if first <= batch <= last:
                batch = last + 1
                moved = True
    return batch


def batch_for_step(step: int, skips: Sequence[Skip]) -> int:
    """The batch step `step` trains on, given the skips recorded in the cursor.

    Replays the cursor from step 0; with no skips it is `step` itself."""
    if not skips:
        return step
    batch = 0
    for s in range(step):
        batch = past_skips(batch, s, skips) + 1
    return past_skips(batch, step, skips)


def check_skips(raw: Any, step: int) -> tuple[Skip, ...]:
    """The skips of a stored cursor as tuples, or ValueError saying what is wrong."""
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ValueError(f"skips must be a list, got {type(raw).__name__}")
    out: list[Skip] = []
    for item in raw:
        if (
            not isinstance(item, list | tuple)
            or len(item) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        ):
            raise ValueError(f"a skip must be [at_step, first, last], got {item!r}")
        at, first, last = item
        if not 0 <= at <= step or not 0 <= first <= last:
            raise ValueError(
                f"skip {list(item)} needs 0 <= at_step <= step {step} and 0 <= first <= last"
            )
        out.append((at, first, last))
    return tuple(out)


def bad_range_of(batch: int, bad: Iterable[BadRange]) -> BadRange | None:
    for rng in bad:
        if rng[0] <= batch <= rng[1]:
            return rng
    return None


def corrupt_batch(batch: tuple[Any, ...], seed: int, index: int) -> tuple[Any, ...]:
    """Batch `index` as a bad shard holds it: every tensor after the first rotated along its
    rows by an offset drawn from (seed, index), so no sample keeps its own targets."""
    rows = int(batch[0].shape[0]) if batch else 0
    if rows < 2 or len(batch) < 2:
        return batch
    offset = 1 + random.Random(f"replica-bad-shard/{seed}/{index}").randrange(rows - 1)
    return (batch[0], *(torch.roll(t, shifts=offset, dims=0) for t in batch[1:]))

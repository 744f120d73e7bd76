"""Batches and shards of the synthetic corpus as tensors.

The global batch of a step is a pure function of (config, step); it never depends on the world
size. A rank's shard is a contiguous slice of it, a pure function of (config, step, rank, world).
So changing the world size changes only the order in which floats are summed, never which
samples a step sees.

Targets that are not scored (random operand digits, see replica/task.py) are IGNORE_INDEX.
"""

from __future__ import annotations

import torch

from replica.config import ReplicaConfig
from replica.task import sample

IGNORE_INDEX = -100


def shard_bounds(global_batch: int, rank: int, world: int) -> tuple[int, int]:
    """[start, stop) of rank `rank`'s contiguous shard of a global batch."""
    if world < 1 or global_batch % world:
        raise ValueError(
            f"world size {world} must be positive and divide global batch {global_batch}"
        )
    if not 0 <= rank < world:
        raise ValueError(f"rank {rank} is outside a world of {world}")
    size = global_batch // world
    return rank * size, (rank + 1) * size


def sample_range(
    config: ReplicaConfig, step: int, start: int, stop: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets) for samples [start, stop) of the global batch of `step`.

    Both have shape (stop - start, context); targets are the inputs shifted by one, with
    unscored positions set to IGNORE_INDEX.
    """
    if step < 0:
        raise ValueError(f"step must not be negative, got {step}")
    length = config.context + 1
    toks = bytearray()
    flags = bytearray()
    for i in range(start, stop):
        t, m = sample(config.seed, step, i, length, config.max_digits)
        toks += t
        flags += m
    seq = torch.frombuffer(toks, dtype=torch.uint8).view(stop - start, length).long()
    scored = torch.frombuffer(flags, dtype=torch.bool).view(stop - start, length)
    targets = seq[:, 1:].masked_fill(~scored[:, 1:], IGNORE_INDEX)
    return seq[:, :-1].contiguous(), targets


def global_batch(config: ReplicaConfig, step: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets) of the whole global batch, each (global_batch, context)."""
    return sample_range(config, step, 0, config.global_batch)


def rank_batch(
    config: ReplicaConfig, step: int, rank: int, world: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(inputs, targets) of one rank's shard; only that rank's samples are generated."""
    start, stop = shard_bounds(config.global_batch, rank, world)
    return sample_range(config, step, start, stop)

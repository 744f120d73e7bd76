from __future__ import annotations

import pytest
import torch

from replica.config import ReplicaConfig
from replica.data import IGNORE_INDEX, global_batch, rank_batch
from replica.task import decode


def test_batch_is_a_pure_function_of_seed_and_step(config: ReplicaConfig) -> None:
    x1, y1 = global_batch(config, 5)
    x2, y2 = global_batch(config, 5)
    assert torch.equal(x1, x2) and torch.equal(y1, y2)
    x3, _ = global_batch(config, 6)
    assert not torch.equal(x1, x3)
    x4, _ = global_batch(ReplicaConfig(seed=config.seed + 1), 5)
    assert not torch.equal(x1, x4)
    assert x1.shape == (config.global_batch, config.context)
    assert int(x1.max()) < config.vocab


@pytest.mark.parametrize("world", [1, 2, 4, 8, 32])
def test_shards_tile_the_global_batch_for_any_world(config: ReplicaConfig, world: int) -> None:
    x, y = global_batch(config, 11)
    shards = [rank_batch(config, 11, r, world) for r in range(world)]
    assert torch.equal(torch.cat([s[0] for s in shards]), x)
    assert torch.equal(torch.cat([s[1] for s in shards]), y)


def test_bad_world_is_refused(config: ReplicaConfig) -> None:
    with pytest.raises(ValueError, match="divide"):
        rank_batch(config, 0, 0, 3)
    with pytest.raises(ValueError, match="outside"):
        rank_batch(config, 0, 4, 4)


def test_only_answers_are_scored(config: ReplicaConfig) -> None:
    x, y = global_batch(config, 0)
    # Every scored target is an answer digit or ';', and every '=' is followed by scored targets.
    for row_x, row_y in zip(x.tolist(), y.tolist(), strict=True):
        for pos, target in enumerate(row_y):
            if target == IGNORE_INDEX:
                continue
            before = decode(row_x[: pos + 1])
            assert "=" in before, before
            assert before.rfind("=") > before.rfind(";")
    # The sums are right: check the first complete problem of a sample.
    first = decode(x[0].tolist()).split(";")[0]
    question, answer = first.split("=")
    a, b = (int(v) for v in question.split("+"))
    assert answer == str(a + b)[::-1]

from __future__ import annotations

import pytest

from replica.ranks import replica_rank_for, replica_world_for


def test_contiguous_blocks() -> None:
    mapping = [replica_rank_for(r, 16, 4) for r in range(16)]
    assert mapping == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4


def test_uneven_blocks_differ_by_at_most_one() -> None:
    mapping = [replica_rank_for(r, 10, 4) for r in range(10)]
    assert mapping == sorted(mapping)
    sizes = [mapping.count(k) for k in range(4)]
    assert max(sizes) - min(sizes) <= 1


def test_rank_outside_world_is_refused() -> None:
    with pytest.raises(ValueError):
        replica_rank_for(16, 16, 4)


@pytest.mark.parametrize(
    "sim_world, job_width, ranks, batch, expected",
    [
        (16, 16, 4, 32, 4),  # full width: the configured ranks
        (8, 16, 4, 32, 2),  # half width: half the ranks
        (1, 16, 4, 32, 1),  # at least one
        (12, 16, 4, 32, 2),  # 3 does not divide 32: lowered to 2
        (32, 16, 4, 32, 8),  # wider job, more ranks
        (16, 16, 3, 30, 3),
    ],
)
def test_replica_world(
    sim_world: int, job_width: int, ranks: int, batch: int, expected: int
) -> None:
    assert replica_world_for(sim_world, job_width, ranks, global_batch=batch) == expected

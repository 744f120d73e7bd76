"""slow-storage (issue 23), pinned at its two seeds like tests/library/test_nights_c.py pins its
nights: the reference recovers, doing nothing does not, and each graded runbook lands strictly
between them and loses the most in the component its `loses_in` names. The lesson is time and
bandwidth on a degraded volume, which the simulation decides: it runs on the sim.
"""

from __future__ import annotations

import pytest

from drill.engine.drill import Drill
from tests.library.pins import assert_seeds_are_the_incidents_own, check_night
from tests.scoring.nights import incident

BOOKS = {
    "restart-into-it": (True, {"progress", "time_to_recovery"}),
    "checkpoint-more-often": (False, {"progress", "recovered"}),
    "hold-until-the-rebuild-ends": (True, {"progress", "time_to_recovery"}),
}
SEEDS = (1, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_slow_storage_on_the_sim(seed):
    check_night("slow-storage", seed, "sim", BOOKS, nothing_recovers=False)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({"slow-storage": SEEDS})


def test_the_save_dies_in_the_barrier_while_the_slow_shards_are_still_writing():
    """What the learner reads: the ranks whose shards sit on healthy disks time out in the
    barrier after the save (a one-element all-reduce), the others' last line is the save."""
    d = Drill.create(incident("slow-storage"), 1, "sim")
    d.advance(1960)
    job = d.learner_job
    assert "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000" in job.attempts[0].why
    last = {line.rank: line.text for line in job.log.lines if line.rank is not None}
    still_saving = sorted(r for r, text in last.items() if text.startswith("saving checkpoint"))
    assert still_saving == [3, 7, 11, 15]
    assert all("taking the entire process down" in last[r] for r in set(last) - set(still_saving))
    notice = [a.text for a in d.world.pager.alerts if a.source == "storage-team"]
    assert notice and "ckpt is degraded" in notice[0]


def test_a_restart_reads_every_shard_back_and_pushes_the_rebuild_out():
    d = Drill.create(incident("slow-storage"), 1, "sim")
    volume = d.world.volumes["ckpt"]
    d.advance(2100)  # 03:35: the first retry is reading its checkpoint back
    assert volume.slowdown == 8
    owed = sum(volume.rebuild_delay.values())
    assert owed == pytest.approx(980e9 * 8 / 20e9)  # one full read at an eighth of 20 GB/s

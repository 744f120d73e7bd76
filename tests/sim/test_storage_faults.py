"""The storage fault kinds leave the signals an operator sees: `df` climbing and fill pages for
a volume that fills, EDQUOT for a quota cut while the volume has room, slow saves for a slow
disk shelf. Each is read through the learner's own tools, and none names the fault."""

from __future__ import annotations

import pytest

from drill.sim.events import CheckpointEvent
from drill.sim.jobs import FAILED
from tests.drillkit import assert_no_fault_names, build, drill, job_spec

SCRATCH = {
    "name": "scratch",
    "capacity": "20TB",
    "used": "10TB",
    "quotas": {"ml": "5TB"},
    "read_bandwidth": "10GB/s",
    "write_bandwidth": "10GB/s",
}
# 98 GB a checkpoint (7B parameters at 14 bytes): about 10 s to write at 10 GB/s.
TRAIN = job_spec(
    "train",
    yours=True,
    team="ml",
    model_params=7e9,
    bytes_per_param=14,
    checkpoint={"every": 20, "keep": 3, "volume": "scratch"},
)
ID = "zz-secret-fault"


def night(fault: dict, volume: dict = SCRATCH, job: dict = TRAIN):
    return drill(build(jobs=[job], storage=[volume], faults=[{"id": ID, **fault}]))


def write_failures(d) -> list[str]:
    """Why the checkpoints that did not land failed: the errno, kept in the event's data. The
    event's text, like torch's own message in the job's failure, names only the writer."""
    failed = [
        e for e in d.world.timeline if isinstance(e, CheckpointEvent) and "not written" in e.text
    ]
    for event in failed:
        assert "Errno" not in event.text and "file write failed" in event.text, event.text
    return [event.cause for event in failed]


def saves(d) -> list[str]:
    return [line.text for line in d.learner_job.log.lines if "saved in" in line.text]


def test_a_filling_volume_pages_shows_in_df_and_fails_the_next_write_with_enospc():
    d = night({"kind": "volume_fill", "at": "10m", "volume": "scratch", "rate": "60TB/h"})
    before = d.act("df scratch").output
    d.advance(1200)
    after = d.act("df scratch").output
    assert "50%" in before and "100%" in after, (before, after)
    pages = [a.text for a in d.world.pager.alerts]
    assert any("volume scratch is" in p and "full" in p for p in pages), pages
    d.advance(600)  # full at 03:20; the next write, at step 20 of 10 s steps, meets it
    job = d.learner_job
    assert job.state == FAILED
    assert "PytorchStreamWriter failed writing file data/0" in job.attempts[-1].why
    assert any("No space left on device" in text for text in write_failures(d))
    assert_no_fault_names({"df": after, "pages": " ".join(pages)}, ID)


def test_a_fill_that_stops_leaves_what_it_wrote():
    d = night(
        {
            "kind": "volume_fill",
            "at": "10m",
            "volume": "scratch",
            "rate": "6TB/h",
            "duration": "10m",
        }
    )
    d.advance(3600)
    volume = d.world.volumes["scratch"]
    volume.settle(d.world.now)
    assert volume.team_used["(other teams)"] == pytest.approx(10e12 + 1e12, rel=1e-6)
    assert d.learner_job.state != FAILED, "one TB more still leaves room"


def test_a_fill_triggered_by_the_next_write_meets_that_write():
    fault = {
        "kind": "volume_fill",
        "at": "0s",
        "volume": "scratch",
        "rate": "100TB/s",
        "trigger": {"event": "checkpoint"},
    }
    d = night(fault)
    d.advance(1200)
    job = d.learner_job
    assert d.world.faults.fired_at[ID] == pytest.approx(290), "the first write, at step 20"
    assert job.state == FAILED and "PytorchStreamWriter" in job.attempts[0].why
    assert "No space left on device" in write_failures(d)[0]
    assert job.checkpoints.latest_step is None, "the write it met never landed"


def test_a_quota_cut_fails_the_next_write_with_edquot_while_the_volume_has_room():
    fault = {"kind": "quota_cut", "at": "10m", "volume": "scratch", "team": "ml", "quota": "250GB"}
    d = night(fault)
    d.advance(3600)
    job = d.learner_job
    assert job.state == FAILED
    assert "PytorchStreamWriter" in job.attempts[-1].why
    assert any("Disk quota exceeded" in text for text in write_failures(d))
    assert d.world.volumes["scratch"].free() > 9e12
    assert not [a for a in d.world.pager.alerts if a.source == "storage-team"], "no notice"
    assert d.act("lfs quota scratch").output.splitlines()[2].split()[1:4] == [
        "196.0GB",
        "0",
        "250.0GB",
    ]


def test_a_quota_cut_with_notice_pages_from_the_storage_team():
    fault = {
        "kind": "quota_cut",
        "at": "10m",
        "volume": "scratch",
        "team": "ml",
        "quota": "4TB",
        "notice": True,
    }
    d = night(fault)
    d.advance(700)
    [page] = [a for a in d.world.pager.alerts if a.source == "storage-team"]
    assert page.severity == "info" and "ml quota on scratch set to 4" in page.text
    assert d.learner_job.state != FAILED, "4 TB still holds three checkpoints"


def test_a_slow_disk_shelf_makes_saves_take_longer_until_it_recovers():
    fault = {
        "kind": "slow_disk",
        "at": "10m",
        "volume": "scratch",
        "slowdown": 20,
        "duration": "20m",
    }
    d = night(fault)
    d.advance(3600)
    times = saves(d)
    assert times[0].endswith("saved in 10s"), times
    assert any(t.endswith("saved in 3m16s") for t in times), times
    assert times[-1].endswith("saved in 10s"), "the shelf recovered"
    assert d.learner_job.state != FAILED, "no error is raised: the volume still works"


def test_a_slow_disk_slows_the_checkpoint_read_of_a_restart():
    d = night({"kind": "slow_disk", "at": "1m", "volume": "scratch", "slowdown": 10})
    normal = night({"kind": "slow_disk", "at": "1m", "volume": "scratch", "slowdown": 1})
    d.advance(120)
    normal.advance(120)
    slow = d.world.checkpoint_read_time(d.learner_job)
    assert slow == pytest.approx(10 * normal.world.checkpoint_read_time(normal.learner_job))


def test_a_fault_can_follow_the_page_of_the_failed_write():
    fill = {
        "id": "fill",
        "kind": "volume_fill",
        "at": "10m",
        "volume": "scratch",
        "rate": "100TB/s",
    }
    later = {
        "id": "later",
        "kind": "node_down",
        "at": "5m",
        "trigger": {"event": "page", "text": "file write failed"},
        "target": {"node": "gpu-b-1"},
    }
    d = drill(build(jobs=[TRAIN], storage=[SCRATCH], faults=[fill, later]))
    d.advance(3600)
    [page] = [a for a in d.world.pager.alerts if "file write failed" in a.text][:1]
    assert page.severity == "critical"
    assert d.world.faults.fired_at["later"] == pytest.approx(float(int(page.time + 300) + 1), abs=1)

"""Storage as operators meet it: quota versus capacity, shared bandwidth, `df` now and a lagging dashboard,
atomic versus torn checkpoint writes, `latest` pointing at a torn file, retention, quota asks."""

from __future__ import annotations

import pytest

from drill.engine.drill import Drill
from drill.engine.storage_view import storage_view
from drill.incident.models import Volume as VolumeSpec
from drill.sim.storage import EDQUOT, ENOSPC, Volume, build_volumes
from tests.drillkit import build, job_spec

TB = 10**12


def volume(**fields) -> Volume:
    spec = {
        "name": "scratch",
        "capacity": "10TB",
        "read_bandwidth": "10GB/s",
        "write_bandwidth": "4GB/s",
        **fields,
    }
    return build_volumes([VolumeSpec.model_validate(spec)])["scratch"]


def test_a_write_that_fits_takes_size_over_bandwidth():
    plan = volume().plan_write(0.0, "ml", 1 * TB)
    assert not plan.fails
    assert plan.duration == pytest.approx(250.0)  # 1TB at 4GB/s


def test_bandwidth_is_shared_by_everyone_writing():
    v = volume(tenants=[{"team": "vision", "rate": "1TB/h"}])
    v.set_rate(0.0, "vision", 1 * TB / 3600)
    v.writers = 1  # another checkpoint already in flight
    plan = v.plan_write(0.0, "ml", 1 * TB)
    assert plan.duration == pytest.approx(750.0)  # three sharers: 4GB/s becomes 1.33GB/s


def test_capacity_runs_out_before_quota():
    v = volume(used="9.5TB", quotas={"ml": "5TB"})
    plan = v.plan_write(0.0, "ml", 1 * TB)
    assert plan.fails and plan.error == ENOSPC
    assert "No space left on device" in plan.error
    assert 0.4 < plan.fraction < 0.6  # half a terabyte fitted


def test_quota_runs_out_before_capacity():
    v = volume(used="1TB", quotas={"ml": "1.5TB"})
    v.add(0.0, "ml", 1 * TB)
    plan = v.plan_write(0.0, "ml", 1 * TB)
    assert plan.fails and plan.error == EDQUOT
    assert "quota" in plan.error.lower()


def test_tenants_fill_the_volume_and_stop_when_it_is_full():
    v = volume(used="9TB")
    v.set_rate(0.0, "vision", 2 * TB / 3600)
    v.settle(3600.0)
    assert v.used() == pytest.approx(10 * TB)
    assert v.free() == 0


def test_df_shows_the_volume_now_and_only_the_dashboard_trails_by_df_lag():
    """Audit row 4: `df` calls statfs. The storage dashboard (the TUI panel) is drawn from
    metrics `df_lag` old and says "as of"."""
    incident = build(
        jobs=[
            job_spec("train", yours=True, checkpoint={"every": 20, "keep": 3, "volume": "scratch"})
        ],
        storage=[
            {
                "name": "scratch",
                "capacity": "100TB",
                "used": "10TB",
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
                "df_lag": "10m",
                "tenants": [{"team": "vision", "rate": "6TB/h", "start": "03:00"}],
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(1800)
    shown = d.act("df").output
    row = shown.splitlines()[1].split()
    assert row[0] == "scratch"
    shown_used = float(row[2].removesuffix("TB")) * TB
    truth = d.world.volumes["scratch"].used()
    assert shown_used == pytest.approx(truth, rel=0.01)
    [panel] = storage_view(d).volumes
    assert panel.as_of == pytest.approx(d.world.now - 600)
    assert truth - panel.used == pytest.approx(1 * TB, rel=0.05)  # ten minutes of 6TB/h


def test_no_fill_page_after_the_space_was_freed():
    """Audit row 25: the monitor reads the volume at each sample, so a volume emptied between
    two samples pages no more (with the old lag it paged again, downgraded to a warning)."""
    incident = build(
        jobs=[job_spec("train", yours=True, checkpoint={"every": 20, "volume": "scratch"})],
        storage=[
            {
                "name": "scratch",
                "capacity": "100TB",
                "used": "99TB",
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
                "df_lag": "10m",
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(500)
    volume = d.world.volumes["scratch"]
    [full] = [a for a in d.world.pager.alerts if a.source == "scratch"]
    assert full.severity == "critical"
    volume.remove(d.world.now, next(iter(volume.team_used)), 30 * TB)
    d.advance(1800)
    later = [a.text for a in d.world.pager.alerts if a.source == "scratch" and a.time > 500]
    assert later == []


def test_df_has_no_quota_column_and_lfs_quota_shows_the_team_against_its_limit():
    """Audit row 45: quotas come from the file system's quota tool, not from `df`."""
    incident = build(
        jobs=[job_spec("train", yours=True, checkpoint={"every": 20, "volume": "scratch"})],
        storage=[
            {
                "name": "scratch",
                "capacity": "100TB",
                "quotas": {"ml": "5TB"},
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(60)
    assert d.act("df").output.splitlines()[0].split() == ["VOLUME", "SIZE", "USED", "AVAIL", "USE%"]
    assert "quota" not in d.act("df scratch").output.lower()
    d.world.volumes["scratch"].add(d.world.now, "ml", 2 * TB)
    lines = d.act("lfs quota scratch").output.splitlines()
    assert lines[0] == "Disk quotas for group ml:"
    assert lines[1].split() == ["Filesystem", "used", "quota", "limit", "grace"]
    assert lines[2].split() == ["/scratch", "2.0TB", "0", "5.0TB", "-"]
    d.world.volumes["scratch"].add(d.world.now, "ml", 4 * TB)
    assert d.act("lfs quota").output.splitlines()[2].split()[1] == "6.0TB*"  # over its limit


def night_with_full_disk(atomic: bool, verify: bool = False) -> Drill:
    incident = build(
        jobs=[
            job_spec(
                "train",
                yours=True,
                steps=120,
                model_params="70B",
                bytes_per_param=14,
                retry={"max_restarts": 1, "backoff": "30s"},
                checkpoint={
                    "every": 20,
                    "keep": 5,
                    "atomic": atomic,
                    "verify_on_resume": verify,
                    "volume": "scratch",
                },
            )
        ],
        storage=[
            {
                "name": "scratch",
                "capacity": "5TB",
                "used": "2.5TB",
                "read_bandwidth": "20GB/s",
                "write_bandwidth": "10GB/s",
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(3600)
    return d


def test_a_failed_atomic_write_keeps_the_previous_checkpoint():
    d = night_with_full_disk(atomic=True)
    catalog = d.world.jobs["train"].checkpoints
    assert [r.step for r in catalog.live()] == [20, 40]  # the third write did not fit
    assert catalog.latest_step == 40
    assert all(r.condition == "ok" for r in catalog.live())
    texts = [e.text for e in d.world.timeline]
    failed = [t for t in texts if "PytorchStreamWriter failed writing file data/0" in t]
    assert failed and all("Errno" not in t and "No space" not in t for t in failed)
    assert d.learner_job.log.lines and any(
        line.text == "[rank0]: RuntimeError: PytorchStreamWriter failed writing file data/0:"
        " file write failed"
        for line in d.learner_job.log.lines
    ), "what torch prints, with no errno"


def test_a_failed_non_atomic_write_leaves_a_torn_file_and_latest_points_at_it():
    d = night_with_full_disk(atomic=False)
    catalog = d.world.jobs["train"].checkpoints
    torn = [r for r in catalog.live() if r.condition == "torn"]
    assert torn and catalog.latest_step == torn[-1].step
    # The retry resumes from `latest` and fails the way torch fails on a cut-short zip.
    assert d.learner_job.state == "failed"
    verdict = d.act(f"ckpt verify train {torn[-1].step}").output
    assert "FAILED" in verdict


def test_a_torn_load_fails_through_torchruns_child_failed_error():
    """Audit row 30: the load fails the way every other rank error does: rank 0 logs torch's
    RuntimeError, and the attempt ends with torchrun's ChildFailedError quoting it."""
    d = night_with_full_disk(atomic=False)
    loads = [a.why for a in d.learner_job.attempts if "PytorchStreamReader" in a.why]
    assert loads, [a.why for a in d.learner_job.attempts]
    raised = (
        "[rank0]: RuntimeError: PytorchStreamReader failed reading zip archive:"
        " failed finding central directory"
    )
    for why in loads:
        assert why.startswith("ChildFailedError: train.py FAILED. Root Cause") and why.endswith(
            raised
        ), why
    assert any(line.text == raised for line in d.learner_job.log.lines)


def test_retention_keeps_the_newest_k():
    incident = build(
        jobs=[
            job_spec(
                "train",
                yours=True,
                steps=120,
                checkpoint={"every": 10, "keep": 2, "write_time": "5s"},
            )
        ]
    )
    d = Drill(incident, 1)
    d.play_out()
    assert [r.step for r in d.world.jobs["train"].checkpoints.live()] == [100, 110]


def test_quota_requests_take_time_and_can_be_refused():
    def night(answer: str) -> Drill:
        incident = build(
            jobs=[
                job_spec(
                    "train", yours=True, checkpoint={"every": 20, "keep": 3, "volume": "scratch"}
                )
            ],
            storage=[
                {
                    "name": "scratch",
                    "capacity": "50TB",
                    "quotas": {"ml": "2TB"},
                    "read_bandwidth": "10GB/s",
                    "write_bandwidth": "10GB/s",
                    "quota_requests": answer,
                    "quota_response": "15m",
                    "quota_max_increase": "1TB",
                }
            ],
        )
        return Drill(incident, 1)

    granted = night("grant")
    assert granted.act("quota scratch +3TB").accepted
    assert granted.world.volumes["scratch"].quotas["ml"] == 2 * TB  # nothing yet
    granted.advance(16 * 60)
    assert granted.world.volumes["scratch"].quotas["ml"] == 3 * TB  # capped at +1TB
    assert any("raised" in a.text for a in granted.world.pager.alerts)
    refused = night("refuse")
    refused.act("quota scratch +3TB")
    refused.advance(16 * 60)
    assert refused.world.volumes["scratch"].quotas["ml"] == 2 * TB
    assert any("refused" in a.text for a in refused.world.pager.alerts)
    bad = night("grant").act("quota scratch 3TB")
    assert not bad.accepted and "+2TB" in bad.output


def test_sizes_and_rates_are_parsed_strictly():
    with pytest.raises(ValueError, match="20TB"):
        VolumeSpec.model_validate(
            {
                "name": "v",
                "capacity": "20 TBs",
                "read_bandwidth": "1GB/s",
                "write_bandwidth": "1GB/s",
            }
        )
    with pytest.raises(ValueError, match="5GB/s"):
        VolumeSpec.model_validate(
            {
                "name": "v",
                "capacity": "20TB",
                "read_bandwidth": "5GB per s",
                "write_bandwidth": "1GB/s",
            }
        )


def test_a_volume_that_stays_full_pages_once_not_again_downgraded():
    """Audit row 25's second half: after the critical page, the next sample must not page the
    same "100% full" again as a warning."""
    incident = build(
        jobs=[job_spec("train", yours=True, checkpoint={"every": 20, "volume": "scratch"})],
        storage=[
            {
                "name": "scratch",
                "capacity": "100TB",
                "used": "99TB",
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(3600)
    pages = [(a.severity, a.text) for a in d.world.pager.alerts if a.source == "scratch"]
    assert [severity for severity, _ in pages] == ["critical"], pages

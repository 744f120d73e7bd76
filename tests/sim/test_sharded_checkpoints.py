"""A 70B-class job on 16 GPUs trains sharded (FSDP/ZeRO), as audit rows 15 and 33 ask: every rank
writes its own shard, its collectives are all-gathers and reduce-scatters, and `ckpt verify`
reports each file's size or sha256 against the manifest, never a diagnosis.

A 7B job's bf16 weights (14 GB) fit one GPU: it stays data parallel, one file from rank 0.
"""

from __future__ import annotations

import pytest

from drill.sim.jobs import FAILED
from drill.sim.shards import is_sharded
from tests.drillkit import drill, job_spec, with_fault

TB = 10**12


def big_job(**fields):
    spec = {"checkpoint": {"every": 20, "keep": 3, "volume": "scratch"}, **fields}
    return job_spec("train", yours=True, model_params="70B", bytes_per_param=14, **spec)


def volume(**fields):
    return {
        "name": "scratch",
        "capacity": "100TB",
        "read_bandwidth": "20GB/s",
        "write_bandwidth": "8GB/s",
        **fields,
    }


def test_only_a_model_whose_weights_outgrow_a_gpu_is_sharded():
    # bf16 weights against an 80 GB board's 81559 MiB: about 42.8B parameters is the line.
    assert is_sharded(70e9) and is_sharded(43e9)
    assert not is_sharded(7e9) and not is_sharded(42e9)


def test_every_rank_logs_its_own_shard_and_the_write_takes_the_total_over_the_volume():
    d = drill(with_fault({"kind": "kill_rank", "at": "2h"}, jobs=[big_job()], storage=[volume()]))
    d.advance(600)
    lines = d.learner_job.log.lines
    saving = [line for line in lines if "saving checkpoint step 20" in line.text]
    assert [line.rank for line in saving] == list(range(16))
    assert saving[3].text == "saving checkpoint step 20: shard 3 of 16 (61.2GB, 980.0GB in all)"
    assert not any("saving checkpoint step 20 (980.0GB)" in line.text for line in lines)
    [saved] = [line for line in lines if "checkpoint step 20 saved" in line.text]
    # 16 shards of 61.25 GB, each at a sixteenth of 8 GB/s: 122.5 s, the total over the volume.
    assert saved.text == "checkpoint step 20 saved: 16 shards and the manifest in 2m02s"
    record = d.learner_job.checkpoints.get(20)
    assert record.shards == 16 and record.size == pytest.approx(980e9)


def test_a_small_model_writes_one_file_from_rank_0():
    spec = job_spec("train", yours=True, model_params="7B", bytes_per_param=14)
    spec["checkpoint"] = {"every": 20, "keep": 3, "volume": "scratch"}
    d = drill(with_fault({"kind": "kill_rank", "at": "2h"}, jobs=[spec], storage=[volume()]))
    d.advance(400)
    saving = [line for line in d.learner_job.log.lines if "saving checkpoint" in line.text]
    assert [(line.rank, line.text) for line in saving] == [
        (0, "saving checkpoint step 20 (98.0GB)"),
    ]


def test_a_sharded_jobs_watchdog_waits_in_a_reduce_scatter_or_an_all_gather():
    d = drill(
        with_fault(
            {"kind": "hang_rank", "at": "10m", "target": {"job": "train", "rank": 9}},
            jobs=[big_job(checkpoint={"every": 500, "keep": 3, "write_time": "20s"})],
        )
    )
    d.advance(600 + 600 + 30)
    job = d.learner_job
    assert job.state == FAILED
    assert "OpType=ALLREDUCE" not in job.reason
    assert "OpType=_ALLGATHER_BASE" in job.reason or "OpType=_REDUCE_SCATTER_BASE" in job.reason


def test_ckpt_verify_lists_each_shard_against_the_manifest_without_a_diagnosis():
    # Scratch has 1.5TB left: the second 980GB write stops part way with 16 torn shards.
    spec = big_job(retry={"max_restarts": 0, "backoff": "30s"})
    spec["checkpoint"] = {"every": 20, "keep": 3, "atomic": False, "volume": "scratch"}
    d = drill(
        with_fault(
            {"kind": "kill_rank", "at": "2h"},
            jobs=[spec],
            storage=[volume(capacity="2TB", used="0.5TB")],
        )
    )
    d.advance(3600)
    torn = [r for r in d.learner_job.checkpoints.live() if r.condition == "torn"]
    assert torn, [(r.step, r.condition) for r in d.learner_job.checkpoints.live()]
    out = d.act(f"ckpt verify train {torn[0].step}").output.splitlines()
    assert out[0] == f"train step {torn[0].step}: FAILED: 16 of 16 files do not match the manifest"
    assert out[1].startswith("  __0_0.distcp: size ") and out[1].endswith(", manifest says 61.2GB")
    assert len(out) == 17
    assert "torn" not in "\n".join(out)
    good = [r for r in d.learner_job.checkpoints.live() if r.condition == "ok"]
    assert d.act(f"ckpt verify train {good[0].step}").output == (
        f"train step {good[0].step}: every shard: size and sha256 match the manifest"
    )


def test_checkpoints_without_a_volume_sit_on_shared_storage_that_every_node_reads():
    """Audit row 16: a restart on other nodes loads the checkpoint, so it cannot have been on
    the first node's local disk. No text may say it was."""
    import re
    from pathlib import Path

    from drill.engine.storage_view import storage_view
    from drill.tui.widgets.storage import storage_text
    from tests.drillkit import build

    d = drill(build())
    said = d.act("df").output
    assert "shared storage that every node reads" in said and "own disk" not in said, said
    panel = storage_text(storage_view(d), str).renderables[0].plain
    assert "shared storage that every node reads" in panel and "own disk" not in panel, panel
    incidents = Path(__file__).resolve().parents[2] / "drill" / "incidents"
    for path in incidents.glob("*.yaml"):
        text = " ".join(path.read_text().split())
        assert not re.search(r"checkpoints? [^.]*(local|own) disk", text), path.name

"""nfs_hang: a rank blocked in a network filesystem read raises nothing. Its step age grows,
the no-progress page comes, and only its stack says where it is; with a collective timeout
past the night's end no watchdog ever fires."""

from __future__ import annotations

import re

from drill.sim.jobs import RUNNING
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, learner_outputs

ID = "zz-secret-fault"
PATIENT = job_spec("train", yours=True, collective_timeout="3h", steps=600)


def night(**fault):
    spec = {"id": ID, "kind": "nfs_hang", "at": "10m", "target": {"job": "train", "rank": 5}}
    return drill(build(jobs=[PATIENT], faults=[{**spec, **fault}]))


def test_a_rank_stuck_on_nfs_hangs_the_job_silently_all_night():
    d = night()
    d.advance(7200)
    job = d.learner_job
    assert job.state == RUNNING and len(job.attempts) == 1, "nothing ever fails"
    stuck_at = job.step
    logs = "\n".join(line.text for line in job.log.lines)
    assert "Watchdog" not in logs and "Error" not in logs
    pages = [a.text for a in d.world.pager.alerts]
    assert any("no training progress for 5m" in p for p in pages), pages
    frames = job.current.blocked_in[5]
    assert frames[0] == "read (shard_reader.py:58)"
    assert "_next_data (torch/utils/data/dataloader.py:674)" in frames
    node = d.world.faults.chosen[ID][0].node
    out = learner_outputs(d, "train", [node])
    assert "nfs: server nfs-data01 not responding" in out[f"health {node}"], "a hard mount says so"
    assert_no_fault_names(out, ID)
    assert stuck_at == d.learner_job.step


def test_the_kernel_says_the_server_is_gone_then_reports_the_blocked_task():
    """A hard mount: a minute in, the client logs the server; at 120 s the hung task check
    reports the rank's process, by the pid `stack` names, with the read's wait in NFS."""
    d = night(server="nfs-home02")
    d.advance(600 + 59)
    node = d.world.faults.chosen[ID][0].node
    assert d.act(f"dmesg {node}").output == "", "nothing before the RPC times out"
    d.advance(120)
    pid = re.search(r"Process (\d+): python", d.act("stack train 5").output).group(1)
    out = d.act(f"dmesg {node}").output.splitlines()
    stamp = r"\[ *\d+\.\d{6}\] "
    assert re.fullmatch(stamp + "nfs: server nfs-home02 not responding, still trying", out[0])
    assert re.fullmatch(
        stamp + f"INFO: task python:{pid} blocked for more than 120 seconds.", out[1]
    )
    assert any(re.fullmatch(stamp + rf"task:python +state:D .*pid: ?{pid} .*", ln) for ln in out)
    trace = [ln.split("] ", 1)[1] for ln in out]
    assert " rpc_wait_bit_killable+0x25/0xb0 [sunrpc]" in trace
    assert trace.index(" rpc_wait_bit_killable+0x25/0xb0 [sunrpc]") < trace.index(
        " nfs_file_read+0x4c/0xd0 [nfs]"
    ), "the wait is under the read"
    health = d.act(f"health {node}").output
    assert f"INFO: task python:{pid} blocked for more than 120 seconds." in health
    assert "rpc_wait_bit_killable" not in health, "health shows each message's first line"


def test_an_old_file_can_still_keep_the_kernel_quiet():
    d = night(server_log=False)
    d.advance(1800)
    node = d.world.faults.chosen[ID][0].node
    assert d.world.cluster.nodes[node].kernel_log == []


def test_a_restart_before_two_minutes_leaves_no_hung_task_report():
    d = night()
    d.advance(600 + 90)
    assert d.act("restart train --from latest").accepted
    d.advance(600)
    node = d.world.faults.chosen[ID][0].node
    lines = [text for _, text in d.world.cluster.nodes[node].kernel_log]
    assert lines == ["nfs: server nfs-data01 not responding, still trying"]


def test_when_the_server_answers_the_gang_moves_on_by_itself():
    d = night(duration="15m")
    d.advance(600 + 900 + 60)
    job = d.learner_job
    assert job.current.stall_wake is None and 5 not in job.current.blocked_in
    step = job.step
    d.advance(300)
    assert job.step > step
    node = d.world.faults.chosen[ID][0].node
    assert "nfs: server nfs-data01 OK" in [t for _, t in d.world.cluster.nodes[node].kernel_log]


def test_a_restart_reads_again_and_trains():
    d = night()
    d.advance(1200)
    assert d.act("restart train --from latest").accepted
    d.advance(900)
    job = d.learner_job
    assert job.current.training and not job.current.blocked_in
    step = job.step
    d.advance(300)
    assert job.step > step


def test_a_short_collective_timeout_still_fires_the_watchdog():
    d = drill(
        build(
            jobs=[job_spec("train", yours=True, collective_timeout="10m")],
            faults=[{"id": ID, "kind": "nfs_hang", "at": "10m", "target": {"job": "train"}}],
        )
    )
    d.advance(1800)
    assert "Watchdog caught collective operation timeout" in d.learner_job.attempts[0].why


def test_the_stuck_ranks_dump_and_a_waiting_ranks_dump_agree_on_the_script():
    # Two dumps of one job come from one train.py: the frames below the data loader are the
    # same script frames the waiting rank shows below its all-reduce.
    d = night()
    d.advance(1200)
    stuck = d.act("stack train 5").output.splitlines()
    waiting = d.act("stack train 0").output.splitlines()
    assert stuck[4] == "    read (shard_reader.py:58)"
    assert stuck[-2:] == waiting[-2:] == ["    main (train.py:212)", "    <module> (train.py:230)"]
    assert any("train_step (train.py:" in line for line in stuck)

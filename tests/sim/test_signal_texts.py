"""Each signal text reads as the named tool prints it in real life (issue 15's list).

One test per text. Read the way a learner reads them (health, logs, status, the pager).
"""

from __future__ import annotations

import re

import pytest

from drill.engine.drill import Drill
from drill.faults.xids import XIDS, xid_lines
from drill.sim.jobs import COMPLETED, FAILED, RUNNING
from drill.sim.torchrun import collective_seq
from tests.drillkit import (
    SECRET_FAULT_ID,
    build,
    drill,
    job_spec,
    learner_outputs,
    with_fault,
)

AT = 600.0
RANK = 9  # gpu-a-2, local rank 1


def night(fault: dict, *, max_restarts: int = 0):
    spec = job_spec("train", yours=True, retry={"max_restarts": max_restarts, "backoff": "30s"})
    return drill(with_fault({"at": "10m", **fault}, jobs=[spec]))


def pick(d):
    return d.world.faults.chosen[SECRET_FAULT_ID][0]


def kernel(d, node: str) -> list[str]:
    return [text for _, text in d.world.cluster.nodes[node].kernel_log]


def test_xid_79_line_has_no_pid_and_is_followed_by_the_bus_error():
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 1)
    p = pick(d)
    bus = d.world.cluster.nodes[p.node].gpus[p.gpu].bus_id
    assert kernel(d, p.node) == [
        f"NVRM: Xid (PCI:{bus[:-2]}): 79, pid='<unknown>', name=<unknown>,"
        " GPU has fallen off the bus.",
        f"NVRM: GPU {bus}: GPU has fallen off the bus.",
    ]


def test_an_application_xid_names_the_process():
    [line] = xid_lines("0000:3a:00.0", 13, 41001)
    assert (
        line == "NVRM: Xid (PCI:0000:3a:00): 13, pid=41001, name=python, Graphics SM Warp"
        " Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address"
    )


def test_a_gpu_page_fault_prints_the_mmu_fault_as_the_driver_does():
    [line] = xid_lines("0000:5c:00.0", 31, 41008)
    assert line == (
        "NVRM: Xid (PCI:0000:5c:00): 31, pid=41008, name=python, Ch 00000008, intr 00000000."
        " MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_3 faulted @ 0x7f4c_2a400000. Fault is of"
        " type FAULT_PDE ACCESS_TYPE_VIRT_READ"
    )


@pytest.mark.parametrize(
    ("code", "name", "effect", "breaks", "persists"),
    [
        (48, "Double Bit ECC Error", "crash", True, False),
        (63, "ECC page retirement or row remapping recording event", "none", False, False),
        (64, "ECC page retirement or row remapper recording failure", "crash", True, True),
        (74, "NVLINK Error", "crash", True, False),
        (119, "GSP RPC Timeout", "hang", True, False),
    ],
)
def test_xid_catalogue_as_current_gpus_behave(code, name, effect, breaks, persists):
    record = XIDS[code]
    assert (record.name, record.effect, record.breaks, record.persists) == (
        name,
        effect,
        breaks,
        persists,
    )


def test_xid_48_is_cleared_by_a_reset_and_64_is_not():
    for code, clears in ((48, True), (64, False)):
        d = night({"kind": "gpu_xid", "xid": code, "target": {"job": "train", "rank": RANK}})
        d.advance(AT + 1)
        gpu = d.world.cluster.nodes[pick(d).node].gpus[pick(d).gpu]
        assert gpu.broken and gpu.clears_on_reboot is clears, code


def test_xid_63_leaves_the_job_training():
    d = night({"kind": "gpu_xid", "xid": 63, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 120)
    assert d.learner_job.state == RUNNING and len(d.learner_job.attempts) == 1
    assert any(": 63, pid=" in line for line in kernel(d, pick(d).node))


def test_xid_74_crashes_with_the_nvlink_cuda_error():
    d = night({"kind": "gpu_xid", "xid": 74, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 10)
    why = d.learner_job.attempts[0].why
    assert "uncorrectable NVLink error was detected during the execution" in why


def test_xid_119_names_the_gsp_and_hangs_the_rank():
    d = night({"kind": "gpu_xid", "xid": 119, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 10)
    p = pick(d)
    [line] = kernel(d, p.node)
    assert f"Timeout after 6s of waiting for RPC response from GPU{p.gpu} GSP!" in line
    assert d.learner_job.state == RUNNING, "the rank hangs until the watchdog"


def test_cuda_errors_name_neither_host_nor_gpu():
    d = night({"kind": "gpu_xid", "xid": 48, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 10)
    rank_log = learner_outputs(d, "train", [])[f"logs train --rank {RANK}"]
    line = next(x for x in rank_log.splitlines() if "CUDA error" in x)
    assert line.endswith(
        f"[rank{RANK}]: RuntimeError: CUDA error: uncorrectable ECC error encountered"
    )


def test_health_reports_and_does_not_advise():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}})
    d.advance(AT + 120)
    out = learner_outputs(d, "train", ["gpu-a-2"])["health gpu-a-2"]
    assert "no answer from the node" in out
    for advice in ("Reboot it", "swap it", "spare", "drain"):
        assert advice not in out


def test_throttling_is_not_in_the_kernel_log():
    d = night({"kind": "straggler", "slowdown": 2.0, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    assert kernel(d, pick(d).node) == []


def test_a_leaf_flap_is_in_the_switch_log_not_any_node_dmesg():
    d = night({"kind": "link_flap", "duration": "20s", "target": {"leaf": "leaf-a1"}})
    d.advance(AT + 1)
    for node in d.world.cluster.leaves["leaf-a1"][1]:
        assert kernel(d, node) == []
    assert ("leaf-a1 ports 1/1-1/16 (hosts) and 1/17-1/64 (uplinks): link down") in [
        text for _, text in d.world.cluster.switch_log["leaf-a1"]
    ]


def test_an_oom_kill_prints_the_kernels_memory_counters():
    """The kernel's oom_kill line carries total-vm, anon-rss, file-rss, shmem-rss, UID,
    pgtables and oom_score_adj, never the bare `Killed process` (audit row 37)."""
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 1)
    [line] = kernel(d, pick(d).node)
    m = re.fullmatch(
        r"Out of memory: Killed process (\d+) \(python\) total-vm:(\d+)kB, anon-rss:(\d+)kB,"
        r" file-rss:\d+kB, shmem-rss:\d+kB, UID:\d+ pgtables:\d+kB oom_score_adj:0",
        line,
    )
    assert m, line
    assert int(m.group(2)) > int(m.group(3)), "a process maps more than it holds"


def test_watchdog_abort_and_child_failed_error_not_an_invented_summary():
    d = night({"kind": "hang_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 1)
    step = d.learner_job.step
    d.advance(600)
    job = d.learner_job
    assert job.state == FAILED
    seq = collective_seq(step) + 1
    assert job.reason.startswith(
        "ChildFailedError: train.py FAILED. Root Cause (first observed failure): host: gpu-a-1,"
        " rank: 0 (local_rank: 0), exitcode: -6 (pid: 40000), error_file: <N/A>, traceback:"
        " Signal 6 (SIGABRT) received by PID 40000. From rank 0's log:"
        " [rank0]:[E ProcessGroupNCCL.cpp] [Rank 0] Watchdog caught collective"
        f" operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE"
    )
    logs = learner_outputs(d, "train", [])
    assert (
        f"[PG 0 Rank 3] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq},"
        f" last completed NCCL work: {seq - 1}." in logs["logs train --rank 3"]
    )
    assert "taking the entire process down" in logs["logs train --rank 3"]
    assert "Watchdog" not in logs[f"logs train --rank {RANK}"], "the hung rank has no timeout"
    assert "ranks reported it" not in job.reason


def test_a_crashed_rank_is_named_as_torchrun_names_it_and_its_error_quoted_from_its_log():
    """torchrun's Root Cause entry for a rank that exited 1 with no error file: error_file
    <N/A> and the pointer to how to get a traceback, never the child's exception as if
    torchrun had it; what the rank raised comes marked as its own log's line (audit row 29)."""
    d = night({"kind": "gpu_xid", "xid": 13, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    why = d.learner_job.attempts[0].why
    head, quote = why.split(f" From rank {RANK}'s log: ")
    assert re.fullmatch(
        r"ChildFailedError: train\.py FAILED\. Root Cause \(first observed failure\): host:"
        rf" gpu-a-2, rank: {RANK} \(local_rank: 1\), exitcode: 1 \(pid: \d+\), error_file:"
        r" <N/A>, traceback: To enable traceback see:"
        r" https://pytorch\.org/docs/stable/elastic/errors\.html\.",
        head,
    ), why
    assert quote.startswith(f"[rank{RANK}]: RuntimeError: ")
    assert quote in learner_outputs(d, "train", [])[f"logs train --rank {RANK}"]


def test_ib_loss_fails_nccl_within_seconds_with_the_retry_error():
    d = night({"kind": "link_flap", "target": {"leaf": "leaf-a1"}}, max_restarts=0)
    d.advance(AT + 60)
    job = d.learner_job
    assert job.state == FAILED
    log = learner_outputs(d, "train", [])["logs train --rank 0"]
    assert "NCCL WARN NET/IB : Got completion from peer" in log
    assert "transport retry counter exceeded" in log
    assert "ncclRemoteError" in job.reason


def test_an_async_nccl_error_is_caught_by_the_watchdog_and_aborts_the_rank():
    # Audit row 24: the network error surfaces in the watchdog thread, not as a Python
    # RuntimeError; it rethrows and the process aborts, so torchrun sees SIGABRT, not exit 1.
    d = night({"kind": "link_flap", "target": {"leaf": "leaf-a1"}}, max_restarts=0)
    d.advance(AT + 60)
    job = d.learner_job
    assert (
        "exitcode: -6 (pid: 40000), error_file: <N/A>, traceback: Signal 6 (SIGABRT) received"
        " by PID 40000. From rank 0's log:"
    ) in job.reason
    assert (
        "[rank0]:[E ProcessGroupNCCL.cpp] [PG 0 Rank 0] Process group watchdog thread terminated"
        " with exception: NCCL error: remote process exited or there was a network error"
    ) in job.reason
    assert "RuntimeError" not in job.reason and "exitcode: 1 " not in job.reason
    lines = learner_outputs(d, "train", [])["logs train --rank 0"].splitlines()
    caught = next(i for i, line in enumerate(lines) if "watchdog thread terminated" in line)
    assert lines[caught + 1].endswith(
        "terminate called after throwing an instance of 'c10::DistBackendError'"
    )
    assert not any("RuntimeError" in line for line in lines)


def test_a_short_flap_does_not_fail_the_job():
    d = night({"kind": "link_flap", "duration": "20s", "target": {"leaf": "leaf-a1"}})
    d.advance(7200)
    assert d.learner_job.state == COMPLETED and len(d.learner_job.attempts) == 1


def test_the_fill_page_and_df_agree_on_how_full_the_volume_is():
    incident = build(
        jobs=[job_spec("train", yours=True, checkpoint={"every": 20, "volume": "scratch"})],
        storage=[
            {
                "name": "scratch",
                "capacity": "100TB",
                "used": "85TB",
                "read_bandwidth": "10GB/s",
                "write_bandwidth": "10GB/s",
                "df_lag": "10m",
                "tenants": [{"team": "vision", "rate": "20TB/h", "start": "03:00"}],
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(3600)
    pages = [a for a in d.world.pager.alerts if a.source == "scratch"]
    assert pages, "the volume filled"
    page = pages[-1]
    d2 = Drill(incident, 1)
    d2.advance(page.time)
    df_row = d2.act("df scratch").output.splitlines()[1].split()
    assert f"is {df_row[4]} full" in page.text, (page.text, df_row)


def test_the_enospc_text_is_torchs_without_an_errno():
    incident = build(
        jobs=[
            job_spec(
                "train",
                yours=True,
                model_params="70B",
                bytes_per_param=14,
                checkpoint={"every": 20, "volume": "scratch"},
            )
        ],
        storage=[
            {
                "name": "scratch",
                "capacity": "2TB",
                "used": "1.5TB",
                "read_bandwidth": "20GB/s",
                "write_bandwidth": "10GB/s",
            }
        ],
    )
    d = Drill(incident, 1)
    d.advance(3600)
    log = learner_outputs(d, "train", [])["logs train --rank 0"]
    assert (
        "[rank0]: RuntimeError: PytorchStreamWriter failed writing file data/0: file write failed"
        in log
    )
    assert "Errno" not in log and "No space left" not in log


def test_real_gloo_errors_are_tagged_with_the_jobs_rank_numbers():
    from drill.engine.gloo_training import sim_rank_tag

    text = "[rank 1] RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer"
    assert sim_rank_tag(text, 16, 2) == (
        "[rank8]: RuntimeError: [../gloo/transport/tcp/pair.cc:598] Connection closed by peer"
    )
    assert sim_rank_tag(text.replace("rank 1", "rank 0"), 16, 2).startswith("[rank0]: ")
    assert sim_rank_tag("untagged", 16, 2) == "untagged"

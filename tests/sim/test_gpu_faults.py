"""The GPU and node fault kinds that fail the next start-up, and the reset that clears them:
each leaves the text the real stack prints, where the learner's tools read it, and none names
the fault."""

from __future__ import annotations

import re

import pytest

from drill.sim.jobs import RUNNING
from drill.sim.operations import healthy
from tests.drillkit import assert_no_fault_names, build, drill, job_spec, learner_outputs

ID = "zz-secret-fault"
RETRYING = job_spec(
    "train",
    yours=True,
    retry={"max_restarts": 2, "backoff": "30s"},
    nodes=["gpu-a-1", "gpu-a-2"],
)


def night(fault: dict, job: dict = RETRYING, **fields):
    return drill(build(jobs=[job], faults=[{"id": ID, "at": "10m", **fault}], **fields))


def why(d) -> list[str]:
    return [a.why for a in d.learner_job.attempts if a.why]


def all_logs(d) -> str:
    return "\n".join(line.text for line in d.learner_job.log.lines)


# -- zombie_memory ---------------------------------------------------------------------------


def leftover(d, node: str = "gpu-a-1", gpu: int = 3) -> int:
    """The pid of the process the fault left holding the GPU."""
    held = d.world.cluster.nodes[node].gpus[gpu].held_by
    assert held is not None
    return held[0]


def failed_pid(reason: str) -> int:
    """The pid torchrun's ChildFailedError names for the rank that failed."""
    return int(re.search(r"\(pid: (\d+)\)", reason).group(1))


def test_a_zombie_holding_memory_fails_the_restart_with_cuda_oom_naming_the_leftover_pid():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(1500)
    node = d.world.cluster.nodes["gpu-a-1"]
    pid = leftover(d)
    reasons = why(d)
    assert "illegal memory access" in reasons[0]
    assert "torch.OutOfMemoryError: CUDA out of memory" in reasons[1]
    assert f"Process {pid} has 74.00 GiB memory in use" in reasons[1]
    assert "GPU 3 has a total capacity of 79.65 GiB of which 5.65 GiB is free" in reasons[1]
    assert node.gpus[3].held_by == (pid, 75776)
    # The leftover is neither the crashed rank nor the rank that failed to start beside it.
    assert len({pid, failed_pid(reasons[0]), failed_pid(reasons[1])}) == 3, reasons
    out = learner_outputs(d, "train", ["gpu-a-1"])
    assert_no_fault_names(out, ID)


def test_the_illegal_access_logs_an_xid_31_mmu_fault_naming_the_crashed_rank():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(620)
    crashed = failed_pid(why(d)[0])
    health = d.act("health gpu-a-1").output
    assert (
        f"NVRM: Xid (PCI:0000:4b:00): 31, pid={crashed}, name=python, Ch 00000008, intr 00000000."
        " MMU Fault: ENGINE GRAPHICS" in health
    ), health
    assert "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" in health
    assert "kernel log: nothing unusual" not in health


def test_another_error_logs_no_mmu_fault():
    fault = {"kind": "zombie_memory", "error": "RuntimeError: boom", "target": {"job": "train"}}
    d = night(fault)
    d.advance(620)
    assert not any(": 31, " in text for _, text in d.world.cluster.nodes["gpu-a-1"].kernel_log)


def test_a_reset_is_refused_while_the_leftover_holds_the_gpu():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(615)  # the launcher noticed; nothing of the job runs on the GPU
    result = d.act("reset gpu-a-1 --gpu 3")
    assert not result.accepted
    assert result.output == (
        "Unable to reset GPU 00000000:4B:00.0 because it's being used by some other process; kill the"
        " processes using this GPU first (`gpus gpu-a-1` lists them), then try the reset again"
    )
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by is not None
    assert not d.act("reset gpu-a-1").accepted, "a reset of every GPU includes that one"


def test_killing_the_leftover_frees_the_memory_and_the_restart_trains():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(615)
    pid = leftover(d)
    result = d.act(f"kill gpu-a-1 {pid}")
    assert result.accepted, result.output
    assert result.output == f"gpu-a-1: killed {pid} (python); GPU 3 has its 74.00 GiB back"
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by is None
    d.advance(1200)  # no reset: the retry's start-up gets the memory
    assert d.learner_job.state == RUNNING and d.learner_job.current.training
    assert d.act("reset gpu-a-1 --gpu 3").accepted or d.learner_job.state == RUNNING


def test_a_leftover_stuck_in_the_driver_survives_kill_and_only_a_reboot_frees_it():
    fault = {"kind": "zombie_memory", "killable": False, "target": {"job": "train", "rank": 3}}
    d = night(fault)
    d.advance(615)
    pid = leftover(d)
    result = d.act(f"kill gpu-a-1 {pid}")
    assert result.accepted, result.output
    assert "still there in state D" in result.output and "a reboot frees it" in result.output
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by == (pid, 75776)
    assert not d.act("reset gpu-a-1 --gpu 3").accepted
    assert d.act("reboot gpu-a-1").accepted
    d.advance(600)
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by is None


def test_kill_refuses_a_pid_the_node_does_not_have():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(615)
    pid = leftover(d)
    result = d.act(f"kill gpu-a-2 {pid}")  # the leftover is on gpu-a-1
    assert not result.accepted
    assert result.output == (
        f"gpu-a-2: kill: ({pid}) - No such process; `gpus gpu-a-2` lists the pids on its GPUs"
    )
    assert "\n" not in result.output
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by is not None


def test_kill_refuses_a_rank_of_a_running_job():
    d = night({"kind": "zombie_memory", "at": "50m", "target": {"job": "train"}})
    d.advance(300)
    pid = d.world.pid_on_gpu("gpu-a-1", 0)
    result = d.act(f"kill gpu-a-1 {pid}")
    assert not result.accepted
    assert result.output == (
        f"{pid} on gpu-a-1 is a live process of train; killing one rank only crashes the job,"
        " and `restart` or `cancel` stops it whole"
    )
    assert d.learner_job.state == RUNNING


def test_a_reset_is_refused_while_work_runs_on_the_gpu():
    d = night({"kind": "zombie_memory", "at": "50m", "target": {"job": "train"}})
    d.advance(300)
    result = d.act("reset gpu-a-1")
    assert not result.accepted
    assert "Unable to reset GPU 00000000:18:00.0 because it's being used by some other process" in (
        result.output
    )
    assert "train" in result.output


def test_a_reboot_frees_it_too():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(620)
    assert d.act("reboot gpu-a-1").accepted
    d.advance(600)
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].held_by is None


# -- gpu_needs_reset -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("xid", "line", "raised"),
    [
        (
            74,
            "74, pid='<unknown>', name=<unknown>, NVLink: fatal error detected on link 5",
            "NVLink",
        ),
        (119, "Timeout after 6s of waiting for RPC response from GPU3 GSP!", None),
    ],
)
def test_an_xid_that_needs_a_reset_leaves_its_line_and_breaks_the_gpu(xid, line, raised):
    d = night({"kind": "gpu_needs_reset", "xid": xid, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    out = learner_outputs(d, "train", ["gpu-a-1"])
    assert line in out["health gpu-a-1"]
    gpu = d.world.cluster.nodes["gpu-a-1"].gpus[3]
    assert (
        gpu.broken and gpu.needs_reset and not gpu.remap_pending
    )  # 63: tests/sim/test_row_remap.py
    if raised:
        assert raised in why(d)[0]
    else:
        assert d.learner_job.current.stall_wake is not None, "119: the rank hangs"
    assert_no_fault_names(out, ID)


def test_a_reset_clears_an_xid_74_and_the_restart_on_the_same_node_trains():
    d = night({"kind": "gpu_needs_reset", "xid": 74, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    result = d.act("reset gpu-a-1 --gpu 3")
    assert result.accepted and "still reports an error" not in result.output
    # nvidia-smi -r's own words (audit row 34), one line a GPU, then its closing line.
    assert result.output == (
        "gpu-a-1: GPU 00000000:4B:00.0 was successfully reset.\ngpu-a-1: All done."
    )
    assert not d.world.cluster.nodes["gpu-a-1"].gpus[3].broken
    assert d.act("restart train --from latest").accepted
    d.advance(600)
    assert d.learner_job.state == RUNNING and d.learner_job.current.training


def test_a_reset_does_not_bring_back_a_gpu_that_fell_off_the_bus():
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    result = d.act("reset gpu-a-1 --gpu 3")
    assert result.accepted and "GPU 3 still reports an error" in result.output
    assert d.world.cluster.nodes["gpu-a-1"].gpus[3].broken


def test_reset_checks_the_gpu_index():
    d = night({"kind": "shm_full", "target": {"node": "gpu-b-1"}})
    result = d.act("reset gpu-b-1 --gpu 8")
    assert not result.accepted and "--gpu" in result.output and "0 and 7" in result.output


# -- shm_full and fabric_manager_down --------------------------------------------------------


def test_shm_full_fails_the_next_start_up_with_nccls_own_words():
    crash = {"id": "crash", "kind": "kill_rank", "at": "15m", "target": {"job": "train"}}
    d = drill(
        build(
            jobs=[RETRYING],
            faults=[
                {"id": ID, "kind": "shm_full", "at": "10m", "target": {"node": "gpu-a-2"}},
                crash,
            ],
        )
    )
    d.advance(899)
    assert d.learner_job.current.training, "a running gang keeps its segments"
    d.advance(400)
    logs = all_logs(d)
    # NCCL 2.2x's words: host:pid:tid [device], its source line, a six-letter segment name.
    extend = re.search(
        r"gpu-a-2:(\d+):(\d+) \[\d\] misc/shmutils\.cc:\d+ NCCL WARN Error: failed to extend"
        r" (/dev/shm/nccl-[A-Za-z0-9]{6}) to 9637892 bytes, error: No space left on device \(28\)",
        logs,
    )
    assert extend, logs
    segment = extend.group(3)
    assert (
        f"misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment {segment}"
        " (size 9637888), error: No space left on device (28)" in logs
    )
    assert "posix_fallocate" not in logs, "NCCL 2.11's words, not 2.21's"
    assert (
        "NCCL error in: ProcessGroupNCCL.cpp, unhandled system error (run with NCCL_DEBUG=INFO"
        " for details), NCCL version 2.21.5. ncclSystemError: System call (e.g. socket, malloc)"
        " or external library call failed or device error. Last error: Error while creating"
        f" shared memory segment {segment} (size 9637888)" in why(d)[1]
    )
    assert d.act("reboot gpu-a-2").accepted
    d.advance(400)
    assert not d.world.cluster.nodes["gpu-a-2"].shm_full


# The fabric manager at every boot, its journal and error 802: tests/sim/test_fabric_manager.py


def test_a_node_whose_fabric_manager_is_down_is_not_healthy_to_take_out():
    # Draining or rebooting it is repair, not harm: no healthy capacity is counted as taken.
    d = night({"kind": "fabric_manager_down", "after_reboot": False, "target": {"node": "gpu-a-2"}})
    d.advance(700)
    node = d.world.cluster.nodes["gpu-a-2"]
    assert not healthy(node)
    assert d.act("drain gpu-a-2").accepted
    assert node.taken_healthy_at is None
    assert d.act("reboot gpu-a-2").accepted
    d.advance(400)
    assert node.fabric_manager_up and healthy(node)


def test_the_fabric_manager_can_stop_now_and_running_work_keeps_running():
    d = night({"kind": "fabric_manager_down", "after_reboot": False, "target": {"node": "gpu-a-1"}})
    d.advance(1200)
    assert d.learner_job.state == RUNNING and d.learner_job.current.training


# -- ib_flap ---------------------------------------------------------------------------------


def test_an_ib_flap_fails_nccl_within_seconds_and_again_until_the_gang_leaves_the_leaf():
    fault = {"kind": "ib_flap", "every": "10m", "target": {"leaf": "leaf-a1"}}
    job = job_spec("train", yours=True, steps=600, retry={"max_restarts": 5, "backoff": "30s"})
    d = night(fault, job=job)
    d.advance(620)
    first = d.learner_job.attempts[0]
    assert first.ended and first.end <= 600 + 6, "within seconds, not at the watchdog"
    assert "transport retry counter exceeded" in first.why
    assert "NCCL WARN NET/IB : Got completion from peer" in all_logs(d)
    assert d.world.cluster.switch_log["leaf-a1"][0][1] == "leaf-a1 port 1/33 (uplink): link down"
    assert "leaf-a1" in d.act("fabric").output
    assert all(
        "port" not in text
        for node in ("gpu-a-1", "gpu-a-2")
        for _, text in d.world.cluster.nodes[node].kernel_log
    ), "the nodes' own kernel logs stay quiet"
    d.advance(600)
    assert len([w for w in why(d) if "transport retry" in w]) >= 2, "it recurs"
    assert d.act("cordon-leaf leaf-a1").accepted
    assert d.act("restart train --from latest").accepted
    d.advance(2400)
    assert d.learner_job.state == RUNNING and d.learner_job.current.training
    assert not {"gpu-a-1", "gpu-a-2"} & set(d.learner_job.nodes)


# -- what the look verbs show of this state ---------------------------------------------------


def test_gpus_shows_memory_a_leftover_process_holds_under_its_pid():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    out = d.act("gpus gpu-a-1").output
    row = next(line for line in out.splitlines() if line.startswith("3 "))
    assert "75776MiB / " in row, out
    pid = leftover(d)
    assert re.search(rf"^3\s+{pid}\s+python\s+75776MiB$", out, re.M), out
    d.act(f"kill gpu-a-1 {pid}")
    assert "No running processes found" in d.act("gpus gpu-a-1").output


def test_gpus_lists_the_leftover_beside_a_rank_starting_on_its_gpu():
    d = night({"kind": "zombie_memory", "target": {"job": "train", "rank": 3}})
    d.advance(680)  # the retry is placed back on the same GPUs and is starting up
    assert d.learner_job.state == RUNNING and not d.learner_job.current.training
    out = d.act("gpus gpu-a-1").output.split("Processes:")[1]
    rows = [line.split() for line in out.splitlines() if line.startswith("3 ")]
    new = d.world.pid_on_gpu("gpu-a-1", 3)
    assert [r[1] for r in rows] == [str(leftover(d)), str(new)], out
    assert rows[1][3] == "5783MiB", "the new rank got only what was free"


def test_gpus_shows_a_pending_row_remap_until_a_reset():
    d = night({"kind": "gpu_needs_reset", "xid": 63, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    assert "GPU 3: Remapped Rows Pending: Yes" in d.act("gpus gpu-a-1").output
    assert d.act("reset gpu-a-1 --gpu 3").accepted
    assert "Remapped Rows" not in d.act("gpus gpu-a-1").output


def test_stack_shows_the_data_loader_read_a_rank_is_blocked_in_and_not_its_file():
    job = job_spec("train", yours=True, collective_timeout="3h", nodes=["gpu-a-1", "gpu-a-2"])
    fault = {
        "kind": "nfs_hang",
        "path": "/mnt/data/shard-7.bin",
        "target": {"job": "train", "rank": 2},
    }
    d = night(fault, job=job)
    d.advance(900)
    out = d.act("stack train 2").output
    assert "(idle)" in out and out.splitlines()[4] == "    read (shard_reader.py:58)"
    # py-spy prints `function (file:line)` frames only: never the file a read is blocked on.
    assert "/mnt/data" not in out and "reading" not in out
    assert all(re.fullmatch(r"    \S+ \(\S+:\d+\)", line) for line in out.splitlines()[4:]), out
    assert "all_reduce" in d.act("stack train 3").output, "the others wait in the collective"


# -- a node whose next start-up fails is not a healthy node ----------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "shm_full", "target": {"node": "gpu-a-2"}},
        {"kind": "zombie_memory", "target": {"job": "train", "rank": 9}},
        {"kind": "fabric_manager_down", "after_reboot": False, "target": {"node": "gpu-a-2"}},
    ],
)
def test_cordoning_a_node_whose_start_up_fails_is_no_harm(fault):
    d = night(fault)
    d.advance(900)
    assert d.act("cordon gpu-a-2").accepted
    assert d.world.cluster.nodes["gpu-a-2"].taken_healthy_at is None


def test_cordoning_a_clean_node_still_counts_as_taking_a_healthy_one():
    d = night({"kind": "shm_full", "target": {"node": "gpu-a-2"}})
    d.advance(900)
    assert d.act("cordon gpu-a-1").accepted
    assert d.world.cluster.nodes["gpu-a-1"].taken_healthy_at is not None

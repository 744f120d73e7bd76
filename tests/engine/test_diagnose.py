"""The look verbs that tell failures apart: `perf`, `stack`, `gpus` and `fabric`.

Each is read as a learner reads it, on a night with the fault that it should reveal, and on a
healthy night where it must show nothing wrong. None of them advises.
"""

from __future__ import annotations

import re

from tests.drillkit import SECRET_FAULT_ID, assert_no_fault_names, drill, job_spec, with_fault

AT = 600.0
RANK = 9  # gpu-a-2, local rank 1, GPU 1


def night(fault: dict | None = None, *, max_restarts: int = 0):
    spec = job_spec("train", yours=True, retry={"max_restarts": max_restarts, "backoff": "30s"})
    if fault is None:
        fault = {"kind": "hang_rank", "at": "5h", "target": {"job": "train", "rank": 0}}
    return drill(with_fault({"at": "10m", **fault}, jobs=[spec]))


def look(d, line: str) -> str:
    result = d.act(line)
    assert result.accepted, result.output
    assert_no_fault_names({line: result.output})
    for advice in ("drain", "swap", "reboot", "restart", "exclude", "you should"):
        assert advice not in result.output.lower(), (line, advice)
    return result.output


def row(out: str, rank: int) -> list[str]:
    return next(line.split() for line in out.splitlines() if line.split()[:1] == [str(rank)])


# -- perf -------------------------------------------------------------------------------------


def test_perf_finds_the_straggler_by_its_compute_time():
    d = night({"kind": "straggler", "slowdown": 2.0, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    out = look(d, "perf train")
    slow, other = row(out, RANK), row(out, 3)
    assert slow[4] == other[4] == "20.0s", "synchronous: every rank's step takes as long"
    assert slow[5] == "16.0s" and other[5] == "8.0s"
    assert float(slow[6][:-1]) < float(other[6][:-1]), "the others wait for it"


def test_perf_on_a_healthy_night_shows_every_rank_alike():
    d = night()
    d.advance(AT)
    out = look(d, "perf train")
    rows = {tuple(row(out, r)[3:]) for r in range(16)}
    assert len(rows) == 1


def test_perf_shows_the_hung_rank_by_its_last_enqueued_collective():
    d = night({"kind": "hang_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 120)
    out = look(d, "perf train")
    assert re.search(r"\(2m\d*s? ago\)", out), out
    hung, other = " ".join(row(out, RANK)[7:]), " ".join(row(out, 3)[7:])
    done = int(hung.split()[-1])
    assert hung == f"enq {done} done {done}"
    assert other == f"enq {done + 4} done {done}"


def test_perf_of_a_job_that_is_not_training():
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 30)
    assert "no training process is reporting (state failed)" in look(d, "perf train")


# -- stack ------------------------------------------------------------------------------------


def test_stack_of_a_rank_stuck_in_a_data_loader_read():
    d = night({"kind": "hang_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    out = look(d, f"stack train {RANK}")
    lines = out.splitlines()
    assert lines[0] == "Process 41001: python train.py"
    assert lines[3] == 'Thread 41001 (idle): "MainThread"'
    assert lines[4].startswith("    read (") and "dataloader.py" in out
    waiting = look(d, "stack train 3")
    assert "all_reduce (torch/distributed/distributed_c10d.py" in waiting


def test_stack_of_a_rank_whose_gpu_fell_off_is_in_a_cuda_call():
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    pick = d.world.faults.chosen[SECRET_FAULT_ID][0]
    rank = d.learner_job.ranks_on(pick.node)[0]
    stuck = [r for r in range(16) if "synchronize (torch/cuda" in look(d, f"stack train {r}")]
    assert len(stuck) == 1 and d.learner_job.rank_location(stuck[0]) == (pick.node, pick.gpu)
    assert rank <= stuck[0]


def test_stack_of_a_dead_process_and_of_an_unreachable_node():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}})
    d.advance(AT + 30)
    assert look(d, f"stack train {RANK}") == (
        "ssh: connect to host gpu-a-2 port 22: Connection timed out"
    )
    rejected = d.act("stack train 16")
    assert not rejected.accepted and "rank must be between 0 and 15" in rejected.output


def test_stack_of_a_healthy_gang_is_in_the_backward_pass():
    d = night()
    d.advance(AT)
    assert "backward (torch/_tensor.py" in look(d, "stack train 4")


# -- gpus -------------------------------------------------------------------------------------


def test_gpus_stops_at_a_gpu_that_fell_off_the_bus():
    """nvidia-smi prints one line for the GPU it cannot open and stops: no table of the other
    seven, no processes (audit row 35)."""
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 30)
    pick = d.world.faults.chosen[SECRET_FAULT_ID][0]
    bus = d.world.cluster.nodes[pick.node].gpus[pick.gpu].bus_id.upper()
    out = look(d, f"gpus {pick.node}")
    assert out == f"Unable to determine the device handle for GPU {bus}: Unknown Error"
    assert re.fullmatch(r"0000:[0-9A-F]{2}:00\.0", bus)


def test_gpus_prints_bus_ids_as_nvidia_smi_does():
    """An eight-digit PCI domain and upper-case hex, as nvidia-smi prints them (audit row 34);
    the kernel's own lines keep the four-digit form."""
    d = night()
    d.advance(AT)
    out = look(d, "gpus gpu-a-2")
    ids = re.findall(r"^\d+\s+(\S+)\s", out.split("Processes:")[0], re.M)
    assert len(ids) == 8, out
    for bus in ids:
        assert re.fullmatch(r"00000000:[0-9A-F]{2}:00\.0", bus), bus


def test_gpus_shows_memory_and_processes_with_pids():
    d = night()
    d.advance(AT)
    out = look(d, "gpus gpu-a-2")
    assert "61440MiB / 81559MiB" in out
    assert re.search(r"^3\s+41003\s+python\s+61440MiB$", out, re.M), out
    assert "Slowdown" not in out


def test_gpus_shows_throttling_and_a_pending_row_remap():
    d = night({"kind": "straggler", "slowdown": 2.0, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 30)
    out = look(d, "gpus gpu-a-2")
    # At 87C the clocks event reason is the thermal one, not the bare power-brake HW Slowdown.
    assert re.search(r"^1 .*87C .*990 MHz .*HW Thermal Slowdown$", out, re.M), out
    d = night({"kind": "gpu_xid", "xid": 48, "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 30)
    pick = d.world.faults.chosen[SECRET_FAULT_ID][0]
    out = look(d, f"gpus {pick.node}")
    assert f"GPU {pick.gpu}: Remapped Rows Pending: Yes" in out
    assert "ERR!" in out


def test_gpus_on_a_node_that_does_not_answer():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}})
    d.advance(AT + 30)
    assert "Connection timed out" in look(d, "gpus gpu-a-2")


# -- fabric -----------------------------------------------------------------------------------


def test_fabric_shows_the_flapping_leaf_and_its_events():
    d = night({"kind": "link_flap", "duration": "20s", "target": {"leaf": "leaf-a1"}})
    d.advance(AT + 5)
    out = look(d, "fabric")
    assert re.search(r"^leaf-a1\s+a\s+2\s+flapping\s+1\s", out, re.M), out
    assert re.search(r"^leaf-b1\s+b\s+2\s+up\s+0\s+-$", out, re.M), out
    detail = look(d, "fabric leaf-a1")
    # The whole switch drops: its host ports (8 HCAs on each of 2 nodes) and its uplinks.
    assert "leaf-a1 ports 1/1-1/16 (hosts) and 1/17-1/64 (uplinks): link down" in detail
    d.advance(60)
    assert re.search(r"^leaf-a1\s+a\s+2\s+up\s+1\s", look(d, "fabric"), re.M)


def test_a_flapping_leaf_keeps_logging_for_as_long_as_it_flaps():
    # Audit row 43: a flapping port logs each down and up while it flaps, not six events at
    # once and then twenty minutes of silence.
    d = night(
        {"kind": "link_flap", "duration": "10m", "every": "3m", "target": {"leaf": "leaf-a1"}}
    )
    d.advance(AT + 20 * 60)
    downs = [t for t, text in d.world.cluster.switch_log["leaf-a1"] if text.endswith("link down")]
    assert [round(t - downs[0]) for t in downs] == [0, 180, 360, 540]
    assert re.search(r"^leaf-a1\s+a\s+2\s+up\s+4\s", look(d, "fabric"), re.M)
    # Every port behind the leaf counted each drop, and none took a bit error: the switch.
    for name in ("gpu-a-1", "gpu-a-2"):
        ports = d.world.cluster.nodes[name].hcas
        assert [(p.link_downed, p.symbol_errors) for p in ports] == [(4, 0)] * 8


def test_fabric_help_names_the_subnet_manager_not_the_fabric_manager():
    # Audit row 13: nv-fabricmanager is NVSwitch inside a node; IB leaves are the SM's or UFM's.
    out = look(night(), "help fabric")
    assert "subnet manager" in out and "fabric manager" not in out


# -- ibstat ------------------------------------------------------------------------------------


def _port(out: str, name: str) -> str:
    """One CA's block of ibstat's output."""
    return out.split(f"CA '{name}'\n")[1].split("CA '")[0].split("$ perfquery")[0]


def _counters(out: str, name: str) -> dict[str, int]:
    block = out.split(f"$ perfquery -C {name} -P 1\n")[1].split("$ ")[0]
    return {k: int(v.strip(".")) for k, v in re.findall(r"^(\w+):(\.*\d+)$", block, re.M)}


def test_ibstat_prints_each_hca_port_as_ibstat_does():
    d = night()
    d.advance(AT)
    out = look(d, "ibstat gpu-a-1")
    assert out.splitlines()[0] == "$ ibstat"
    assert [f"mlx5_{i}" for i in range(8)] == re.findall(r"^CA '(mlx5_\d)'$", out, re.M)
    lines = [line.strip() for line in _port(out, "mlx5_0").splitlines()]
    assert lines[:4] == ["CA type: MT4129", "Number of ports: 1", "Port 1:", "State: Active"]
    assert lines[4:] == [
        "Physical state: LinkUp",
        "Rate: 400",
        "Base lid: 2",
        "SM lid: 1",
        "Link layer: InfiniBand",
    ]
    assert _counters(out, "mlx5_7") == {
        "SymbolErrorCounter": 0,
        "LinkDownedCounter": 0,
        "PortRcvErrors": 0,
    }


def test_ibstat_shows_one_flapping_port_down_with_its_errors_and_the_rest_clean():
    fault = {"kind": "port_flap", "every": "5m", "down_for": "45s"}
    d = night({**fault, "target": {"job": "train", "rank": 3}})
    d.advance(AT + 10)
    out = look(d, "ibstat gpu-a-1")
    down = _port(out, "mlx5_3")
    assert "State: Down" in down and "Physical state: Polling" in down and "Rate: 10\n" in down
    assert "State: Active" in _port(out, "mlx5_2")
    d.advance(5 * 60 + 30)  # up again, after a second drop at 03:15
    out = look(d, "ibstat gpu-a-1")
    assert "State: Active" in _port(out, "mlx5_3")
    bad = _counters(out, "mlx5_3")
    assert bad["LinkDownedCounter"] == 2 and bad["SymbolErrorCounter"] > 0
    assert bad["PortRcvErrors"] > 0
    assert all(_counters(out, f"mlx5_{i}")["LinkDownedCounter"] == 0 for i in (0, 1, 2, 4, 7))
    other = look(d, "ibstat gpu-a-2")
    assert "State: Down" not in other and "LinkDownedCounter:...............0" in other
    assert re.search(r"^leaf-a1\s+a\s+2\s+up\s+0\s+-$", look(d, "fabric"), re.M)


def test_a_flapping_port_fails_the_gang_from_the_rank_on_that_gpu():
    d = night({"kind": "port_flap", "target": {"job": "train", "rank": 3}})
    d.advance(AT + 60)
    job = d.learner_job
    assert job.state == "failed"
    assert "rank: 3 (local_rank: 3), exitcode: -6" in job.reason
    assert "transport retry counter exceeded" in job.reason


def test_ibstat_of_a_node_that_does_not_answer_times_out():
    d = night({"kind": "node_down", "target": {"node": "gpu-a-2"}})
    d.advance(AT + 30)
    assert "Connection timed out" in look(d, "ibstat gpu-a-2")


def test_fabric_of_an_unknown_leaf_says_which_exist():
    d = night()
    d.advance(AT)
    result = d.act("fabric leaf-a9")
    assert not result.accepted and "no leaf named 'leaf-a9'" in result.output


def test_gpus_shows_what_the_fault_kinds_leave_on_a_gpu():
    # The GPU state other fault kinds set (drill/sim/gpu_state.py): memory a dead process
    # still holds (used, and listed under the pid that is gone), a pending row remap.
    d = night()
    d.advance(AT)
    node = d.world.cluster.nodes["gpu-b-1"]
    node.gpus[2].held_by = (47002, 20480)
    node.gpus[3].remap_pending = True
    out = look(d, "gpus gpu-b-1")
    assert re.search(r"^2\s+\S+\s+33C\s+345 MHz\s+20480MiB / 81559MiB\s+0%", out, re.M), out
    assert re.search(r"^2\s+47002\s+python\s+20480MiB", out, re.M), out
    assert "No running processes found" not in out
    assert "GPU 3: Remapped Rows Pending: Yes" in out
    clean = look(d, "gpus gpu-b-2")
    assert "Remapped" not in clean and "No running processes" in clean


# -- status -----------------------------------------------------------------------------------


def test_status_of_a_failed_job_says_what_is_on_disk_not_where_nobody_restarts_it():
    """A failed job with no retries left is not going to resume anywhere on its own; `restart`
    takes latest unless told otherwise, so `status` names the latest checkpoint."""
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}})
    d.advance(AT + 60)
    line = next(x for x in look(d, "status").splitlines() if x.startswith("train:"))
    latest = d.learner_job.checkpoints.latest_step
    assert latest, "the job wrote checkpoints before it died"
    assert line.endswith(
        f"; the last attempt reached step {d.learner_job.step}/200, latest checkpoint step {latest}"
    ), line
    assert "scratch" not in line


def test_status_of_a_restart_starting_up_is_not_running_when_it_stopped():
    """A new attempt still starting up: `running`, and how far the last one got, never
    "running ... when it stopped" in one line (audit row 38)."""
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}}, max_restarts=2)
    job = d.learner_job
    d.advance(AT + 15)
    while not (job.state == "running" and not job.current.training):
        d.advance(5)
    line = next(x for x in look(d, "status").splitlines() if x.startswith("train:"))
    assert "when it stopped" not in line, line
    assert line.startswith(
        f"train: running, starting up; the last attempt reached step {job.step}/"
    ), line


def test_status_of_a_job_waiting_for_its_retry_says_where_it_resumes():
    d = night({"kind": "kill_rank", "target": {"job": "train", "rank": RANK}}, max_restarts=2)
    d.advance(AT + 15)
    line = next(x for x in look(d, "status").splitlines() if x.startswith("train:"))
    latest = d.learner_job.checkpoints.latest_step
    assert d.learner_job.state in ("requeued", "pending"), line
    assert line.endswith(f", resumes from checkpoint step {latest}"), line
    assert "the last attempt reached step" in line and "when it stopped" not in line

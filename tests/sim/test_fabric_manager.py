"""fabric_manager_down as a real node shows it (audit rows 5, 18, 20, 21, 22): the fabric
manager that does not match an upgraded driver fails at every boot, its journal says why, the
kernel ring buffer says nothing about it, torch raises error 802 in its own words at the first
CUDA call, and nvidia-smi shows no process on GPUs that never joined the fabric."""

from __future__ import annotations

import re

from drill.states import NodeState
from tests.drillkit import build, drill, job_spec

ID = "zz-secret-fault"
RETRYING = job_spec(
    "train",
    yours=True,
    retry={"max_restarts": 2, "backoff": "30s"},
    nodes=["gpu-a-1", "gpu-a-2"],
)
# Two nodes only: the 16-GPU job can only run on both, the rebooted one included.
ONE_LEAF = [{"name": "a", "leaves": 1, "nodes_per_leaf": 2, "spares": 0}]
TORCH_802 = (
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions"
    " before calling NumCudaDevices() that might have already set an error? Error 802: system"
    " not yet initialized"
)
MISMATCH = (
    "nv-fabricmanager[2154]: fabric manager NVIDIA GPU driver interface version 550.90.07"
    " doesn't match with driver version 550.127.05. Please update with the matching NVIDIA"
    " driver package."
)


def night(fault: dict, cluster: dict | None = None):
    spec = {"id": ID, "at": "10m", "kind": "fabric_manager_down", **fault}
    return drill(build(jobs=[RETRYING], faults=[spec], islands=ONE_LEAF, cluster=cluster))


def rebooted(d, until: float = 1200.0):
    d.advance(610)
    assert d.learner_job.current.training, "nothing happens until the node reboots"
    assert d.act("reboot gpu-a-2").accepted
    d.advance(until)
    return d.world.cluster.nodes["gpu-a-2"]


def test_the_fabric_manager_fails_at_every_boot_and_its_journal_says_why():
    d = night({"target": {"node": "gpu-a-2"}})
    node = rebooted(d)
    assert not node.fabric_manager_up
    out = d.act("systemctl gpu-a-2 nvidia-fabricmanager").output
    lines = out.splitlines()
    assert lines[0] == "× nvidia-fabricmanager.service - NVIDIA fabric manager service"
    assert re.fullmatch(
        r"     Active: failed \(Result: exit-code\) since \d\d:\d\d:\d\d; \d+min( \d+s)? ago",
        lines[2],
    ), out
    assert lines[3].startswith("    Process: 2154 ExecStart=/usr/bin/nv-fabricmanager -c ")
    assert lines[3].endswith("(code=exited, status=1/FAILURE)")
    assert any(line.endswith(f"gpu-a-2 {MISMATCH}") for line in lines), out
    assert (
        "gpu-a-2 systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'." in out
    )
    assert "failed units: nvidia-fabricmanager.service" in d.act("health gpu-a-2").output
    # A second reboot meets the same driver and the same package: a coin that lands one way.
    assert d.act("reboot gpu-a-2").accepted
    d.advance(400)
    assert node.state == NodeState.UP and not node.fabric_manager_up
    assert MISMATCH in d.act("systemctl gpu-a-2 nvidia-fabricmanager").output


def test_a_fabric_manager_that_stopped_now_starts_at_the_next_boot():
    d = night({"after_reboot": False, "target": {"node": "gpu-a-2"}})
    d.advance(700)
    out = d.act("systemctl gpu-a-2 nvidia-fabricmanager").output
    assert "   Main PID: 2156 (code=exited, status=1/FAILURE)" in out, out
    assert "Main process exited, code=exited, status=1/FAILURE" in out
    assert d.act("reboot gpu-a-2").accepted
    d.advance(400)
    node = d.world.cluster.nodes["gpu-a-2"]
    assert node.fabric_manager_up
    out = d.act("systemctl gpu-a-2 nvidia-fabricmanager").output
    assert out.startswith("● nvidia-fabricmanager.service") and "active (running)" in out


def test_unit_results_and_the_scheduler_stay_out_of_the_kernel_ring_buffer():
    d = night({"target": {"node": "gpu-a-2"}})
    node = rebooted(d)
    assert node.kernel_log == [], "dmesg starts empty at boot; units log to the journal"
    assert d.act("dmesg gpu-a-2").output == ""
    health = d.act("health gpu-a-2").output
    assert "systemd" not in health and "scheduler" not in health and "registered" not in health
    slurmd = d.act("systemctl gpu-a-2 slurmd").output
    assert slurmd.startswith("● slurmd.service - Slurm node daemon")
    assert "active (running)" in slurmd and "   Main PID: 2301 (slurmd)" in slurmd


def test_torch_raises_error_802_in_its_own_words():
    d = night({"target": {"node": "gpu-a-2"}}, cluster={"startup": "20s"})
    rebooted(d, 1200)
    failed = [a for a in d.learner_job.attempts if a.why and "Error 802" in a.why]
    assert failed, [a.why for a in d.learner_job.attempts]
    for attempt in failed:
        assert f"[rank8]: {TORCH_802}" in attempt.why


def test_nvidia_smi_shows_no_process_on_gpus_that_never_joined_the_fabric():
    d = night({"target": {"node": "gpu-a-2"}}, cluster={"startup": "5m"})
    d.advance(610)
    assert d.act("reboot gpu-a-2").accepted
    d.advance(360 + 90)  # back, and the retry is placed and starting up on both nodes
    assert d.learner_job.current is not None and not d.learner_job.current.training
    out = d.act("gpus gpu-a-2").output
    assert out.count("0MiB / 81559MiB  0%") == 8, out
    assert "Fabric: State In Progress, Status N/A (all GPUs)" in out
    assert out.endswith("Processes:\n  No running processes found")
    assert "No running processes found" not in d.act("gpus gpu-a-1").output, "it has contexts"

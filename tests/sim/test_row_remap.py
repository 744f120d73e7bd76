"""Row remapping as A100 and H100 do it (audit rows 2, 6 and 26 of issue 23).

A pending remap (Xid 63) leaves the GPU working: new work starts on it, and the next reset
applies it. A double-bit ECC error (Xid 48) asks for a remap that a GPU reset applies, and a
reboot includes that reset, so the two agree. Only a failed remap (Xid 64) stays broken. The
kernel log starts empty after a reboot, as dmesg does.
"""

from __future__ import annotations

import re

from drill.faults.xids import xid_lines
from drill.incident.loader import load_incident
from drill.paths import incidents_dir
from drill.sim.jobs import RUNNING
from drill.sim.operations import healthy
from tests.drillkit import build, drill, job_spec

ID = "zz-secret-fault"
JOB = job_spec(
    "train", yours=True, retry={"max_restarts": 2, "backoff": "30s"}, nodes=["gpu-a-1", "gpu-a-2"]
)


def night(fault: dict):
    return drill(build(jobs=[JOB], faults=[{"id": ID, "at": "10m", **fault}]))


def gpu3(d):
    return d.world.cluster.nodes["gpu-a-1"].gpus[3]


def row(out: str, index: int) -> str:
    return next(line for line in out.splitlines() if re.match(rf"^{index}\s", line))


# -- Xid 63: a pending remap ---------------------------------------------------------------


def test_a_pending_remap_leaves_the_gpu_and_the_job_working():
    d = night({"kind": "gpu_needs_reset", "xid": 63, "target": {"job": "train", "rank": 3}})
    d.advance(900)
    assert d.learner_job.state == RUNNING and len(d.learner_job.attempts) == 1
    assert d.learner_job.current.training
    assert not gpu3(d).broken and gpu3(d).remap_pending
    assert healthy(d.world.cluster.nodes["gpu-a-1"]), "a pending remap is no reason to drain"


def test_nvidia_smi_shows_normal_readings_and_the_pending_remap_only_in_the_detail():
    d = night({"kind": "gpu_needs_reset", "xid": 63, "target": {"job": "train", "rank": 3}})
    d.advance(900)
    out = d.act("gpus gpu-a-1").output
    assert "ERR!" not in row(out, 3) and re.search(r"\d+C\s+\d+ MHz\s+\d+MiB", row(out, 3)), out
    assert "GPU 3: Remapped Rows Pending: Yes" in out


def test_health_notes_the_pending_remap_and_that_a_reset_applies_it():
    d = night({"kind": "gpu_needs_reset", "xid": 63, "target": {"job": "train", "rank": 3}})
    d.advance(900)
    out = d.act("health gpu-a-1").output
    line = next(x for x in out.splitlines() if x.startswith("  GPU 3 "))
    assert "ok, row remap pending (new work runs; the next GPU reset applies it)" in line
    assert "FAIL" not in out
    assert "Row Remapper: New row marked for remapping, reset gpu to activate." in out


def test_a_restart_starts_on_a_gpu_whose_remap_is_pending():
    d = night({"kind": "gpu_needs_reset", "xid": 63, "target": {"job": "train", "rank": 3}})
    d.advance(700)
    assert d.act("cancel train").accepted
    assert d.act("restart train --from latest").accepted
    d.advance(600)
    assert d.learner_job.state == RUNNING and d.learner_job.current.training
    assert gpu3(d).remap_pending, "only a reset applies it"
    d.act("cancel train")
    assert d.act("reset gpu-a-1 --gpu 3").accepted
    assert not gpu3(d).remap_pending


# -- Xid 48 and 64 ---------------------------------------------------------------------------


def test_xid_48_is_followed_by_the_remap_it_records_and_64_follows_its_48():
    bus, pid = "0000:3a:00.0", 41001
    assert xid_lines(bus, 48, pid) == [
        "NVRM: Xid (PCI:0000:3a:00): 48, pid=41001, name=python, Double Bit ECC Error",
        "NVRM: Xid (PCI:0000:3a:00): 63, pid='<unknown>', name=<unknown>,"
        " Row Remapper: New row marked for remapping, reset gpu to activate.",
    ]
    codes = [re.search(r"\): (\d+),", line).group(1) for line in xid_lines(bus, 64, pid)]
    assert codes == ["48", "64"]


def test_a_gpu_reset_applies_the_remap_of_xid_48_and_the_restart_trains():
    d = night({"kind": "gpu_xid", "xid": 48, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    assert "Remapped Rows Pending: Yes" in d.act("gpus gpu-a-1").output
    result = d.act("reset gpu-a-1 --gpu 3")
    assert result.accepted and "still reports an error" not in result.output, result.output
    assert not gpu3(d).broken and not gpu3(d).remap_pending
    assert "Remapped Rows" not in d.act("gpus gpu-a-1").output
    assert d.act("restart train --from latest").accepted
    d.advance(600)
    assert d.learner_job.state == RUNNING and d.learner_job.current.training


def test_reset_and_reboot_agree_on_48_and_on_64():
    for code, works in ((48, True), (64, False)):
        for fix in ("reset gpu-a-1 --gpu 3", "reboot gpu-a-1"):
            d = night({"kind": "gpu_xid", "xid": code, "target": {"job": "train", "rank": 3}})
            d.advance(620)
            d.act("cancel train")
            result = d.act(fix)
            assert result.accepted, result.output
            d.advance(900)
            assert gpu3(d).broken is not works, (code, fix)
            if fix.startswith("reset"):
                assert ("GPU 3 still reports an error" in result.output) is not works, result.output


def test_help_reset_says_a_reset_applies_the_remap_of_a_double_bit_error():
    d = night({"kind": "gpu_xid", "xid": 13, "target": {"job": "train", "rank": 3}})
    out = " ".join(d.act("help reset").output.split())
    assert "It applies a pending row remap, so a GPU with a double bit ECC error (Xid 48)" in out
    assert "works again" in out and "whose row remap failed (Xid 64)" in out
    assert "does not bring back a GPU that fell off the bus or has a double bit" not in out


# -- the kernel log after a reboot ---------------------------------------------------------


def test_the_kernel_log_starts_empty_after_a_reboot():
    d = night({"kind": "gpu_needs_reset", "xid": 74, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    d.act("cancel train")
    d.act("reset gpu-a-1 --gpu 3")
    booted = d.world.now
    assert d.act("reboot gpu-a-1").accepted
    d.advance(900)
    log = d.world.cluster.nodes["gpu-a-1"].kernel_log
    assert log == [], "nothing from before the reboot, and no service result: the journal has those"
    assert d.world.cluster.nodes["gpu-a-1"].booted_at > booted
    out = d.act("health gpu-a-1").output
    assert "Xid" not in out and "GPU reset" not in out, out


def test_a_gpu_still_broken_after_a_reboot_is_logged_again_at_boot():
    d = night({"kind": "gpu_xid", "xid": 79, "target": {"job": "train", "rank": 3}})
    d.advance(620)
    booted = d.world.now
    assert d.act("reboot gpu-a-1").accepted
    d.advance(900)
    lines = [(t, x) for t, x in d.world.cluster.nodes["gpu-a-1"].kernel_log if "Xid" in x]
    assert lines and all(t > booted for t, _ in lines), lines
    assert ": 79, " in lines[0][1]


# -- the nights that teach it ------------------------------------------------------------------


def _texts(incident_id: str) -> str:
    incident = load_incident(incidents_dir() / f"{incident_id}.yaml").incident
    parts = [h.text for h in incident.hints] + list(incident.debrief.takeaways)
    parts += [book.why for book in incident.runbooks]
    return "\n".join(parts)


def test_nvlink_reset_teaches_that_a_pending_remap_leaves_the_gpu_working():
    text = _texts("nvlink-reset")
    assert "63 records a row remap: the GPU keeps working and the next reset applies it" in text
    assert "is not a broken GPU: new work starts on it" in text
    assert "a pending remap leaves the GPU working: it did not stop the job" in text
    assert "63 a row remap waiting for a reset; a GPU reset clears both" not in text
    assert "48 (double bit ECC) do not clear" not in text


def test_fleet_season_teaches_that_a_reset_fixes_48_and_a_failed_remap_does_not():
    incident = load_incident(incidents_dir() / "fleet-season.yaml").incident
    assert [f.xid for f in incident.faults] == [64]
    text = _texts("fleet-season")
    assert "the GPU stays broken after a reboot" not in text
    assert "Xid 48 alone is a memory error a GPU reset fixes" in text
    assert "The 64 after it says that remap failed" in text

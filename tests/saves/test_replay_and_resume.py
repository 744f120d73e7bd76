"""Replay through the same engine, verify to the action, and resume a session killed mid-night."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.clikit import REPO, run_drill

ACTIONS = """\
03:26 status llm-pretrain
+0s logs llm-pretrain
+0s health gpu-a-2
+0s health gpu-a-1
+0s drain gpu-a-2
+0s restart llm-pretrain --from latest --exclude gpu-a-2
+0s note Xid on gpu-a-2, drained and restarted
"""


def test_replay_verify_passes_on_a_fresh_save_and_fails_on_an_altered_action(tmp_path):
    save = tmp_path / "night.jsonl"
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    done = run_drill(
        "run",
        "dead-rank",
        "--actions",
        str(actions),
        "--backend",
        "sim",
        "--save",
        str(save),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    ok = run_drill("replay", str(save), "--verify")
    assert ok.returncode == 0, ok.stderr
    assert "Verified" in ok.stdout
    lines = save.read_text().splitlines()
    record = json.loads(lines[3])
    assert record["text"] == "health gpu-a-2"
    record["text"] = "health gpu-a-3"
    lines[3] = json.dumps(record, sort_keys=True)
    save.write_text("\n".join(lines) + "\n")
    bad = run_drill("replay", str(save), "--verify")
    assert bad.returncode == 1
    assert f"{save}:4:" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_a_changed_incident_is_refused_naming_both_hashes(tmp_path):
    incident = tmp_path / "dead-rank.yaml"
    incident.write_text((REPO / "drill" / "incidents" / "dead-rank.yaml").read_text())
    save = tmp_path / "night.jsonl"
    assert (
        run_drill(
            "run", str(incident), "--reference", "--backend", "sim", "--save", str(save)
        ).returncode
        == 0
    )
    incident.write_text(
        incident.read_text().replace("estimated_minutes: 10", "estimated_minutes: 11")
    )
    refused = run_drill("replay", str(save))
    assert refused.returncode == 2
    assert "incident changed" in refused.stderr and refused.stderr.count("sha256") >= 1
    header = json.loads(save.read_text().splitlines()[0])
    assert header["incident_sha256"][:16] in refused.stderr


def test_a_broken_save_is_a_located_error(tmp_path):
    save = tmp_path / "broken.jsonl"
    save.write_text('{"type": "header"}\n')
    done = run_drill("replay", str(save))
    assert done.returncode == 2
    assert f"{save}:1:" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
def test_sigkill_mid_night_then_resume_keeps_every_accepted_action(tmp_path):
    save = tmp_path / "killed.jsonl"
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    args = ["run", "dead-rank", "--actions", str(actions), "--backend", "sim", "--save", str(save)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "drill", *args, "--pace", "0.6"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if save.exists() and save.read_text().count('"type": "action"') >= 3:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    killed = [json.loads(line) for line in save.read_text().splitlines() if line.strip()]
    played = [r for r in killed if r["type"] == "action"]
    assert 3 <= len(played) < 7
    assert not any(r["type"] == "score" for r in killed)

    resumed = run_drill("run", "--resume", str(save), "--actions", str(actions), "--json")
    assert resumed.returncode == 0, resumed.stderr
    whole = run_drill(
        "run",
        "dead-rank",
        "--actions",
        str(actions),
        "--backend",
        "sim",
        "--save",
        str(tmp_path / "whole.jsonl"),
        "--json",
    )
    assert whole.returncode == 0, whole.stderr
    after, straight = json.loads(resumed.stdout), json.loads(whole.stdout)
    assert after["actions"] == straight["actions"]
    assert after["score"] == straight["score"]
    assert [a["text"] for a in after["actions"][: len(played)]] == [r["text"] for r in played]
    final = [json.loads(line) for line in save.read_text().splitlines()]
    assert sum(r["type"] == "action" for r in final) == 7
    assert final[-1]["type"] == "score"


def test_a_save_cannot_send_drill_to_read_files_elsewhere(tmp_path):
    save = tmp_path / "night.jsonl"
    assert (
        run_drill(
            "run", "tutorial", "--reference", "--backend", "sim", "--save", str(save)
        ).returncode
        == 0
    )
    lines = save.read_text().splitlines()
    header = json.loads(lines[0])
    header["incident_path"] = "/etc/passwd"
    lines[0] = json.dumps(header, sort_keys=True)
    save.write_text("\n".join(lines) + "\n")
    # The path outside the allowed folders is not followed: the shipped incident by id is used.
    done = run_drill("replay", str(save), "--verify")
    assert done.returncode == 0, done.stderr
    header["incident_id"] = "../../etc/passwd"
    lines[0] = json.dumps(header, sort_keys=True)
    save.write_text("\n".join(lines) + "\n")
    refused = run_drill("replay", str(save))
    assert refused.returncode == 2 and "not an incident id" in refused.stderr

"""The night with the replica as real gloo processes: a real SIGKILL, the survivors' real
errors in the timeline, a hang that hits the real process group timeout and still keeps the
sim's silence, page and failure times, agreement with the in-process replica, and no worker
left behind on any path."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.sim.events import JobLogLine, JobStateChanged
from tests.drillkit import build, job_spec
from tests.gloo.glookit import drill_env, marked_processes, wait_gone

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # every test here starts real torch processes


@pytest.fixture(scope="module")
def gloo_night(tmp_path_factory):
    marker = f"gloo-{uuid.uuid4()}"
    save = tmp_path_factory.mktemp("gloo") / "night.jsonl"
    args = ["run", "incidents/dead-rank.yaml", "--reference", "--backend", "gloo", "--ranks", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "drill", *args, "--json", "--save", str(save)],
        cwd=REPO,
        env=drill_env(marker),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), marker


def test_reference_recovers_with_real_processes(gloo_night):
    data, _ = gloo_night
    assert data["recovered"] is True
    assert data["jobs"]["llm-pretrain"]["state"] == "completed"
    assert data["replica"]["backend"] == "gloo"
    assert data["replica"]["match"] in ("bitexact", "close")


def dead_rank_night(backend: str, marker: str) -> dict:
    """dead-rank with nobody acting: the GPU dies and the job is left to its own signals."""
    args = ["run", "incidents/dead-rank.yaml", "--backend", backend, "--json"]
    if backend == "gloo":
        args += ["--ranks", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO,
        env=drill_env(marker),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def silent_nights():
    """The same unattended dead-rank night on the real gloo backend and on the sim."""
    return dead_rank_night("gloo", f"gloo-{uuid.uuid4()}"), dead_rank_night("sim", "sim")


def first_signals(data: dict) -> tuple[dict, dict]:
    """The learner's job's no-progress page and the first failure after it died."""
    timeline = data["timeline"]
    pages = [e for e in timeline if e["kind"] == "alert" and "no training progress" in e["text"]]
    failures = [e for e in timeline if e["kind"] == "job_state" and "ChildFailedError" in e["text"]]
    assert pages, "no 'no training progress' page: the job failed before any silence showed"
    assert failures, "the job never failed"
    return pages[0], failures[0]


def test_a_dead_rank_on_gloo_is_silent_then_pages_then_fails_as_on_the_sim(silent_nights):
    gloo, sim = silent_nights
    page, failure = first_signals(gloo)
    sim_page, sim_failure = first_signals(sim)
    # The lesson's order: silence, the no-progress page, and only then the watchdog failure,
    # at the very night times the sim gives (tolerance zero: the sim keeps the clock).
    assert page["time"] < failure["time"], (page, failure)
    assert (page["time"], page["text"]) == (sim_page["time"], sim_page["text"])
    assert failure["time"] == sim_failure["time"]
    # The survivors stay silent in the logs until the collective timeout too.
    real = [e for e in gloo["timeline"] if e["kind"] == "job_log"]
    assert real, "the survivors' own exception text must be in the timeline"
    assert all(e["time"] == failure["time"] for e in real), real


def test_the_gloo_failure_is_in_gloos_words_with_the_nights_timeout(silent_nights):
    gloo, _ = silent_nights
    _, failure = first_signals(gloo)
    real = [e["text"] for e in gloo["timeline"] if e["kind"] == "job_log"]
    # The GPU fell off the bus: its process is frozen, not gone, so the peers see no closed
    # connection; they wait in silence and raise gloo's own timeout, which is the night's
    # collective timeout (10m in dead-rank.yaml), one clock with the sim's watchdog.
    assert all("Timed out waiting 600000ms" in t for t in real), real
    assert "Timed out waiting 600000ms" in failure["text"]
    assert not any("Connection closed by peer" in t for t in real)
    # Tagged with the 16-rank job's numbers, one world for the whole night.
    assert all(re.match(r"\[rank(\d+)\]: ", t) for t in real), real
    assert {int(re.match(r"\[rank(\d+)\]", t).group(1)) for t in real} <= {0, 8}
    # One job on one backend: gloo's words only, never an NCCL line beside them.
    said = [e["text"] for e in gloo["timeline"] if e["subject"] == "llm-pretrain"]
    assert not any("NCCL" in t for t in said), [t for t in said if "NCCL" in t]


def test_a_gloo_job_speaks_gloo_on_one_network():
    """flapping-leaf on gloo: the rank behind the leaf fails on the network and the real
    survivors see its connection close. Every line of that one job is gloo's, and every peer
    address is a node of the job, never NCCL's InfiniBand lines beside gloo's TCP ones, nor
    127.0.0.1 from a rank on 10.0.0.11 (audit row 14)."""
    marker = f"gloo-{uuid.uuid4()}"
    done = subprocess.run(
        [sys.executable, "-m", "drill", "run", "flapping-leaf", "--backend", "gloo", "--ranks",
         "2", "--json"],
        cwd=REPO, env=drill_env(marker), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [
        e["text"] for e in json.loads(done.stdout)["timeline"] if e["subject"] == "llm-pretrain"
    ]
    failures = [t for t in said if "ChildFailedError" in t]
    assert failures, said
    for text in failures:
        assert "Read error [10." in text and "Connection closed by peer [10." in text, text
    assert not [t for t in said if "NCCL" in t or "NET/IB" in t or "127.0.0.1" in t]
    assert wait_gone(marker) == []


def test_acting_before_the_collective_timeout_leaves_the_survivors_unheard(gloo_night):
    data, _ = gloo_night
    # The reference restarts the job after the page, before the collective timeout: on the
    # night the survivors were still waiting, so nothing of theirs was said.
    assert not [e for e in data["timeline"] if e["kind"] == "job_log"]
    failures = [e["text"] for e in data["timeline"] if e["kind"] == "job_state"]
    assert not any("WorkNCCL" in t for t in failures), "the gloo night has no NCCL watchdog"


def test_no_process_of_the_run_remains(gloo_night):
    _, marker = gloo_night
    assert wait_gone(marker, 5) == []


def test_gloo_and_in_process_agree(gloo_night):
    data, _ = gloo_night
    inprocess = subprocess.run(
        [
            sys.executable,
            "-m",
            "drill",
            "run",
            "incidents/dead-rank.yaml",
            "--reference",
            "--ranks",
            "2",
            "--json",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert inprocess.returncode == 0, inprocess.stderr
    other = json.loads(inprocess.stdout)["replica"]
    mine = data["replica"]
    # Two ranks: the all-reduce is one addition, so the runs agree bit for bit (docs/replica.md,
    # measured on this night: the same weights digest and the same final loss). The digest is
    # sha256 over every parameter's bytes: equal digests are equal weights, bit for bit.
    assert other["backend"] == "inprocess" and mine["backend"] == "gloo"
    assert other["final_step"] == mine["final_step"]
    assert other["weights_sha256"] == mine["weights_sha256"]
    assert other["final_loss"] == mine["final_loss"]


def test_a_silent_hang_hits_the_real_process_group_timeout():
    incident = build(
        islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 2}],
        jobs=[
            job_spec(
                "train",
                yours=True,
                steps=60,
                process_group_timeout="3s",
                checkpoint={"every": 20, "keep": 2, "write_time": "10s"},
            )
        ],
        faults=[
            {
                "id": "stuck",
                "kind": "hang_rank",
                "at": "03:05",
                "target": {"job": "train", "rank": 3},
            }
        ],
    )
    marker = f"gloo-{uuid.uuid4()}"
    os.environ["DRILL_TEST_MARKER"] = marker  # inherited by the workers this test spawns
    d = Drill.create(incident, 1, "gloo", ranks=2)
    try:
        started = time.monotonic()
        play(d, [])
        elapsed = time.monotonic() - started
        real = [e.text for e in d.world.timeline if isinstance(e, JobLogLine)]
        assert real and any("Timed out" in t or "timed out" in t for t in real), real
        failure = " ".join(
            e.text
            for e in d.world.timeline
            if isinstance(e, JobStateChanged) and "ChildFailedError" in e.text
        )
        assert "the surviving ranks raised" in failure
        assert "Watchdog" not in failure, "gloo's own timeout, not an NCCL one as well"
        assert elapsed < 120
    finally:
        d.close()
        os.environ.pop("DRILL_TEST_MARKER", None)
    assert [pid for pid in wait_gone(marker) if pid != os.getpid()] == []


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_workers_die_with_the_drill_process(tmp_path, sig, code):
    marker = f"gloo-{uuid.uuid4()}"
    save = tmp_path / "night.jsonl"
    actions = tmp_path / "night.actions"
    actions.write_text("03:01 status\n+1m queue\n+1m nodes\n+1m status\n")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drill",
            "run",
            "dead-rank",
            "--actions",
            str(actions),
            "--backend",
            "gloo",
            "--pace",
            "5",
            "--save",
            str(save),
        ],
        cwd=REPO,
        env=drill_env(marker),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(marked_processes(marker)) < 3:
            time.sleep(0.2)
        assert len(marked_processes(marker)) >= 3, "the workers never started"
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, proc.stderr.read() if proc.stderr else ""
    assert wait_gone(marker) == []


def test_a_full_dev_shm_fails_the_gloo_job_in_torchs_words_not_nccls():
    """shm-full on gloo: gloo's TCP transport needs no /dev/shm, so the start-up that fails on
    the full node fails in torch's own shared-memory words, never NCCL's (audit row 27)."""
    marker = f"gloo-{uuid.uuid4()}"
    done = subprocess.run(
        [sys.executable, "-m", "drill", "run", "shm-full", "--backend", "gloo", "--ranks", "2",
         "--json"],
        cwd=REPO, env=drill_env(marker), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = [
        e["text"] for e in json.loads(done.stdout)["timeline"] if e["subject"] == "llm-pretrain"
    ]
    failures = [t for t in said if "ChildFailedError" in t]
    assert failures, said
    assert any("unable to write to file </torch_" in t for t in failures), failures
    assert "No space left on device (28)" in failures[-1]
    assert not [t for t in said if "NCCL" in t], [t for t in said if "NCCL" in t]
    assert wait_gone(marker) == []

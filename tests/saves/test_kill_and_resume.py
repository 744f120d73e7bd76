"""Fault injection: SIGKILL `drill run` and `drill play` at random moments over many seeded
runs, carry the night on the way a person would, and get the uninterrupted night back, action
for action and score for score.

A kill can land anywhere: before the header, between two actions, halfway through writing a
line, while the score is computed, after the score line. After it, the person does what the
save allows: nothing saved yet means a fresh start; a save means `--resume`; a finished save is
refused by `--resume` and is already the whole night. Each kill point comes from a seeded
random generator, so a failing seed can be run again (it lands at the same moment only as far
as the machine's speed allows; the assertion holds wherever it lands).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drill.saves import SaveError, read_save
from tests.clikit import REPO, run_drill, run_drill_process
from tests.gloo.glookit import drill_env, marked_processes, wait_gone
from tests.saves import play_driver
from tests.saves.savekit import ACTIONS, records

PACE = 0.15  # seconds between actions, so a kill can land between them
PLAY_LINES = [
    "wait 7m",
    "ack all",
    "status tiny-train",
    "health gpu-a-1",
    "restart tiny-train --from latest",
    "wait 3m",
    "status tiny-train",
    "note app crash, Xid 13 on gpu-a-1, restarted from latest",
]


def night_of(save: Path) -> list[dict]:
    """What the night decided, as its save holds it: every action line and the score line."""
    return [r for r in records(save) if r["type"] in ("action", "score")]


def kill_at(command: list[str], delay: float, env: dict | None = None) -> bool:
    """Run `command`, SIGKILL it after `delay` seconds; True when the kill landed."""
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        return True
    return False


def saved_state(save: Path) -> str:
    """fresh (nothing to resume), open or finished."""
    if not save.exists():
        return "fresh"
    try:
        return "finished" if read_save(save).finished else "open"
    except SaveError as exc:
        assert exc.line == 1, f"a kill left a save that does not read: {exc}"
        return "fresh"  # killed before the header line was whole


# -- drill run ----------------------------------------------------------------------------------


def run_args(backend: str, actions: Path) -> list[str]:
    return ["run", "dead-rank", "--actions", str(actions), "--backend", backend]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    """Per backend: the night played straight through, and how long a paced run takes."""
    folder = tmp_path_factory.mktemp("whole")
    actions = folder / "night.actions"
    actions.write_text(ACTIONS)
    nights = {}

    def get(backend: str):
        if backend not in nights:
            save = folder / f"{backend}.jsonl"
            started = time.monotonic()
            # A real process: its time, start-up included, is what the kills are spread over.
            done = run_drill_process(
                *run_args(backend, actions), "--save", str(save), "--pace", str(PACE)
            )
            assert done.returncode == 0, done.stderr
            nights[backend] = (night_of(save), time.monotonic() - started, actions)
        return nights[backend]

    return get


def kill_and_resume_run(tmp_path: Path, seed: int, uninterrupted, backend: str) -> str:
    whole, seconds, actions = uninterrupted(backend)
    rng = random.Random(seed)
    save = tmp_path / f"killed-{seed}.jsonl"
    args = run_args(backend, actions)
    # The first part of a run is Python starting; most kills land in the night after it.
    kill_at(
        [sys.executable, "-m", "drill", *args, "--save", str(save), "--pace", str(PACE)],
        rng.uniform(seconds * 0.25, seconds * 1.05),
    )
    state = saved_state(save)
    # On the replica, a real process carries on: a replica night in a process that trained
    # before can store other checkpoint bytes (see tests/golden/test_golden_replays.py).
    drill = run_drill if backend == "sim" else run_drill_process
    if state == "fresh":
        save.unlink(missing_ok=True)
        done = drill(*args, "--save", str(save), "--json")
        assert done.returncode == 0, done.stderr
    elif state == "open":
        done = drill("run", "--resume", str(save), "--actions", str(actions), "--json")
        assert done.returncode == 0, done.stderr
        account = json.loads(done.stdout)
        assert [a["text"] for a in account["actions"]] == [
            r["text"] for r in whole if r["type"] == "action"
        ]
        assert account["score"] == whole[-1]["score"]
    else:
        refused = drill("run", "--resume", str(save), "--actions", str(actions))
        assert refused.returncode == 2 and "this night is finished" in refused.stderr
    assert night_of(save) == whole
    verified = drill("replay", str(save), "--verify")
    assert verified.returncode == 0, f"{state}: {verified.stdout}{verified.stderr}"
    return state


@pytest.mark.parametrize("seed", range(16))
def test_a_killed_drill_run_resumes_to_the_same_night(tmp_path, uninterrupted, seed):
    kill_and_resume_run(tmp_path, seed, uninterrupted, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(16, 40))
def test_many_killed_drill_runs_resume_to_the_same_night(tmp_path, uninterrupted, seed):
    kill_and_resume_run(tmp_path, seed, uninterrupted, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [100, 101])
def test_a_killed_drill_run_with_the_replica_resumes_to_the_same_night(
    tmp_path, uninterrupted, seed
):
    kill_and_resume_run(tmp_path, seed, uninterrupted, "inprocess")


# -- drill run on the gloo backend --------------------------------------------------------------

# The tutorial's reference: the survivors' real gloo error is in `status tiny-train`'s result,
# so a resumed night matches only if that text is the same in every run of the processes.
GLOO_ACTIONS = """\
03:07 ack all
+0s status tiny-train
+0s health gpu-a-1
+0s restart tiny-train --from latest
+0s wait 3m
+0s status tiny-train
+0s note app crash, Xid 13 on gpu-a-1, restarted from latest
"""
GLOO_ARGS = ["run", "tutorial", "--backend", "gloo", "--ranks", "2"]


@pytest.fixture(scope="module")
def gloo_whole(tmp_path_factory):
    """The gloo tutorial night played straight through, and how long a paced run takes."""
    folder = tmp_path_factory.mktemp("gloo-whole")
    actions = folder / "night.actions"
    actions.write_text(GLOO_ACTIONS)
    save = folder / "gloo.jsonl"
    started = time.monotonic()
    done = run_drill_process(  # gloo workers: the processes a real drill starts
        *GLOO_ARGS, "--actions", str(actions), "--save", str(save), "--pace", str(PACE)
    )
    assert done.returncode == 0, done.stderr
    whole = night_of(save)
    assert "Connection closed by peer" in " ".join(r.get("result", "") for r in whole)
    return whole, time.monotonic() - started, actions


def kill_when(
    command: list[str], env: dict, ready, after: float, marker: str | None = None
) -> bool:
    """Start `command`, wait until ready() holds, SIGKILL it `after` seconds later; True when
    the kill landed (a night may finish on its own in those seconds). With `marker`, the kill
    must land while both gloo workers are alive.

    Moments, not times: on a busy machine a paced gloo night takes three times as long as on
    an idle one, and a kill at a fixed time would land after the night as often as in it."""
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 300
        while not ready():
            assert proc.poll() is None, "the night ended before the moment to kill it"
            assert time.monotonic() < deadline, "the moment to kill never came"
            time.sleep(0.05)
        time.sleep(after)
        if proc.poll() is not None:
            return False
        if marker is not None:
            # drill and two workers (multiprocessing's resource tracker is not counted)
            assert len(marked_processes(marker)) >= 3, "no worker was running at the kill"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        return True
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


def saved_lines(save: Path) -> list[str]:
    try:
        return save.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def joined_workers(tmp: Path) -> list[Path]:
    """Worker logs in the night's scratch folder that say the worker joined the group."""
    joined = []
    for log in tmp.glob("drill-*/logs/rank-*.log"):
        try:
            if "joined the group" in log.read_text(errors="replace"):
                joined.append(log)
        except OSError:
            continue
    return joined


def scratch_folders(tmp: Path) -> list[str]:
    return sorted(p.name for p in tmp.glob("drill-*"))


# Where the kill lands: as the first attempt's workers join (no action saved yet), after a
# random number of saved actions, while the restarted job's workers train after the last
# action (they idle on their pipes between steps: the case an orphan would come from), and
# once the score line is written (drill is closing the night: stopping workers, removing its
# scratch folder).
GLOO_MOMENTS = ["workers up", "mid-actions", "restarted job training", "score written"]


@pytest.mark.slow
@pytest.mark.parametrize("moment", GLOO_MOMENTS)
def test_a_killed_gloo_night_resumes_to_the_same_night_and_verifies(tmp_path, gloo_whole, moment):
    whole, _, actions = gloo_whole
    seed = 300 + GLOO_MOMENTS.index(moment)
    rng = random.Random(seed)
    save = tmp_path / f"killed-{seed}.jsonl"
    # Each trial has its own temp folder (so the scratch folders seen are this trial's) and a
    # marker in the environment its processes and their workers inherit (so /proc finds them).
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    marker = f"gloo-kill-{seed}-{tmp_path.name}"
    env = drill_env(marker, TMPDIR=str(tmp))
    command = [sys.executable, "-m", "drill", *GLOO_ARGS, "--actions", str(actions)]
    command += ["--save", str(save), "--pace", str(PACE)]
    if moment == "workers up":
        # Both workers joined the group and train (a worker still starting exits by itself
        # when its parent goes; one that trains waits on its pipe and must be killed with it).
        ready = lambda: len(joined_workers(tmp)) >= 2  # noqa: E731
        after = rng.uniform(0, 0.2)
    elif moment == "mid-actions":
        # The header, then `n` whole action lines; the kill lands in the pause or the next one.
        n = rng.randint(1, len(whole) - 2)
        ready = lambda: len(saved_lines(save)) >= 1 + n  # noqa: E731
        after = rng.uniform(0, PACE)
    elif moment == "restarted job training":
        ready = lambda: len(saved_lines(save)) >= len(whole)  # noqa: E731
        after = rng.uniform(0, 0.3)
    else:
        ready = lambda: any('"type": "score"' in line for line in saved_lines(save))  # noqa: E731
        after = 0.0
    workers = moment == "restarted job training"
    killed = kill_when(command, env, ready, after, marker=marker if workers else None)
    # PR_SET_PDEATHSIG: the workers (and multiprocessing's resource tracker) go with drill.
    assert wait_gone(marker, tracker=True) == [], "a worker outlived the killed drill"
    left_by_kill = scratch_folders(tmp)
    if moment == "workers up":
        # SIGKILL runs no cleanup: the folder stays until the next drill sweeps it (below).
        assert left_by_kill, "the killed night had no scratch folder to leave behind"
    state = saved_state(save)
    # Real processes after the kill too: TMPDIR and the marker must reach drill and its workers.
    if state == "fresh":
        save.unlink(missing_ok=True)
        done = run_drill_process(
            *GLOO_ARGS, "--actions", str(actions), "--save", str(save), env=env
        )
        assert done.returncode == 0, done.stderr
    elif state == "open":
        done = run_drill_process(
            "run", "--resume", str(save), "--actions", str(actions), "--json", env=env
        )
        assert done.returncode == 0, done.stderr
        account = json.loads(done.stdout)
        assert [a["result"] for a in account["actions"]] == [
            r["result"] for r in whole if r["type"] == "action"
        ]
        assert account["score"] == whole[-1]["score"]
    else:
        refused = run_drill_process(
            "run", "--resume", str(save), "--actions", str(actions), env=env
        )
        assert refused.returncode == 2 and "this night is finished" in refused.stderr
    assert night_of(save) == whole
    verified = run_drill_process("replay", str(save), "--verify", env=env)
    assert verified.returncode == 0, verified.stderr
    assert "Verified" in verified.stdout
    # What the README promises: the next drill that trains the replica sweeps a killed run's
    # scratch folder, and every run removes its own when it closes.
    assert scratch_folders(tmp) == [], f"left behind (killed={killed}, {state})"
    assert wait_gone(marker, tracker=True) == []
    others = sorted(p.name for p in tmp.iterdir())
    print(
        f"gloo kill at {moment}: killed={killed}, left {left_by_kill}, then {state}; tmp {others}"
    )


# -- drill play ---------------------------------------------------------------------------------


def driver(save: Path, lines: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "tests.saves.play_driver", str(save), str(lines), *more]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    folder = tmp_path_factory.mktemp("played")
    lines = folder / "night.lines"
    lines.write_text("\n".join(PLAY_LINES) + "\n")
    nights = {}

    def get(backend: str):
        if backend not in nights:
            save = folder / f"{backend}.jsonl"
            started = time.monotonic()
            done = subprocess.run(
                driver(save, lines, "--backend", backend),
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
            assert done.returncode == 0, done.stderr[-3000:]
            nights[backend] = (night_of(save), time.monotonic() - started, lines)
        return nights[backend]

    return get


def kill_and_resume_play(tmp_path: Path, seed: int, played, backend: str) -> str:
    whole, seconds, lines = played(backend)
    rng = random.Random(seed)
    save = tmp_path / f"killed-{seed}.jsonl"
    # The first seconds are Python and Textual starting; the kill lands in the night after them.
    kill_at(driver(save, lines, "--backend", backend), rng.uniform(seconds * 0.2, seconds * 1.05))
    state = saved_state(save)
    if state == "fresh":
        save.unlink(missing_ok=True)
        command = driver(save, lines, "--backend", backend)
    elif state == "open":
        command = driver(save, lines, "--resume")
    else:
        refused = run_drill("play", "--resume", str(save), timeout=60)
        assert refused.returncode == 2 and "this night is finished" in refused.stderr
        command = None
    if command is not None and backend == "sim":
        # Carried on in this process: the kill is what needs a real one.
        assert play_driver.main(command[3:]) == 0
    elif command is not None:  # the replica: a real process, as in kill_and_resume_run
        done = subprocess.run(
            command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
    assert night_of(save) == whole
    return state


@pytest.mark.parametrize("seed", range(5))
def test_a_killed_drill_play_resumes_to_the_same_night(tmp_path, played, seed):
    kill_and_resume_play(tmp_path, seed, played, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5, 11))
def test_many_killed_drill_plays_resume_to_the_same_night(tmp_path, played, seed):
    kill_and_resume_play(tmp_path, seed, played, "sim")


@pytest.mark.slow
def test_a_killed_drill_play_with_the_replica_resumes_to_the_same_night(tmp_path, played):
    kill_and_resume_play(tmp_path, 200, played, "inprocess")

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
from tests.clikit import REPO, run_drill
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


def kill_at(command: list[str], delay: float, env: dict | None = None) -> None:
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


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
            done = run_drill(*run_args(backend, actions), "--save", str(save), "--pace", str(PACE))
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
    if state == "fresh":
        save.unlink(missing_ok=True)
        done = run_drill(*args, "--save", str(save), "--json")
        assert done.returncode == 0, done.stderr
    elif state == "open":
        done = run_drill("run", "--resume", str(save), "--actions", str(actions), "--json")
        assert done.returncode == 0, done.stderr
        account = json.loads(done.stdout)
        assert [a["text"] for a in account["actions"]] == [
            r["text"] for r in whole if r["type"] == "action"
        ]
        assert account["score"] == whole[-1]["score"]
    else:
        refused = run_drill("run", "--resume", str(save), "--actions", str(actions))
        assert refused.returncode == 2 and "this night is finished" in refused.stderr
    assert night_of(save) == whole
    assert run_drill("replay", str(save), "--verify").returncode == 0
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
    if command is not None:
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

"""Scratch folders (`drill-*` in the temp folder) never outlive drill for long: removed on every
exit Python can catch, and swept by the next start when a SIGKILL left them behind."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drill.engine.temp_dirs import OWNER_FILE, sweep
from tests.clikit import REPO

MAKE = (
    "import signal, sys, time\n"
    # Ctrl+C's KeyboardInterrupt even when started from a runner that ignores SIGINT (a
    # background job's children inherit the ignore, and Python then leaves it).
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from drill.engine.temp_dirs import make_temp_dir\n"
    "print(make_temp_dir('drill-test-'), flush=True)\n"
    "sys.stdin.readline()\n"  # the test looks at the folder, then lets go
    "print('going', flush=True)\n"
    "if sys.argv[1] == 'sigint': time.sleep(60)\n"
    "if sys.argv[1] == 'fail': raise RuntimeError('an uncaught error')\n"
)


def start(tmp_path: Path, how: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", MAKE, how],
        cwd=REPO,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def drill_folders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith("drill-"))


@pytest.mark.parametrize("how", ["exit", "fail", "sigint"])
def test_every_exit_python_sees_removes_the_folder(tmp_path, how):
    proc = start(tmp_path, how)
    made = Path(proc.stdout.readline().strip())
    assert made.is_dir() and made.name.startswith(f"drill-test-{proc.pid}.")
    proc.stdin.write("go\n")
    proc.stdin.flush()
    assert proc.stdout.readline().strip() == "going"
    if how == "sigint":
        proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)
    assert not made.exists()


def test_a_sigkill_leaves_a_folder_that_the_next_start_sweeps(tmp_path):
    proc = start(tmp_path, "sigint")  # sleeps until killed
    made = Path(proc.stdout.readline().strip())
    proc.stdin.write("go\n")
    proc.stdin.flush()
    proc.kill()
    proc.wait(timeout=30)
    assert made.is_dir(), "nothing runs after SIGKILL"
    nxt = start(tmp_path, "exit")
    mine = Path(nxt.stdout.readline().strip())
    assert not made.exists(), "the next start swept it"
    nxt.communicate("go\n", timeout=30)
    assert not made.exists() and not mine.exists()


def test_the_sweep_spares_live_owners_and_folders_it_did_not_make(tmp_path):
    alive = tmp_path / "drill-alive"
    alive.mkdir()
    stamp = Path(f"/proc/{os.getpid()}/stat").read_text().rpartition(")")[2].split()[19]
    (alive / OWNER_FILE).write_text(f"{os.getpid()} {stamp}")
    reused = tmp_path / "drill-reused"  # this pid, but started at another time: not us
    reused.mkdir()
    (reused / OWNER_FILE).write_text(f"{os.getpid()} 1")
    unowned = tmp_path / "drill-unowned"
    unowned.mkdir()
    other = tmp_path / "other-dead"
    other.mkdir()
    (other / OWNER_FILE).write_text("999999999 1")
    target = tmp_path / "target"
    target.mkdir()
    (target / OWNER_FILE).write_text("999999999 1")
    os.symlink(target, tmp_path / "drill-link")
    assert sweep(tmp_path) == [reused]
    assert alive.is_dir() and unowned.is_dir() and other.is_dir() and target.is_dir()


def test_the_owner_is_in_the_name_so_a_kill_mid_removal_is_still_swept(tmp_path):
    """A night that closes removes its folder; a SIGKILL halfway through can take the contents
    (an owner file inside, too) and leave the folder. Its name still says whose it was."""
    stamp = Path(f"/proc/{os.getpid()}/stat").read_text().rpartition(")")[2].split()[19]
    half_removed = tmp_path / "drill-tutorial-999999999.1-ab_12"
    (half_removed / "checkpoints").mkdir(parents=True)
    empty = tmp_path / "drill-tutorial-999999999.x-cd34"
    empty.mkdir()
    mine = tmp_path / f"drill-tutorial-{os.getpid()}.{stamp}-ef56"
    mine.mkdir()
    reused = tmp_path / f"drill-tutorial-{os.getpid()}.1-gh78"
    reused.mkdir()
    assert sorted(sweep(tmp_path)) == sorted([half_removed, empty, reused])
    assert mine.is_dir()


@pytest.mark.slow
def test_a_real_sigkill_of_drill_run_is_swept_by_the_next_drill_run(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    args = [sys.executable, "-m", "drill", "run", "tutorial", "--reference", "--pace", "2"]
    proc = subprocess.Popen(
        [*args, "--save", str(tmp_path / "a.jsonl")],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not drill_folders(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = drill_folders(tmp_path)
    proc.kill()
    proc.wait(timeout=30)
    assert left and all(p.is_dir() for p in left)
    done = subprocess.run(
        [*args[:-2], "--save", str(tmp_path / "b.jsonl")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert drill_folders(tmp_path) == []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_sigterm_of_drill_play_in_a_terminal_removes_its_folder(tmp_path):
    pid_file = tmp_path / "pid"
    command = (
        f"cd {shlex.quote(str(REPO))} && export TMPDIR={shlex.quote(str(tmp_path))}"
        f" DRILL_SAVES_DIR={shlex.quote(str(tmp_path))} && echo $$ > {shlex.quote(str(pid_file))}"
        f" && exec {shlex.quote(sys.executable)} -m drill play tutorial"
        f" --save {shlex.quote(str(tmp_path / 'night.jsonl'))}"
    )
    socket = f"drill-temp-{os.getpid()}"
    subprocess.run(
        [
            "tmux",
            "-L",
            socket,
            "new-session",
            "-d",
            "-s",
            "d",
            "-x",
            "100",
            "-y",
            "30",
            "bash",
            "-c",
            command,
        ],
        check=True,
        timeout=20,
    )
    try:
        deadline = time.monotonic() + 120
        while not drill_folders(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.1)
        made = drill_folders(tmp_path)
        assert made, "the replica never made its folder"
        pid = int(pid_file.read_text())
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not Path(f"/proc/{pid}").exists(), "drill play ignored SIGTERM"
        assert drill_folders(tmp_path) == []
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=20)

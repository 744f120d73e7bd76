"""`drill replay --verify` and `drill report` say on stderr what they are doing while a night
replays or par is measured (drill/commands/stages.py): one line per stage, only at a terminal
and only once the command has taken more than a moment, and stdout exactly as before."""

from __future__ import annotations

import io
import os
import select
import shutil
import subprocess
import sys
import time

import pytest

from drill.commands.stages import Stages
from drill.saves_dir import cache_dir
from tests.clikit import REPO, run_drill_process


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_quick_command_says_nothing():
    out = Terminal()
    with Stages(stream=out, delay=0.5) as stage:
        stage("replaying")
        stage("scoring")
    time.sleep(0.7)  # past the delay: the waiting line was dropped with the command
    assert out.getvalue() == ""


def test_a_slow_stage_says_itself_then_every_stage_after_it_at_once():
    out = Terminal()
    with Stages(stream=out, delay=0.2) as stage:
        stage("replaying")
        time.sleep(0.5)
        assert out.getvalue() == "drill: replaying...\n"
        stage("scoring")
        assert out.getvalue() == "drill: replaying...\ndrill: scoring...\n"


def test_not_a_terminal_hears_nothing_however_slow():
    out = io.StringIO()
    with Stages(stream=out, delay=0.0) as stage:
        stage("replaying")
        time.sleep(0.1)
    assert out.getvalue() == ""


def _with_stderr_on_a_terminal(args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """`python -m drill ARGS` with stderr on a pseudo-terminal and stdout on a pipe."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    err = b""
    while True:
        ready, _, _ = select.select([master], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            err += chunk
        elif proc.poll() is not None:
            break
    out = proc.stdout.read()
    code = proc.wait(timeout=300)
    os.close(master)
    return code, out, err.decode().replace("\r\n", "\n")


@pytest.mark.slow
def test_verify_with_par_not_cached_says_each_stage_and_stdout_is_unchanged(tmp_path):
    pytest.importorskip("torch")
    saves = tmp_path / "saves"
    (saves / "cache").mkdir(parents=True)
    for entry in cache_dir().glob("baseline-*"):  # the replica's baseline, not trained again
        if entry.is_dir():
            shutil.copytree(entry, saves / "cache" / entry.name)
    env = {**os.environ, "DRILL_SAVES_DIR": str(saves), "PYTHONPATH": str(REPO)}
    save = tmp_path / "night.jsonl"
    done = run_drill_process("run", "dead-rank", "--reference", "--save", str(save), env=env)
    assert done.returncode == 0, done.stderr
    shutil.rmtree(saves / "cache" / "par")  # par measured again by the replay

    code, out, err = _with_stderr_on_a_terminal(["replay", "--verify", str(save)], env)
    assert code == 0, err
    lines = err.splitlines()
    assert "drill: measuring par and floor" in err, err
    assert all(line.startswith("drill: ") and line.endswith("...") for line in lines), err
    assert lines.index(next(x for x in lines if "scoring the night" in x)) == len(lines) - 1

    piped = run_drill_process("replay", "--verify", str(save), env=env)  # par cached now
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout == out

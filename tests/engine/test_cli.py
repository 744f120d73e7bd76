"""`drill run` end to end (in this process: tests/clikit.py): the reference recovers, doing
nothing does not, and bad input is one located line on stderr with exit 2, never a traceback."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.clikit import run_drill
from tests.drillkit import DEAD_RANK

LOCATED = re.compile(r"^drill: .+:\d+:\d+: \S.*$")


def drill_cli(*args: str) -> subprocess.CompletedProcess:
    return run_drill(*args)


@pytest.mark.slow
@pytest.mark.parametrize("seed", ["1", "2"])
def test_reference_recovers(seed):
    done = drill_cli("run", "incidents/dead-rank.yaml", "--reference", "--seed", seed, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["recovered"] is True
    assert data["seed"] == int(seed)
    assert data["jobs"]["llm-pretrain"]["state"] == "completed"
    # The real replica trained every step and resumed exactly: it matches the undisturbed run.
    assert data["replica"]["match"] == "bitexact"
    assert data["replica"]["final_step"] == 300
    assert data["replica"]["checkpoints_loaded"] >= 1
    assert all(a["accepted"] for a in data["actions"])
    assert data["not_played"] == []


@pytest.mark.slow
def test_reference_text_output_says_recovered():
    done = drill_cli("run", "dead-rank", "--reference")
    assert done.returncode == 0, done.stderr
    assert "Recovered." in done.stdout
    assert "llm-pretrain: completed" in done.stdout


@pytest.mark.slow
def test_empty_actions_file_does_not_recover(tmp_path):
    empty = tmp_path / "nothing.actions"
    empty.write_text("# I went back to sleep\n", encoding="utf-8")
    done = drill_cli("run", "incidents/dead-rank.yaml", "--actions", str(empty), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["recovered"] is False
    job = data["jobs"]["llm-pretrain"]
    assert job["state"] in ("failed", "pending", "running")
    assert job["state"] != "completed"
    assert data["replica"]["final_step"] < 300
    assert data["actions"] == []


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def bad_inputs(tmp_path) -> dict[str, tuple[list[str], str]]:
    dead = DEAD_RANK.read_text(encoding="utf-8")
    unknown_key = dead.replace("difficulty: easy\n", "difficulty: easy\ncolour: red\n")
    assert unknown_key != dead
    return {
        "missing incident": (["run", str(tmp_path / "nope.yaml"), "--reference"], "file not found"),
        "yaml syntax": (
            [
                "run",
                write(tmp_path, "syntax.yaml", "schema: 2\nid: x\ntitle: [unclosed\n"),
                "--reference",
            ],
            "could not parse YAML",
        ),
        "unknown key": (
            ["run", write(tmp_path, "unknown.yaml", unknown_key), "--reference"],
            "unknown key 'colour'",
        ),
        "bad time": (
            [
                "run",
                "incidents/dead-rank.yaml",
                "--actions",
                write(tmp_path, "t.actions", "03:99 status\n"),
            ],
            "out of range",
        ),
        "unknown verb": (
            [
                "run",
                "incidents/dead-rank.yaml",
                "--actions",
                write(tmp_path, "v.actions", "# fine\n03:10 statsu\n"),
            ],
            "did you mean `status`?",
        ),
        "missing actions": (
            ["run", "incidents/dead-rank.yaml", "--actions", str(tmp_path / "none.actions")],
            "file not found",
        ),
    }


CASES = [
    "missing incident",
    "yaml syntax",
    "unknown key",
    "bad time",
    "unknown verb",
    "missing actions",
]


@pytest.mark.parametrize("case", CASES)
def test_bad_input_is_one_located_line_and_exit_2(tmp_path, case):
    args, words = bad_inputs(tmp_path)[case]
    done = drill_cli(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert LOCATED.match(lines[0]), lines[0]
    assert words in lines[0]
    assert done.stdout == ""


def test_located_line_points_at_the_right_place(tmp_path):
    args, _ = bad_inputs(tmp_path)["unknown verb"]
    line = drill_cli(*args).stderr.strip()
    assert line.startswith(f"drill: {tmp_path / 'v.actions'}:2:7: unknown action `statsu`")
    args, _ = bad_inputs(tmp_path)["unknown key"]
    line = drill_cli(*args).stderr.strip()
    assert line.startswith(f"drill: {tmp_path / 'unknown.yaml'}:6:1: unknown key 'colour'")


def test_sigterm_inside_a_librarys_except_exception_still_ends_the_run(monkeypatch):
    """A SIGTERM that lands while a library runs `try: ... except Exception:` must still end
    drill with 143. Once it landed inside textual-serve's start-up, the library swallowed it and
    the server ran on with nobody to stop it."""
    import os
    import signal
    import time

    import drill.commands
    from drill.cli import main

    def a_library_that_swallows_errors(command, args):
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(5)  # the signal's handler runs here
        except Exception:
            pass
        return 0

    monkeypatch.setattr(drill.commands, "run_command", a_library_that_swallows_errors)
    assert main(["list"]) == 143

"""Writing a save: every line lands whole or the save stays as it was, and a save that cannot be
written is one line and exit 2, never a traceback or a torn score line.

A full disk is a real one in miniature: RLIMIT_FSIZE caps the size of any file the child writes,
so the kernel refuses the bytes past the cap (EFBIG) partway through a line, as ENOSPC would.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys

import pytest

from drill.saves import read_save
from tests.clikit import REPO, run_drill
from tests.saves.savekit import ACTIONS, play_night, records


def one_line_error(done) -> str:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("/dev/full", "not a regular file"),
        ("/dev/null", "not a regular file"),
        ("/proc/no-such-folder/night.jsonl", "cannot make the folder"),
    ],
)
def test_a_save_that_cannot_be_a_file_is_refused_in_one_line(target, words):
    done = run_drill("run", "dead-rank", "--reference", "--backend", "sim", "--save", target)
    line = one_line_error(done)
    assert line.startswith(f"drill: {target}:1: ") and words in line
    assert done.stdout == ""


def test_save_at_a_folder_says_it_is_a_folder(tmp_path):
    for command in ("run", "play"):
        args = [command, "dead-rank", "--backend", "sim", "--save", str(tmp_path)]
        line = one_line_error(run_drill(*args))
        assert "this is a folder" in line and "already exists" not in line


def run_with_file_cap(args: list[str], cap: int) -> subprocess.CompletedProcess:
    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a dead process
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))

    return subprocess.run(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
        check=False,
    )


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The night uninterrupted (this also fills the par cache, so only the save grows)."""
    return play_night(tmp_path_factory.mktemp("whole"))


@pytest.mark.parametrize("where", ["header", "an action", "the score"])
def test_a_full_disk_keeps_every_whole_line_and_says_so(whole, tmp_path, where):
    full_save, full_account = whole
    raw = full_save.read_bytes()
    ends = [i + 1 for i, byte in enumerate(raw) if byte == ord("\n")]
    cap = {"header": ends[0] // 2, "an action": ends[3] + 20, "the score": ends[-2] + 40}[where]
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    save = tmp_path / "night.jsonl"
    args = ["run", "dead-rank", "--actions", str(actions), "--backend", "sim", "--save", str(save)]
    line = one_line_error(run_with_file_cap(args, cap))
    assert "cannot write line" in line and "File too large" in line
    if where == "header":
        assert not save.exists(), "a save that never got its header is removed"
        return
    data = save.read_bytes()
    assert data.endswith(b"\n") and len(data) <= cap
    assert raw.startswith(data), "every line kept is the line the night wrote"
    kept = read_save(save)
    assert not kept.truncated and kept.score is None
    assert f"keeps its {kept.lines} whole lines" in line
    # Room again: the resumed night is the night that would have been.
    resumed = run_drill("run", "--resume", str(save), "--actions", str(actions), "--json")
    assert resumed.returncode == 0, resumed.stderr
    after = json.loads(resumed.stdout)
    assert after["actions"] == full_account["actions"]
    assert after["score"] == full_account["score"]
    assert records(save) == records(full_save)

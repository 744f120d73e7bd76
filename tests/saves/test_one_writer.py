"""One writer per save (issue 20): two `drill run --resume` of one save both exited 0 and the
save got every later action twice and two score lines; two fresh runs of one incident and seed
into one folder raced for one name. Now the writer holds an exclusive flock for the whole
night, a second writer exits 2 naming the process that holds it, and fresh saves claim their
names with O_EXCL."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from drill.saves import SaveError, SaveWriter, read_save
from drill.saves.folder import claim_new_save
from drill.saves_dir import set_saves_dir
from tests.clikit import REPO, run_drill
from tests.saves.savekit import ACTIONS, cut_after, play_night, records


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    return play_night(tmp_path_factory.mktemp("whole"))[0]


def drill_process(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def assert_whole_and_single(path) -> None:
    """Every action once, in order, one score line, and the save verifies."""
    rows = records(path)
    kinds = [r["type"] for r in rows]
    assert kinds.count("header") == 1 and kinds.count("score") == 1, kinds
    numbers = [r["n"] for r in rows if r["type"] == "action"]
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    save = read_save(path)
    assert save.finished and not save.truncated
    done = run_drill("replay", str(path), "--verify")
    assert done.returncode == 0, done.stderr


def test_a_second_resume_of_a_save_being_written_exits_2_naming_the_first(whole, tmp_path):
    save = cut_after(whole, tmp_path / "cut.jsonl", 2)
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    before = save.stat().st_size
    # A second a line: the first writer holds the save for about five seconds.
    first = drill_process(
        "run", "--resume", str(save), "--actions", str(actions), "--pace", "1", "--json"
    )
    try:
        deadline = time.monotonic() + 120
        while save.stat().st_size == before:  # its first new line: it holds the lock
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first resume wrote nothing"
            time.sleep(0.05)
        second = run_drill("run", "--resume", str(save), "--actions", str(actions), "--json")
        play = run_drill("play", "--resume", str(save))
        out, err = first.communicate(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err
    for done in (second, play):
        assert done.returncode == 2, (done.returncode, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.startswith(f"drill: {save}:1: another drill (process {first.pid}")
        assert "is writing this save now" in done.stderr
    assert_whole_and_single(save)
    assert len([r for r in records(save) if r["type"] == "action"]) == 7


def test_two_writers_in_one_process_and_a_stale_read_are_refused(whole, tmp_path):
    save = cut_after(whole, tmp_path / "cut.jsonl", 3)
    read = read_save(save)
    writer = SaveWriter.reopen(read)
    try:
        with pytest.raises(SaveError, match=rf"another drill \(process {os.getpid()}"):
            SaveWriter.reopen(read_save(save))
        writer.text("note.test", "written by the first writer")
    finally:
        writer.close()
    # The first writer is done, but what the second read before is stale now.
    with pytest.raises(SaveError, match="the save changed since it was read"):
        SaveWriter.reopen(read)
    assert len(records(save)) == 5


def test_fresh_runs_into_one_folder_get_distinct_saves(tmp_path):
    folder = tmp_path / "saves"
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    runs = [
        drill_process(
            "run", "dead-rank", "--backend", "sim", "--actions", str(actions),
            "--saves-dir", str(folder), "--json",
        )
        for _ in range(3)
    ]  # fmt: skip
    errors = []
    for run in runs:
        _, err = run.communicate(timeout=300)
        errors.append(err)
        assert run.returncode == 0, err
    assert not any("--resume" in err for err in errors), errors
    saves = sorted(folder.glob("*.jsonl"))
    assert [p.name for p in saves] == [f"dead-rank-seed1-{n:03d}.jsonl" for n in (1, 2, 3)]
    for path in saves:
        assert_whole_and_single(path)


def test_a_new_save_skips_every_name_already_taken(tmp_path):
    (tmp_path / "dead-rank-seed1-001.jsonl").write_text("")  # another drill's, still empty
    os.symlink(tmp_path / "nowhere", tmp_path / "dead-rank-seed1-002.jsonl")
    set_saves_dir(tmp_path)
    try:
        path, fd = claim_new_save("dead-rank", 1)
        os.close(fd)
    finally:
        set_saves_dir(None)
    assert path.name == "dead-rank-seed1-003.jsonl"
    assert not (tmp_path / "nowhere").exists()

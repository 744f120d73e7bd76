"""Where saves go and what a save may make drill read: no symbolic link is followed out of a
saves folder, and a save's incident path is read only from the shipped incidents or the save's
own folder, counted from that folder, and never echoed."""

from __future__ import annotations

import json
import os

import pytest

from drill.saves import read_save
from tests.clikit import REPO, run_drill
from tests.saves.savekit import play_night, records, write_records


def drill_in(cwd, *args):
    """The CLI run from another folder than the repository."""
    return run_drill(*args, cwd=cwd)


def test_a_dangling_link_in_the_saves_folder_is_skipped_not_followed(tmp_path):
    folder, outside = tmp_path / "saves", tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    planted = outside / "planted.jsonl"
    os.symlink(planted, folder / "dead-rank-seed1-001.jsonl")
    done = run_drill(
        "run", "dead-rank", "--reference", "--backend", "sim", "--saves-dir", str(folder)
    )
    assert done.returncode == 0, done.stderr
    assert not planted.exists(), "the save went where the link points"
    assert (folder / "dead-rank-seed1-002.jsonl").is_file()
    assert read_save(folder / "dead-rank-seed1-002.jsonl").score is not None


def test_save_through_a_link_is_refused(tmp_path):
    planted = tmp_path / "elsewhere" / "planted.jsonl"
    link = tmp_path / "night.jsonl"
    os.symlink(planted, link)
    done = run_drill("run", "dead-rank", "--reference", "--backend", "sim", "--save", str(link))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{link}:1: a symbolic link is in the way" in done.stderr
    assert not planted.exists()


def test_reading_follows_a_link_only_inside_its_folder(tmp_path):
    save, _ = play_night(tmp_path / "real")
    inside = tmp_path / "real" / "again.jsonl"
    os.symlink(save.name, inside)
    assert read_save(inside).score is not None
    (tmp_path / "links").mkdir()
    outside = tmp_path / "links" / "link.jsonl"
    os.symlink(save, outside)
    done = run_drill("replay", str(outside))
    assert done.returncode == 2
    assert f"{outside}:1: this is a symbolic link to a file outside its folder" in done.stderr


SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"


@pytest.mark.parametrize("named", ["id_ed25519", "{folder}/id_ed25519"])
def test_a_file_the_header_names_is_never_parsed_or_echoed(tmp_path, named):
    save, _ = play_night(tmp_path / "night")
    (save.parent / "id_ed25519").write_text(SECRET)
    rows = records(save)
    rows[0]["incident_path"] = named.format(folder=save.parent)
    write_records(save, rows)
    done = run_drill("replay", str(save))
    assert done.returncode == 2
    assert "BEGIN" not in done.stderr and "b3Bl" not in done.stderr
    assert "the incident changed since this save was made" in done.stderr


def test_an_incident_in_the_current_folder_is_not_read_from_a_save(tmp_path):
    """The current folder is not the save's: a save must not make drill read files there."""
    work = tmp_path / "work"
    save, _ = play_night(tmp_path / "saves")
    work.mkdir()
    (work / "secret.yaml").write_text(SECRET)
    rows = records(save)
    rows[0]["incident_path"] = "secret.yaml"
    write_records(save, rows)
    done = drill_in(work, "replay", str(save))
    assert done.returncode == 0, done.stderr  # the shipped dead-rank, found by id
    assert "BEGIN" not in done.stderr + done.stdout


def test_a_relative_incident_path_counts_from_the_save_folder(tmp_path):
    """An instructor's own incident next to the save replays from anywhere."""
    night = tmp_path / "night"
    night.mkdir()
    text = (REPO / "incidents" / "dead-rank.yaml").read_text()
    (night / "my-rank.yaml").write_text(text.replace("id: dead-rank", "id: my-rank", 1))
    made_in = tmp_path / "made-here"
    made_in.mkdir()
    save = night / "mine.jsonl"
    done = drill_in(
        made_in,
        "run",
        "../night/my-rank.yaml",
        "--reference",
        "--backend",
        "sim",
        "--save",
        str(save),
    )
    assert done.returncode == 0, done.stderr
    header = json.loads(save.read_text().splitlines()[0])
    assert header["incident_path"] == "my-rank.yaml"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = drill_in(elsewhere, "replay", str(save), "--verify")
    assert replayed.returncode == 0, replayed.stderr


def test_an_incident_outside_the_save_folder_needs_incident(tmp_path):
    mine = tmp_path / "incidents" / "my-rank.yaml"
    mine.parent.mkdir()
    text = (REPO / "incidents" / "dead-rank.yaml").read_text()
    mine.write_text(text.replace("id: dead-rank", "id: my-rank", 1))
    save = tmp_path / "saves" / "mine.jsonl"
    done = run_drill("run", str(mine), "--reference", "--backend", "sim", "--save", str(save))
    assert done.returncode == 0, done.stderr
    refused = run_drill("replay", str(save))
    assert refused.returncode == 2
    assert "not shipped with drill" in refused.stderr and "--incident FILE" in refused.stderr
    assert run_drill("replay", str(save), "--incident", str(mine), "--verify").returncode == 0

"""`drill course collect`: any layout, read without trusting it. A zip's entries never name
where anything is written (saves are kept under their sha256), an entry that would leave the
zip, a link, or one bigger than a save is left out with a line, and a save says whose it is by
its header, else by its learner folder."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drill.classroom.handed_files import _entry_parts
from tests.clikit import run_drill


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A course of one night, and two saves of it: one with a learner's name, one without."""
    root = tmp_path_factory.mktemp("collect")
    done = run_drill("course", "new", str(root / "course"), "--night", "tutorial")
    assert done.returncode == 0, done.stderr
    toml = root / "course" / "course.toml"
    toml.write_text(toml.read_text().replace('backend = "inprocess"', 'backend = "sim"'))
    incident = root / "course" / "incidents" / "tutorial.yaml"
    saves = {}
    for name, learner in (("named", ["--learner", "Ada Okafor"]), ("unnamed", [])):
        path = root / f"{name}.jsonl"
        ran = run_drill(
            "run", str(incident), "--reference", "--backend", "sim", "--save", str(path), *learner
        )
        assert ran.returncode == 0, ran.stderr
        saves[name] = path.read_bytes()
    return root, saves


def course_copy(played, tmp_path) -> Path:
    import shutil

    shutil.copytree(played[0] / "course", tmp_path / "course")
    return tmp_path / "course"


def submissions(course: Path) -> list[str]:
    folder = course / "submissions"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_hostile_zip_gives_up_only_its_honest_save(played, tmp_path):
    course = course_copy(played, tmp_path)
    _, saves = played
    hostile = tmp_path / "hand-in.zip"
    with zipfile.ZipFile(hostile, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("Ada Okafor/good.jsonl", saves["named"])
        for name in ("../../evil.jsonl", "/etc/evil.jsonl", "C:/evil.jsonl", "a/../../evil.jsonl"):
            archive.writestr(zipfile.ZipInfo(name), saves["named"] + b"x")
        link = zipfile.ZipInfo("Ada Okafor/link.jsonl")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
        # 60 MB of zeros: some kB in the zip, more than a save may be once read.
        archive.writestr("Ada Okafor/bomb.jsonl", b"\0" * 60_000_000)
    done = run_drill("course", "collect", str(hostile), "--course", str(course))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("its name leads out of the zip") == 4
    assert "link.jsonl: a link" in out and "bomb.jsonl: over 50 MB" in out
    assert "1 save of 1 learner, 1 new; 6 left out" in out
    assert len(submissions(course)) == 1
    assert not any(p.name == "evil.jsonl" for p in tmp_path.rglob("*"))
    assert not Path("/etc/evil.jsonl").exists()


def test_whose_a_save_is(played, tmp_path):
    """The header's name wins; a save without one takes its learner folder's name; one at the
    top of a folder, with no name, is left out and the line says how to hand it in."""
    course = course_copy(played, tmp_path)
    _, saves = played
    hand = tmp_path / "hand"
    (hand / "Bo Lund" / "saves").mkdir(parents=True)
    (hand / "Bo Lund" / "saves" / "a.jsonl").write_bytes(saves["unnamed"])
    (hand / "Cy Park").mkdir()
    (hand / "Cy Park" / "b.jsonl").write_bytes(saves["named"])  # Ada's save in Cy's folder
    (hand / "loose.jsonl").write_bytes(saves["unnamed"] + b"")
    done = run_drill("course", "collect", str(hand), "--course", str(course))
    assert done.returncode == 0, done.stderr
    assert "the folder Cy Park holds saves played by Ada Okafor" in done.stdout
    assert "loose.jsonl: the save has no learner name" in done.stdout
    report = run_drill("course", "report", "--course", str(course))
    assert "waiting" in report.stdout and "Bo Lund" in report.stdout
    assert "Ada Okafor" in report.stdout and "Cy Park" not in report.stdout


def test_a_link_in_a_folder_and_a_save_of_another_incident_are_left_out(played, tmp_path):
    course = course_copy(played, tmp_path)
    _, saves = played
    hand = tmp_path / "hand" / "Ada Okafor"
    hand.mkdir(parents=True)
    (tmp_path / "outside.jsonl").write_bytes(saves["named"])
    os.symlink(tmp_path / "outside.jsonl", hand / "link.jsonl")
    other = run_drill(
        "run", "zombie-memory", "--reference", "--backend", "sim", "--learner", "Ada Okafor",
        "--save", str(hand / "other.jsonl"),
    )  # fmt: skip
    assert other.returncode == 0, other.stderr
    done = run_drill("course", "collect", str(tmp_path / "hand"), "--course", str(course))
    assert "link.jsonl: a link" in done.stdout
    assert "a save of zombie-memory, which is not a night of this course" in done.stdout
    assert submissions(course) == []


def test_the_same_save_twice_is_one_submission(played, tmp_path):
    course = course_copy(played, tmp_path)
    _, saves = played
    for name in ("one", "two"):
        (tmp_path / name / "Ada Okafor").mkdir(parents=True)
        (tmp_path / name / "Ada Okafor" / "x.jsonl").write_bytes(saves["named"])
    done = run_drill(
        "course", "collect", str(tmp_path / "one"), str(tmp_path / "two"), "--course", str(course)
    )
    assert (
        "1 save of 1 learner, 1 new" in done.stdout and "1 save of 1 learner, 0 new" in done.stdout
    )


def test_what_cannot_be_read_at_all_is_one_line_and_exit_2(played, tmp_path):
    course = course_copy(played, tmp_path)
    broken = tmp_path / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    for source in (broken, tmp_path / "nowhere"):
        done = run_drill("course", "collect", str(source), "--course", str(course))
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


@given(st.lists(st.sampled_from(["a", "b", ".", "..", "/", "\\", "C:", ":", "\x00"]), max_size=12))
def test_no_entry_name_leads_out_of_its_folder(pieces):
    name = "".join(pieces)
    parts = _entry_parts(name)
    if parts is None:
        return
    root = PurePosixPath("/root")
    joined = root.joinpath(*parts)
    assert ".." not in parts and all(parts) and all("\x00" not in p for p in parts)
    assert joined.is_relative_to(root) and not PurePosixPath(parts[0]).is_absolute()

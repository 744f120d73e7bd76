"""`drill play --course PACK`: the pack's nights in the course's order, the learner's name asked
once (kept in the pack) and written into every save, the learner's own seed of each night, the
save in the pack; the flags a course decides refused in one line; `drill serve --course` asks in
every tab and keeps no name."""

from __future__ import annotations

import json
import shutil

import pytest

from drill.classroom.course_file import load_course
from drill.classroom.pack_play import LEARNER_FILE
from drill.cli import build_parser
from drill.commands.play import app_options
from drill.commands.serve import play_command
from drill.tui.app import DrillApp
from tests.clikit import run_drill
from tests.tui.tuikit import screen_name, settle, sync, to_night, type_line, until

SIZE = (120, 40)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    root = tmp_path_factory.mktemp("pack")
    course = root / "course"
    made = run_drill(
        "course", "new", str(course), "--night", "quota-cut", "--night", "tutorial"
    )  # quota-cut first: the picker keeps the course's order, not the shipped one
    assert made.returncode == 0, made.stderr
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace('backend = "inprocess"', 'backend = "sim"'))
    done = run_drill("course", "release", "--course", str(course), "-o", str(root / "pack"))
    assert done.returncode == 0, done.stderr
    return root / "pack"


@pytest.fixture
def pack(released, tmp_path):
    shutil.copytree(released, tmp_path / "pack")
    return tmp_path / "pack"


def app_for(*argv: str) -> DrillApp:
    options = app_options(build_parser().parse_args(["play", *argv]))
    return DrillApp(**{**options, "paused": True}, cursor_blink=False)


@sync
async def test_the_name_is_asked_once_and_goes_into_the_save(pack, tmp_path):
    app = app_for("--course", str(pack))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_name(app) == "LearnerScreen"
        await pilot.press("enter")  # nothing typed: it says why and waits
        assert screen_name(app) == "LearnerScreen"
        await pilot.press(*"Ada Okafor")
        await pilot.press("enter")
        await until(pilot, lambda: screen_name(app) == "PickerScreen")
        assert [e.header.id for e in app.screen.entries] == ["quota-cut", "tutorial"]
        await pilot.press("down", "enter")
        await until(pilot, lambda: screen_name(app) == "BriefingScreen")
        spec = app.driver.spec
        night = load_course(pack).night("tutorial")
        assert spec.seed == night.seed_for("Ada Okafor") and spec.learner == "Ada Okafor"
        await to_night(pilot)
        await type_line(pilot, "status tiny-train", keys=False)
        save = app.driver.save_path
        await settle(pilot)
    assert save.parent == pack / "saves"
    header = json.loads(save.read_text().splitlines()[0])
    assert header["learner"] == "Ada Okafor" and header["backend"] == "sim"
    assert "Ada Okafor" in (pack / LEARNER_FILE).read_text()
    again = app_for("--course", str(pack))
    async with again.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_name(again) == "PickerScreen"  # the pack remembered the name
        assert again.course.learner == "Ada Okafor"


@sync
async def test_under_serve_every_tab_asks_and_no_name_is_kept(pack):
    args = build_parser().parse_args(["serve", "--course", str(pack)])
    command = play_command(args)
    assert "--course" in command and command.endswith("--learner-per-tab")
    (pack / LEARNER_FILE).write_text('name = "Someone Else"\n')
    app = app_for("--course", str(pack), "--learner-per-tab")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert screen_name(app) == "LearnerScreen"
        await pilot.press(*"Ben Ito", "enter")
        await until(pilot, lambda: screen_name(app) == "PickerScreen")
    assert "Someone Else" in (pack / LEARNER_FILE).read_text()


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--backend", "inprocess"], "this course is played on sim"),
        (["--saves-dir", "elsewhere"], "--saves-dir: a course decides it"),
        (["--replica", "spiral-mlp"], "--replica: a course decides it"),
        (
            ["dead-rank"],
            "'dead-rank' is not a night of this course; its nights are: quota-cut, tutorial",
        ),
        (["tutorial", "--seed", "99"], "night tutorial is played on seeds 1 to 8"),
        (["--learner", "   "], "--learner: Type your name"),
    ],
)
def test_what_a_course_decides_is_refused_in_one_line(pack, extra, words):
    done = run_drill("play", "--course", str(pack), *extra)
    assert done.returncode == 2, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and words in done.stderr, done.stderr


def test_a_night_by_its_number_gets_the_learners_seed(pack):
    options = app_options(
        build_parser().parse_args(["play", "--course", str(pack), "2", "--learner", "Ada Okafor"])
    )
    assert options["loaded"].incident.id == "tutorial"
    night = load_course(pack).night("tutorial")
    assert options["seed"] == night.seed_for("Ada Okafor") and options["backend"] == "sim"
    assert options["course"].learner == "Ada Okafor"

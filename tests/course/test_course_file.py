"""course.toml: bad input is one located line and exit 2 (the file, the line, the fix), no key
names code to run, no path leaves the course folder; `drill course new` writes a course that
loads; each learner's seed is theirs and in the night's range, whatever the name."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drill.classroom.course_file import CourseError, Night, learner_key, load_course
from tests.clikit import run_drill

GOOD = """\
title = "Week 6"
backend = "sim"
attempt = "best"

[[nights]]
incident = "incidents/tutorial.yaml"
seed = 1

[[nights]]
incident = "incidents/quota-cut.yaml"
seeds = [1, 4]
deadline = 2026-12-14T23:59:00Z
"""


@pytest.fixture
def course(tmp_path) -> Path:
    done = run_drill(
        "course", "new", str(tmp_path / "c"), "--night", "tutorial", "--night", "quota-cut"
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "c"
    (folder / "course.toml").write_text(GOOD)
    return folder


def test_new_writes_a_course_that_loads_with_its_nights(tmp_path):
    done = run_drill("course", "new", str(tmp_path / "week6"), "--title", "Week 6")
    assert done.returncode == 0, done.stderr
    loaded = load_course(tmp_path / "week6")
    assert loaded.title == "Week 6"
    assert loaded.night_ids == ("tutorial", "dead-rank", "full-disk")
    assert (tmp_path / "week6" / ".gitignore").read_text().count("gradebook.sqlite") == 1
    again = run_drill("course", "new", str(tmp_path / "week6"))
    assert again.returncode == 2 and "a course is already here" in again.stderr


def test_the_example_loads(course):
    loaded = load_course(course)
    assert [(n.id, n.first_seed, n.last_seed) for n in loaded.nights] == [
        ("tutorial", 1, 1),
        ("quota-cut", 1, 4),
    ]
    assert loaded.nights[1].deadline.isoformat() == "2026-12-14T23:59:00+00:00"


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (('backend = "sim"', 'backend = "gloo"'), 2, "`backend` must be one of inprocess, sim"),
        (('attempt = "best"', 'attempt = "worst"'), 3, "`attempt` must be one of best, last"),
        (("seed = 1", "seed = 1.5"), 7, "`seed` must be a whole number"),
        (("seeds = [1, 4]", "seeds = [4, 1]"), 11, "runs backwards; write [1, 4]"),
        (("seed = 1", "seeds = [1, 2]\nseed = 1"), 8, "needs one of `seed = N`"),
        (("deadline = 2026-12-14T23:59:00Z", "deadline = 2026-12-14T23:59:00"), 12, "time zone"),
        (("deadline = 2026-12-14T23:59:00Z", 'deadline = "friday"'), 12, "time zone"),
        (('title = "Week 6"', 'titel = "Week 6"'), 1, "did you mean `title`?"),
        (("seed = 1", 'seed = 1\nreplica = "mymod:make"'), 8, "a course file names no code"),
        (('backend = "sim"', 'backend = "sim"\n[hooks]\nrun = "rm -rf"'), 3, "no key `hooks`"),
        (("incidents/tutorial.yaml", "../outside.yaml"), 6, "leads out of the course folder"),
        (("incidents/tutorial.yaml", "/etc/passwd"), 6, "not a path inside the course"),
        (("incidents/tutorial.yaml", "incidents/missing.yaml"), 6, "no file"),
        (("incidents/quota-cut.yaml", "incidents/tutorial.yaml"), 9, "already night 1"),
        (('title = "Week 6"', 'title = "Week 6'), 1, "not valid TOML"),
    ],
)
def test_a_mistake_is_one_located_line_and_exit_2(course, edit, line, words):
    path = course / "course.toml"
    path.write_text(GOOD.replace(*edit))
    (course.parent / "outside.yaml").write_text("id: outside\n")
    done = run_drill("course", "release", "--course", str(course))
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(f"drill: {path}:{line}: "), lines[0]
    assert words in lines[0]


def test_a_link_out_of_the_folder_is_refused(course, tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_bytes((course / "incidents" / "tutorial.yaml").read_bytes())
    (course / "incidents" / "linked.yaml").symlink_to(outside)
    (course / "course.toml").write_text(
        GOOD.replace("incidents/tutorial.yaml", "incidents/linked.yaml")
    )
    with pytest.raises(CourseError, match="leads out of the course folder") as caught:
        load_course(course)
    assert caught.value.line == 6


def test_no_course_here_says_how_to_make_one(tmp_path):
    done = run_drill("course", "grade", "--course", str(tmp_path))
    assert done.returncode == 2
    assert "drill course new FOLDER" in done.stderr


def _night(first: int, last: int) -> Night:
    return Night("tutorial", Path("x.yaml"), "x.yaml", first, last, None, 1)


@settings(max_examples=300, deadline=None)
@given(
    name=st.text(min_size=1, max_size=60),
    first=st.integers(-(2**40), 2**40),
    size=st.integers(1, 100_000),
)
def test_a_learners_seed_is_in_the_range_and_the_same_for_the_same_person(name, first, size):
    night = _night(first, first + size - 1)
    seed = night.seed_for(name)
    assert night.has_seed(seed)
    # "Ada  Okafor" and " ada okafor " are one learner, so they play one seed.
    spaced = f"  {name.casefold()}  ".replace(" ", "   ")
    assert learner_key(spaced) == learner_key(name)
    assert night.seed_for(spaced) == seed


def test_learners_get_spread_over_the_range():
    night = _night(1, 8)
    seeds = {night.seed_for(f"learner {n}") for n in range(40)}
    assert len(seeds) >= 6

"""The course's "done when": a class of forty learners over three nights, collected from mixed
layouts, graded by replay on SQLite and on a real PostgreSQL, every grade equal to a direct
`drill run` of the same actions, the five tampered saves refused at their line, the CSV's rows;
the same grades from a Dask LocalCluster of two workers; grading again changes nothing."""

from __future__ import annotations

import csv
import dataclasses
import io
import os
from collections import defaultdict

import pytest

from tests.clikit import run_drill
from tests.course.classkit import FIRST, ClassKit
from tests.course.gradebook_rows import rows


def collect_and_grade(kit: ClassKit, course, *grade_flags: str, env: dict | None = None):
    collected = run_drill(
        "course", "collect", *map(str, kit.sources()), "--course", str(course), env=env
    )
    assert collected.returncode == 0, collected.stderr
    graded = run_drill("course", "grade", "--course", str(course), *grade_flags, env=env)
    assert graded.returncode == 0, graded.stderr + graded.stdout
    return collected, graded


@pytest.fixture(scope="module")
def on_sqlite(kit, tmp_path_factory):
    course = kit.course_copy(tmp_path_factory.mktemp("sqlite"))
    collected, graded = collect_and_grade(kit, course, "--processes", "2")
    return course, collected, graded, rows(course)


def check_grades(kit: ClassKit, found: dict[str, dict]) -> None:
    """Every save of the class in the gradebook once, under the right learner and night; each
    honest save's grade the direct run's, to the last digit; each tampered save refused at its
    line and field, with no score."""
    hand = kit.hand
    assert len(found) == len(kit.saves)  # the duplicate counted once, the cache left alone
    for save in kit.saves:
        row = found[f"{hand}/{save.file}"]
        assert (row["learner"], row["night"]) == (save.learner, save.night), save.file
        result = row["result"]
        assert result is not None, save.file
        if save.refused_at is None:
            assert result["verified"], (save.file, result["refusal"])
            assert result["seed"] == save.seed
            assert result["total"] == save.expected["total"], save.file
            assert result["grade"] == save.expected["grade"]
            assert [list(c) for c in result["components"]] == save.expected["components"]
            assert result["timeline"] and result["feedback_html"]
            if save.how == "restart-without-looking":  # the restart came with no look first
                assert result["first_wrong_act"] == "restart tiny-train --from latest"
            if save.how == "reference":
                assert result["first_wrong_act"] is None
        else:
            line, field = save.refused_at
            assert not result["verified"], save.file
            assert result["total"] is None and result["grade"] is None and not result["components"]
            assert result["refusal"][0] == line, (save.how, result["refusal"])
            assert result["refusal"][1].startswith(field), (save.how, result["refusal"])


def test_the_class_is_graded_on_sqlite_as_drill_run_scores_it(kit, on_sqlite):
    course, collected, graded, found = on_sqlite
    check_grades(kit, found)
    assert f"{len(kit.honest)} graded, 5 refused" in graded.stdout
    # The unnamed saves were placed by their learner folder; the named ones by their header.
    assert "left out" not in collected.stdout, collected.stdout
    assert len(list((course / "feedback").glob("*.html"))) == len(FIRST)


def test_each_learner_has_a_self_contained_feedback_page(kit, on_sqlite):
    from drill.classroom.feedback import feedback_name

    course = on_sqlite[0]
    for learner in FIRST:
        page = (course / "feedback" / feedback_name(learner)).read_text()
        assert f"Feedback for {learner}" in page
        # Nothing to fetch: no scripts, images, stylesheets or links to follow.
        for outside in ("<script", "src=", "<link", "href=", "url("):
            assert outside not in page, (learner, outside)
        assert "\u2014" not in page
    ben = (course / "feedback" / feedback_name("Ben Ito")).read_text()
    assert "Your save was not graded" in ben  # zombie-memory: his only save was edited
    once = [s.learner for s in kit.saves if s.night == "tutorial"]
    looked_not = next(
        s for s in kit.honest if s.how == "restart-without-looking" and once.count(s.learner) == 1
    )
    page = (course / "feedback" / feedback_name(looked_not.learner)).read_text()
    assert "You lost the most in" in page and "Your cluster runbook" in page
    assert "The first act the score held against you: <code>restart tiny-train" in page


def test_the_five_tampered_saves_are_refused_at_their_line(kit, on_sqlite):
    _, _, graded, found = on_sqlite
    hows = sorted(s.how for s in kit.tampered)
    assert hows == [f"tampered: {w}" for w in ("action", "score", "seed", "truncated", "version")]
    for save in kit.tampered:
        line, field = save.refused_at
        assert f"{kit.hand}/{save.file}:{line}: {field}" in graded.stdout, save.how


def test_the_csv_has_a_row_per_learner_and_night(kit, on_sqlite):
    course = on_sqlite[0]
    done = run_drill("course", "export", "--csv", "--course", str(course))
    assert done.returncode == 0, done.stderr
    table = list(csv.DictReader(io.StringIO(done.stdout)))
    assert len(table) == len(FIRST) * 3
    best: dict[tuple[str, str], float] = {}
    handed: dict[tuple[str, str], int] = defaultdict(int)
    for save in kit.saves:
        handed[(save.learner, save.night)] += 1
        if save.refused_at is None:
            pair = (save.learner, save.night)
            best[pair] = max(best.get(pair, -1.0), save.expected["total"])
    for row in table:
        pair = (row["learner"], row["night"])
        assert int(row["attempts"]) == handed[pair]
        if pair in best:
            assert row["status"] == "graded"
            assert float(row["score"]) == pytest.approx(best[pair], abs=0.05)
            assert row["late"] == "no"  # the first night's deadline is years away
        elif handed[pair]:
            assert row["status"] == "refused" and row["refusal"].startswith("line ")
        else:
            assert row["status"] == "not handed in" and row["score"] == ""
    refused_only = {(r["learner"], r["night"]) for r in table if r["status"] == "refused"}
    assert refused_only == {("Ben Ito", "zombie-memory"), ("Femi Adeyemi", "quota-cut")}


def test_the_kept_attempt_follows_the_course_rule_without_a_regrade(kit, on_sqlite):
    """best keeps the higher of two attempts; last and first are read from the same rows."""
    course = on_sqlite[0]
    from drill.classroom.course_file import load_course
    from drill.classroom.gradebook.database import open_gradebook
    from drill.classroom.gradebook.query import class_results

    twice = [s for s in kit.honest if s.night == "tutorial" and s.learner == FIRST[0]]
    assert len(twice) == 2
    loaded = load_course(course)
    engine = open_gradebook(course)
    try:
        for rule, pick in (("best", max), ("first", None), ("last", None)):
            chosen = dataclasses.replace(loaded, attempt=rule)
            cell = class_results(chosen, engine).cell(FIRST[0], "tutorial")
            assert cell is not None and cell.attempts == 2
            if pick is max:
                assert cell.total == max(s.expected["total"] for s in twice)
            else:
                # Both were written in the same second by the kit: the order collected decides.
                ordered = sorted(twice, key=lambda s: s.file)
                wanted = ordered[0] if rule == "first" else ordered[-1]
                assert cell.save_name.endswith(wanted.file)
    finally:
        engine.dispose()


def test_grading_again_changes_no_row(kit, on_sqlite):
    course, _, _, found = on_sqlite
    again = run_drill("course", "grade", "--course", str(course), "--processes", "2")
    assert again.returncode == 0 and "0 graded, 0 refused" in again.stdout
    assert rows(course) == found
    fresh = run_drill("course", "grade", "--course", str(course), "--again", "--processes", "1")
    assert fresh.returncode == 0, fresh.stderr
    assert f"{len(kit.honest)} graded, 5 refused" in fresh.stdout
    assert rows(course) == found


def test_the_class_is_graded_on_postgresql_to_the_same_rows(kit, on_sqlite, postgres_url, tmp_path):
    course = kit.course_copy(tmp_path)
    env = {**os.environ, "DRILL_COURSE_DB": postgres_url}
    collect_and_grade(kit, course, "--processes", "2", env=env)
    assert not (course / "gradebook.sqlite").exists()  # the URL was used, not the default
    found = rows(course, postgres_url)
    check_grades(kit, found)
    assert found == on_sqlite[3]


def test_a_dask_local_cluster_of_two_workers_gives_the_same_grades(kit, on_sqlite, tmp_path):
    course = kit.course_copy(tmp_path)
    _, graded = collect_and_grade(kit, course, "--workers", "2")
    assert "a Dask LocalCluster of 2 workers" in graded.stdout
    assert rows(course) == on_sqlite[3]

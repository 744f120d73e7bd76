"""A grade killed midway (a real SIGKILL of `drill course grade` and its worker, mid-class)
loses no finished result: every result written before the kill is whole and unchanged, and the
next grade does the rest, to the grades a clean run gives."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

from tests.clikit import REPO, run_drill
from tests.course.gradebook_rows import rows
from tests.course.test_class_grading import check_grades


def results_written(database) -> int:
    if not database.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as connection:
            return connection.execute("SELECT count(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # the tables are not made yet, or a write holds the file


def test_a_grade_killed_midway_loses_no_finished_result(kit, tmp_path):
    course = kit.course_copy(tmp_path)
    collected = run_drill("course", "collect", *map(str, kit.sources()), "--course", str(course))
    assert collected.returncode == 0, collected.stderr
    database = course / "gradebook.sqlite"
    grade = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "drill",
            "course",
            "grade",
            "--course",
            str(course),
            "--processes",
            "1",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the kill takes the worker with it
    )
    try:
        deadline = time.monotonic() + 180
        while results_written(database) < 8:
            assert grade.poll() is None, "the grade finished before it could be killed"
            assert time.monotonic() < deadline, "no results written in three minutes"
            time.sleep(0.05)
    finally:
        os.killpg(grade.pid, signal.SIGKILL)
        grade.wait(timeout=30)
    before = {k: v for k, v in rows(course).items() if v["result"] is not None}
    assert 8 <= len(before) < len(kit.saves)
    for found_as, row in before.items():
        result = row["result"]
        if result["verified"]:  # whole: its components and timeline came in the same transaction
            assert len(result["components"]) == 7 and result["timeline"], found_as
        else:
            assert result["refusal"][2], found_as
    done = run_drill("course", "grade", "--course", str(course), "--processes", "2")
    assert done.returncode == 0, done.stderr
    after = rows(course)
    assert {k: after[k] for k in before} == before
    check_grades(kit, after)

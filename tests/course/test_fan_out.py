"""Grading on a Dask scheduler that is already running (`--scheduler tcp://HOST:8786`), the
same code path as the local pool; and worker settings that cannot be had, one line each."""

from __future__ import annotations

import shutil

import pytest

from tests.clikit import run_drill


@pytest.fixture
def one_save_course(tmp_path):
    course = tmp_path / "course"
    assert run_drill("course", "new", str(course), "--night", "tutorial").returncode == 0
    toml = course / "course.toml"
    toml.write_text(toml.read_text().replace('backend = "inprocess"', 'backend = "sim"'))
    hand = tmp_path / "hand" / "Ada Okafor"
    hand.mkdir(parents=True)
    done = run_drill(
        "run", str(course / "incidents" / "tutorial.yaml"), "--reference", "--backend", "sim",
        "--learner", "Ada Okafor", "--save", str(hand / "night.jsonl"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        run_drill("course", "collect", str(tmp_path / "hand"), "--course", str(course)).returncode
        == 0
    )
    yield course
    shutil.rmtree(tmp_path / "hand", ignore_errors=True)


def test_a_running_scheduler_grades_the_class(one_save_course):
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        done = run_drill(
            "course", "grade", "--course", str(one_save_course), "--scheduler", address
        )
    assert done.returncode == 0, done.stderr
    assert f"on the Dask scheduler at {address}" in done.stdout
    assert "graded Ada Okafor, tutorial seed 1: 100 (A)" in done.stdout


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--scheduler", "127.0.0.1:8786"], "give the scheduler's address, like tcp://HOST:8786"),
        (["--workers", "0"], "--workers must be from 1 to 64"),
        (["--processes", "500"], "--processes must be from 1 to 64"),
    ],
)
def test_workers_that_cannot_be_had_are_one_line(one_save_course, flags, words):
    done = run_drill("course", "grade", "--course", str(one_save_course), *flags)
    assert done.returncode == 2 and words in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1

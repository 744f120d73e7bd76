"""How fast `drill course grade` grades a class: saves per minute with 1 and 2 workers, and the
cost per save, against one `drill replay --verify` of the same kind of save in this process.

    .venv/bin/python benchmarks/bench_course.py [--quick] [--saves N]

A course of two short nights on the sim backend (tutorial and quota-cut, one seed each, so par
and floor are measured once before the timing, as the saves cache keeps them) and N saves of
them (the reference and the graded runbooks, played by `drill run` for as many learners), are
collected once. Then the whole class is graded again and again (`--again`, into the same
gradebook rows) on a local process pool of 1 and of 2 processes, and in the full run on a Dask
LocalCluster of 1 and of 2 workers. The time includes starting the workers, writing each result
in its own transaction and the feedback pages, as an instructor waits for it. The reference is
the same class verified back to back through drill/replay_check.py (what each worker runs per
save) in one fresh process, warmed by a first pass. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from suite import hand_over, row  # noqa: E402

COURSE = """\
title = "Benchmark class"
backend = "sim"

[[nights]]
incident = "incidents/tutorial.yaml"
seed = 1

[[nights]]
incident = "incidents/quota-cut.yaml"
seed = 1
"""
PLAYS = {
    "tutorial": ("reference", "restart-without-looking"),
    "quota-cut": ("reference", "ask-for-more-quota", "keep-fewer-without-pruning"),
}


def build(root: Path, saves: int) -> tuple[Path, list[Path]]:
    from drill.cli import main
    from drill.incident.library import shipped_path

    course = root / "course"
    (course / "incidents").mkdir(parents=True)
    for night in PLAYS:
        shutil.copyfile(shipped_path(night), course / "incidents" / f"{night}.yaml")
    (course / "course.toml").write_text(COURSE)
    plays = [(night, how) for night, hows in PLAYS.items() for how in hows]
    made = []
    for n in range(saves):
        night, how = plays[n % len(plays)]
        path = root / "hand" / f"learner {n:03d}" / f"{night}-{n:03d}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        play = ["--reference"] if how == "reference" else ["--runbook", how]
        incident = str(course / "incidents" / f"{night}.yaml")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            # Each learner's name in the save: without it, one night's saves of the same play
            # are the same bytes, and collect keeps one of them.
            code = main(
                ["run", incident, *play, "--backend", "sim", "--save", str(path),
                 "--learner", f"Learner {n:03d}"]
            )  # fmt: skip
        assert code == 0, f"drill run {night} {how} failed"
        made.append(path)
    return course, made


def verify_all(saves: list[Path], course: Path) -> float:
    """The reference: each save read, checked and replayed with verify in this process."""
    from drill.incident.loader import load_incident
    from drill.replay_check import check_header, replay_and_score
    from drill.saves import read_save

    incidents = {p.stem: load_incident(p) for p in (course / "incidents").glob("*.yaml")}
    start = time.perf_counter()
    for path in saves:
        save = read_save(path)
        check_header(save)
        replay_and_score(save, incidents[save.header["incident_id"]], verify=True).session.close()
    return time.perf_counter() - start


def _verify_twice(saves: list[Path], course: Path, saves_dir: str) -> float:
    os.environ["DRILL_SAVES_DIR"] = saves_dir
    verify_all(saves, course)  # warm: par and floor into the cache, the engine imported
    return verify_all(saves, course)


def fresh_verify(saves: list[Path], course: Path) -> float:
    """The reference, timed in a fresh process as each worker is: this one has played the
    class's nights to build it, and a heap that full makes Python's collector slower here."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        return pool.submit(_verify_twice, saves, course, os.environ["DRILL_SAVES_DIR"]).result()


def grade_all(course: Path, count: int, **where) -> float:
    from drill.classroom.course_file import load_course
    from drill.classroom.grade import grade_course
    from drill.classroom.gradebook.database import open_gradebook

    loaded = load_course(course)
    engine = open_gradebook(course)
    try:
        start = time.perf_counter()
        run = grade_course(loaded, engine, again=True, say=lambda text: None, **where)
        took = time.perf_counter() - start
    finally:
        engine.dispose()
    assert not run.failed and not run.refused, (run.graded, run.refused)
    assert run.graded == count, f"graded {run.graded} of {count}"
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few saves, the process pool only")
    parser.add_argument("--saves", type=int, default=0, help="saves in the class")
    args = parser.parse_args()
    count = args.saves or (6 if args.quick else 40)
    with tempfile.TemporaryDirectory(prefix="drill-bench-course-") as scratch:
        root = Path(scratch)
        os.environ["DRILL_SAVES_DIR"] = str(root / "saves")
        course, saves = build(root, count)
        from drill.classroom.collect import collect
        from drill.classroom.course_file import load_course
        from drill.classroom.gradebook.database import open_gradebook

        engine = open_gradebook(course)
        collect(load_course(course), engine, [root / "hand"], say=lambda text: None)
        engine.dispose()
        reference = fresh_verify(saves, course)
        setups = [
            ("a process pool of 1", {"processes": 1}),
            ("a process pool of 2", {"processes": 2}),
        ]
        if not args.quick:
            setups += [
                ("a Dask LocalCluster of 1", {"workers": 1}),
                ("a Dask LocalCluster of 2", {"workers": 2}),
            ]
        rows = []
        for what, where in setups:
            took = grade_all(course, count, **where)
            per_minute = count / took * 60
            rows.append(
                row(
                    "course",
                    f"grade {count} saves on {what}: saves per minute",
                    per_minute,
                    "saves/min",
                    "the same saves verified back to back in one fresh process",
                    count / reference * 60,
                )
            )
            rows.append(
                row(
                    "course",
                    f"grade {count} saves on {what}: seconds per save",
                    took / count,
                    "s",
                    "one save's replay --verify, in process",
                    reference / count,
                )
            )
            print(
                f"{what}: {count} saves in {took:.1f} s, {per_minute:.0f} a minute, {took / count:.3f} s"
                f" a save; in-process verify {reference / count:.3f} s a save"
            )
    hand_over(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

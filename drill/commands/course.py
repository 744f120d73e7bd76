"""`drill course ...`: the instructors' course, from `new` to the CSV (docs/course.md).

The work is in drill/classroom; this turns its errors into one line and exit 2, and imports
SQLAlchemy (and Dask, when asked for) only here, never on the game's start-up path.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path

from drill.commands.printing import say
from drill.errors import UserError
from drill.values.units import plural


def course(args: argparse.Namespace) -> int:
    from drill.classroom.course_file import CourseError
    from drill.classroom.fan_out import FanOutError
    from drill.classroom.gradebook.database import GradebookError
    from drill.classroom.handed_files import HandInError

    handler = {
        "new": _new,
        "release": _release,
        "collect": _collect,
        "grade": _grade,
        "report": _report,
        "export": _export,
    }.get(args.course_command)
    if handler is None:
        raise UserError(
            "name what to do: drill course new, release, collect, grade, report or export"
        )
    try:
        return handler(args)
    except (CourseError, GradebookError, FanOutError, HandInError) as exc:
        raise UserError(str(exc)) from None


def _new(args: argparse.Namespace) -> int:
    from drill.classroom.new_course import new_course

    path = new_course(Path(args.folder), args.nights or None, args.title)
    say(f"Wrote {path} and its nights' incident files; release the pack with")
    say(f"`drill course release --course {args.folder}`.")
    return 0


def _release(args: argparse.Namespace) -> int:
    from drill.classroom.course_file import load_course
    from drill.classroom.release import release

    found = load_course(args.course)
    pack = release(found, Path(args.output) if args.output else None)
    say(
        f"Wrote the learners' pack {pack} ({len(found.nights)} nights). Hand it out; learners"
        " play it with `drill play --course PACK`."
    )
    return 0


def _collect(args: argparse.Namespace) -> int:
    from drill.classroom.collect import collect

    with _gradebook(args) as (found, engine):
        done = collect(found, engine, [Path(p) for p in args.folders], say)
    new = sum(c.new for c in done)
    say(
        f"{new} new save{'s' if new != 1 else ''} in the gradebook; grade with `drill course grade`."
    )
    return 0


def _grade(args: argparse.Namespace) -> int:
    from drill.classroom.grade import grade_course

    with _gradebook(args) as (found, engine):
        run = grade_course(
            found,
            engine,
            again=args.again,
            processes=args.processes,
            workers=args.workers,
            scheduler=args.scheduler,
            say=say,
        )
    say(
        f"{run.graded} graded, {run.refused} refused; {plural(len(run.feedback), 'feedback page')}"
        f" in {found.folder / 'feedback'}."
    )
    if run.failed:
        say(f"drill: {len(run.failed)} saves could not be graded; see the lines above", err=True)
        return 1
    return 0


REPORT_PAGE = "class-report.html"


def _report(args: argparse.Namespace) -> int:
    from drill.classroom.gradebook.query import class_results

    with _gradebook(args) as (found, engine):
        results = class_results(found, engine)
    if args.html is not None:
        from drill.classroom.class_page import write_class_page

        out = Path(args.html) if args.html else found.folder / REPORT_PAGE
        say(f"Wrote {write_class_page(results, out)}.")
        return 0
    if args.tui:
        from drill.tui.class_report_app import run_class_report_app

        return run_class_report_app(results)
    from drill.classroom.summary import summary_text

    say(summary_text(results).rstrip("\n"))
    return 0


def _export(args: argparse.Namespace) -> int:
    from drill.atomic_file import write_text_atomic
    from drill.classroom.export import csv_text
    from drill.classroom.gradebook.query import class_results

    if not args.csv:
        raise UserError("drill course export: say the format, --csv")
    with _gradebook(args) as (found, engine):
        text = csv_text(class_results(found, engine))
    if args.output:
        write_text_atomic(args.output, text)
        say(f"Wrote {args.output}.")
    else:
        say(text.rstrip("\n"))
    return 0


@contextlib.contextmanager
def _gradebook(args: argparse.Namespace) -> Iterator:
    from drill.classroom.course_file import load_course
    from drill.classroom.gradebook.database import open_gradebook

    found = load_course(args.course)
    engine = open_gradebook(found.folder)
    try:
        yield found, engine
    finally:
        engine.dispose()

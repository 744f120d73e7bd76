"""The `drill` command line. Every command reports bad input as one located line and exit 2."""

from __future__ import annotations

import argparse
import difflib
import os
import signal
import sys

from drill import __version__
from drill.errors import EXIT_BAD_INPUT, EXIT_INTERNAL_ERROR, InternalError, UserError
from drill.text_safety import visible


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="drill", description="3am Drill: incident drills for GPU cluster operations."
    )
    parser.add_argument("--version", action="version", version=f"drill {__version__}")
    sub = parser.add_subparsers(dest="command")

    run = sub.add_parser("run", help="play a night headless and print what happened")
    run.add_argument(
        "incident", nargs="?", help="incident YAML file, or the id of a shipped incident"
    )
    how = run.add_mutually_exclusive_group()
    how.add_argument(
        "--actions", metavar="FILE", help="timed actions, one per line: `03:12 health gpu-a-2`"
    )
    how.add_argument(
        "--reference", action="store_true", help="play the incident's reference solution"
    )
    how.add_argument(
        "--runbook",
        metavar="NAME",
        help="play one of the incident's graded runbooks (its `runbooks:` name)",
    )
    run.add_argument("--seed", type=int, help="seed (default: the incident's first seed)")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    _session_options(run)
    run.add_argument(
        "--resume", metavar="SAVE", help="rebuild a session from its save and carry on"
    )
    run.add_argument(
        "--pace",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wall-clock pause after each action, to watch it",
    )

    play = sub.add_parser("play", help="play an incident in the terminal (no incident: pick one)")
    _game_options(play)

    serve = sub.add_parser(
        "serve", help="serve the game to a browser tab (on 127.0.0.1 unless --host says otherwise)"
    )
    _game_options(serve)
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other address warns first)",
    )
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument(
        "--public-url",
        metavar="URL",
        help="the address the browser uses, when it differs from http://HOST:PORT",
    )

    replay = sub.add_parser("replay", help="replay a save headless through the same engine")
    replay.add_argument("save", help="a .jsonl save")
    replay.add_argument(
        "--verify", action="store_true", help="exit 1 at the first action or score that differs"
    )
    replay.add_argument(
        "--across-versions",
        action="store_true",
        help="with --verify, replay a save made by another engine or drill version too",
    )
    replay.add_argument("--json", action="store_true")
    replay.add_argument("--incident", help="the incident file, if it moved since the save was made")
    _saved_replica_option(replay)
    replay.add_argument("--saves-dir", metavar="DIR", help="where caches live (default ./saves)")

    validate = sub.add_parser("validate", help="check incident files; one located line per problem")
    validate.add_argument("paths", nargs="+", help="incident files or folders")

    migrate = sub.add_parser(
        "migrate", help="rewrite incident files of an earlier schema in place, keeping comments"
    )
    migrate.add_argument("paths", nargs="+", help="incident files or folders")
    migrate.add_argument(
        "--check", action="store_true", help="only say what would change; exit 1 if anything would"
    )

    schema = sub.add_parser("schema", help="print the incident JSON Schema")
    schema.add_argument("-o", "--output", metavar="FILE", help="write it to FILE")

    new = sub.add_parser("new", help="write a commented starter incident that validates")
    new.add_argument("name", help="the new incident's id, like disk-fills-twice")
    new.add_argument(
        "--from", dest="source", metavar="INCIDENT", help="start from this incident instead"
    )
    new.add_argument("-o", "--output", metavar="FILE", help="where to write it (default NAME.yaml)")

    test = sub.add_parser(
        "test", help="play each incident's reference and graded runbooks and check them"
    )
    test.add_argument(
        "paths", nargs="*", help="incident files or folders (default: the shipped ones)"
    )
    test.add_argument("--backend", choices=["inprocess", "sim"], default="inprocess")
    test.add_argument("--saves-dir", metavar="DIR", help="where caches go (default ./saves)")

    runbook = sub.add_parser("runbook", help="write your runbook (Markdown) from one or more saves")
    runbook.add_argument(
        "saves", nargs="+", help="saves to build it from; several merge into one runbook"
    )
    runbook.add_argument("-o", "--output", metavar="FILE.md", help="write here instead of stdout")
    runbook.add_argument("--edit", action="store_true", help="open $EDITOR on the scaffold first")
    runbook.add_argument("--saves-dir", metavar="DIR", help="where caches go (default ./saves)")
    _saved_replica_option(runbook)

    report = sub.add_parser("report", help="write the night as one self-contained HTML page")
    report.add_argument("save", help="a .jsonl save")
    report.add_argument("-o", "--output", metavar="FILE.html", help="write here instead of stdout")
    report.add_argument("--saves-dir", metavar="DIR", help="where caches go (default ./saves)")
    _saved_replica_option(report)

    season = sub.add_parser(
        "season", help="play weeks of an incident's fleet with your standing policies"
    )
    season.add_argument("incident", help="incident YAML file with a `season:` section, or its id")
    season.add_argument("--seed", type=int, help="seed (default: the incident's first seed)")
    season.add_argument(
        "--set",
        dest="policies",
        action="append",
        default=[],
        metavar="POLICY=VALUE",
        help="override a standing policy (spares, auto_drain, auto_restart, health_check,"
        " checkpoint_every, keep), like auto_drain=yes",
    )
    season.add_argument("--json", action="store_true", help="print one JSON object")
    season.add_argument("--report", metavar="FILE.html", help="also write the season as HTML")
    season.add_argument("--tui", action="store_true", help="show the season in the terminal app")

    _course_parser(sub)

    listing = sub.add_parser("list", help="list the shipped incidents")
    listing.add_argument("--json", action="store_true")
    listing.add_argument(
        "paths", nargs="*", help="files or folders (default: the shipped incidents)"
    )
    return parser


def _course_parser(sub) -> None:
    """`drill course` and its commands (drill/commands/course.py runs them)."""
    parser = sub.add_parser(
        "course", help="run a class: release nights, collect saves, grade them by replay"
    )
    commands = parser.add_subparsers(dest="course_command")

    new = commands.add_parser("new", help="make a course folder with course.toml and its nights")
    new.add_argument("folder", help="the course folder to make")
    new.add_argument(
        "--night",
        dest="nights",
        action="append",
        metavar="INCIDENT",
        help="a shipped incident to make a night of, in order (default: tutorial, dead-rank,"
        " full-disk)",
    )
    new.add_argument("--title", help="the course's title")

    release = commands.add_parser("release", help="write the learners' pack")
    _course_option(release)
    release.add_argument(
        "-o", "--output", metavar="PACK", help="where to write it (default COURSE/release)"
    )

    collect = commands.add_parser(
        "collect", help="bring learners' saves into the gradebook from folders and zips"
    )
    collect.add_argument(
        "folders",
        nargs="+",
        metavar="FOLDER",
        help="a folder per learner, a zip, a saves folder from `drill serve`, or a save",
    )
    _course_option(collect)

    grade = commands.add_parser("grade", help="replay and grade every collected save")
    _course_option(grade)
    grade.add_argument(
        "--again", action="store_true", help="grade every save again, not only the new ones"
    )
    where = grade.add_mutually_exclusive_group()
    where.add_argument(
        "--processes", type=int, metavar="N", help="local worker processes (default: one per core)"
    )
    where.add_argument(
        "--workers", type=int, metavar="N", help="a Dask LocalCluster of N workers on 127.0.0.1"
    )
    where.add_argument(
        "--scheduler", metavar="tcp://HOST:8786", help="a running Dask scheduler's address"
    )

    report = commands.add_parser(
        "report", help="the class by night: as text, a screen (--tui) or an HTML page (--html)"
    )
    _course_option(report)
    shown = report.add_mutually_exclusive_group()
    shown.add_argument(
        "--tui", action="store_true", help="browse it in the terminal, a learner's night a key away"
    )
    shown.add_argument(
        "--html",
        nargs="?",
        const="",
        metavar="FILE.html",
        help="write one self-contained page with plots (default COURSE/class-report.html)",
    )

    export = commands.add_parser("export", help="one row per learner and night, for an LMS")
    _course_option(export)
    export.add_argument("--csv", action="store_true", help="as CSV")
    export.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


def _course_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--course", default=".", metavar="DIR", help="the course folder (default: this one)"
    )


def _saved_replica_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--replica",
        metavar="MODULE:FACTORY",
        help=(
            "the module:factory the save's night ran: a save never makes drill import code,"
            " so you repeat it here when you trust it"
        ),
    )


def _game_options(parser: argparse.ArgumentParser) -> None:
    """What `drill play` and `drill serve` share: the game and its pacing."""
    parser.add_argument(
        "incident", nargs="?", help="incident YAML file, or the id of a shipped incident"
    )
    parser.add_argument("--seed", type=int, help="seed (default: the incident's first seed)")
    parser.add_argument("--resume", metavar="SAVE", help="carry on a saved night")
    parser.add_argument(
        "--hard",
        action="store_true",
        help="the clock never holds: not while you type, not for a page",
    )
    parser.add_argument(
        "--speed",
        type=int,
        metavar="N",
        help="seconds of night per real second at the start, 1 to 600 (default 10)",
    )
    parser.add_argument(
        "--paused", action="store_true", help="start the night with the clock paused"
    )
    parser.add_argument(
        "--course",
        metavar="PACK",
        help="play the nights of a course's pack (from `drill course release`); saves go into it",
    )
    # `drill serve --course` passes this to every tab's `drill play`: one pack, many learners,
    # so each tab asks the name and none is kept in the pack.
    parser.add_argument("--learner-per-tab", action="store_true", help=argparse.SUPPRESS)
    _session_options(parser)


def _session_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        choices=["inprocess", "gloo", "sim"],
        default=None,  # None: inprocess, or the save's backend with --resume
        help=(
            "inprocess: the real torch replica in this process (default); gloo: the replica as"
            " real processes on torch.distributed; sim: the simulation only, no torch"
        ),
    )
    parser.add_argument(
        "--ranks",
        type=int,
        metavar="N",
        help="replica ranks (gloo: worker processes, default 2; inprocess: default 4)",
    )
    parser.add_argument(
        "--replica",
        metavar="NAME|MODULE:FACTORY",
        help=(
            "train your own replica: an installed one's name (spiral-mlp, or a drill.replicas"
            " entry point) or module:factory; default: [tool.drill] replica in"
            " ./pyproject.toml, then the incident's"
        ),
    )
    parser.add_argument(
        "--save", metavar="PATH", help="write the save here (default: a new file in saves/)"
    )
    parser.add_argument(
        "--learner",
        metavar="NAME",
        help="whose night this is, written into the save (a course's pack asks for it once)",
    )
    parser.add_argument(
        "--saves-dir",
        metavar="DIR",
        help="where saves and caches go (default ./saves, or $DRILL_SAVES_DIR)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = _parse(parser, argv)
    command = args.command or "play"
    if args.command is None:
        args = parser.parse_args(["play"])
    if getattr(args, "saves_dir", None):
        from drill.saves_dir import set_saves_dir

        set_saves_dir(args.saves_dir)
    # SIGTERM unwinds like Ctrl+C, so open saves are closed and replica workers are stopped.
    # The previous handler comes back on return, so a caller in the same process (a test, a
    # tool driving drill) does not keep a handler that raises into its own code.
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        from drill.commands import run_command

        return run_command(command, args)
    except UserError as exc:
        # The message may quote the file it is about: shown, never obeyed by the terminal.
        print(visible(f"drill: {exc}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except InternalError as exc:
        # One line for the person at the keyboard; the traceback for whoever fixes it.
        if os.environ.get("DRILL_TRACEBACK"):
            raise
        print(visible(f"drill: {exc}"), file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
    finally:
        if previous is not None:  # None: the handler was not set from Python
            signal.signal(signal.SIGTERM, previous)


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """parse_args, but a word the command does not take is refused by that command's own
    parser (its usage, not drill's whole list) with a did-you-mean: `--sped` asks about
    `--speed`, a second incident says that a command takes one."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = _subparsers(parser).get(args.command or "", parser)
        command.error(_unrecognized(command, extra, args))
    return args


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _unrecognized(
    command: argparse.ArgumentParser, extra: list[str], args: argparse.Namespace
) -> str:
    hints = []
    flags = [flag for action in command._actions for flag in action.option_strings]
    for word in extra:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.partition("=")[0], flags, n=1, cutoff=0.6)
            if close:
                hints.append(f"did you mean {close[0]}?")
        elif getattr(args, "incident", None) and not hints:
            hints.append(
                f"`{command.prog}` takes one incident and already has {args.incident!r};"
                " play them one at a time"
            )
    said = f"unrecognized arguments: {' '.join(extra)}"
    return "; ".join([said, *hints])


class Terminated(BaseException):
    """SIGTERM arrived: unwind through every `finally`, then exit 143.

    A BaseException, like KeyboardInterrupt, so that no library's `except Exception` swallows it:
    a SIGTERM landing inside textual-serve's start-up once left a server running forever."""


def _terminated(signum, frame) -> None:
    raise Terminated()

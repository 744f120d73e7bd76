"""`drill runbook SAVE... [-o FILE.md] [--edit]` and `drill report SAVE [-o FILE.html]`."""

from __future__ import annotations

import argparse
import sys

from drill.commands.printing import say, write
from drill.errors import UserError


def runbook(args: argparse.Namespace) -> int:
    from drill.runbook import write_runbook

    if args.edit and not sys.stdin.isatty():
        raise UserError("--edit needs a terminal for $EDITOR; write to a file with -o instead")
    text = write_runbook(
        args.saves, args.output, edit=args.edit, replica=getattr(args, "replica", None)
    )
    if args.output:
        say(f"wrote {args.output}")
    else:
        write(text)
    return 0


def report(args: argparse.Namespace) -> int:
    from drill.commands.stages import Stages
    from drill.report import write_report

    with Stages() as stage:
        page = write_report(
            args.save, args.output, progress=stage, replica=getattr(args, "replica", None)
        )
    if args.output:
        say(f"wrote {args.output}")
    else:
        write(page)
    return 0

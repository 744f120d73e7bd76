"""`drill replay SAVE [--json] [--verify]`: the saved night again, through the same engine."""

from __future__ import annotations

import argparse
import json
import sys

from drill.commands.printing import print_json
from drill.commands.resolve import resolve_saved_incident
from drill.engine.account import account, render_text
from drill.engine.drill import Drill
from drill.saves import read_save
from drill.saves_dir import cache_dir
from drill.session import ReplayMismatch, Session, check_incident

EXIT_MISMATCH = 1


def replay(args: argparse.Namespace) -> int:
    save = read_save(args.save)
    loaded = resolve_saved_incident(save, args.incident)
    check_incident(save, loaded)
    drill = Drill.create(
        loaded.incident, save.seed, save.backend, save.ranks, cache_dir=cache_dir()
    )
    session = Session(drill, loaded)
    try:
        try:
            session.replay(save, verify=args.verify)
        except ReplayMismatch as exc:
            print(f"drill: replay differs: {exc}", file=sys.stderr)
            return EXIT_MISMATCH
        score = session.finish()
        if args.verify and save.score is not None:
            fresh = json.loads(json.dumps(score.to_json()))
            if fresh != save.score:
                line = 1 + len(save.actions) + len(save.texts) + 1
                print(
                    f"drill: replay differs: {save.path}:{line}: the final score is"
                    f" {fresh['total']} ({fresh['grade']}); the save says"
                    f" {save.score.get('total')} ({save.score.get('grade')})",
                    file=sys.stderr,
                )
                return EXIT_MISMATCH
        data = account(session.drill)
        report = session.drill.replica_report()
        if report is not None:
            data["replica"] = report.to_json()
        data["score"] = score.to_json()
        data["verified"] = bool(args.verify)
        if args.json:
            print_json(data)
        else:
            print(render_text(session.drill, data))
            if args.verify:
                print(f"Verified: every action and the score match {save.path}.")
    finally:
        session.close()
    return 0

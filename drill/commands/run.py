"""`drill run`: a whole night headless, saved as it goes."""

from __future__ import annotations

import argparse
import sys
import time

from drill.commands.printing import print_json
from drill.commands.resolve import resolve_saved_incident
from drill.engine import timed
from drill.engine.account import account, render_text
from drill.engine.headless import play as play_actions
from drill.errors import UserError
from drill.incident.library import resolve_incident
from drill.saves import read_save
from drill.session import Session, check_incident


def run(args: argparse.Namespace) -> int:
    save = read_save(args.resume) if args.resume else None
    if save is not None:
        loaded = resolve_saved_incident(save, args.incident)
        check_incident(save, loaded)
        seed, backend = save.seed, save.backend
        if args.seed is not None and args.seed != seed:
            raise UserError(f"{args.resume}: this save is seed {seed}; drop --seed or use {seed}")
    else:
        if not args.incident:
            raise UserError(
                "name an incident (a file, or the id of a shipped one), or --resume a save"
            )
        loaded = resolve_incident(args.incident)
        seed = args.seed if args.seed is not None else loaded.incident.seeds[0]
        backend = args.backend
    incident = loaded.incident
    fault_ids = {f.id for f in incident.faults}
    if args.reference:
        actions = timed.parse_text(
            "\n".join(incident.reference), f"{loaded.path} (reference)", fault_ids
        )
    elif args.actions:
        actions = timed.load_file(args.actions, fault_ids)
    else:
        actions = []
    if save is not None:
        session = Session.resume(loaded, save)
        actions = actions[len(save.actions) :]  # those already played are in the save
    else:
        session = Session.start(loaded, seed, backend, args.save, ranks=args.ranks)
    try:
        pace = args.pace

        def on_result(result) -> None:
            session.record(result)
            if pace:
                time.sleep(pace)  # wall-clock pacing only; the night does not notice

        skipped = play_actions(session.drill, actions, on_result=on_result, finish_night=False)
        score = session.finish()
        data = account(session.drill, skipped)
        report = session.drill.replica_report()
        if report is not None:
            data["replica"] = report.to_json()
        data["score"] = score.to_json()
        if args.json:
            print_json(data)
            # Not in the JSON: the account is the night's, identical wherever it is saved.
            print(f"drill: saved to {session.save_path}", file=sys.stderr)
        else:
            data["save"] = str(session.save_path)
            print(render_text(session.drill, data))
    finally:
        session.close()
    return 0

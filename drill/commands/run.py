"""`drill run`: a whole night headless, saved as it goes."""

from __future__ import annotations

import argparse
import time

from drill.commands.play import resolve_with_suggestion
from drill.commands.printing import print_json, say
from drill.engine import timed
from drill.engine.account import account, render_text
from drill.engine.headless import play as play_actions
from drill.errors import UserError
from drill.incident.library import resolve_incident
from drill.replica_choice import choose_replica
from drill.session import (
    OptionError,
    Session,
    actions_after,
    check_ranks,
    check_seed,
    open_resume,
)


def run(args: argparse.Namespace) -> int:
    try:
        save = None
        if args.resume and getattr(args, "learner", None) is not None:
            raise UserError("--learner: the save already says whose night it is; drop --learner")
        if args.resume:
            override = resolve_incident(args.incident) if args.incident else None
            save, loaded = open_resume(
                args.resume,
                incident=override,
                seed=args.seed,
                backend=args.backend,
                ranks=args.ranks,
                save_path=args.save,
                replica=getattr(args, "replica", None),
            )
        else:
            if not args.incident:
                raise UserError(
                    "name an incident (a file, or the id of a shipped one), or --resume a save"
                )
            check_ranks(args.ranks)
            check_seed(args.seed)
            loaded = choose_replica(
                resolve_with_suggestion(args.incident), getattr(args, "replica", None)
            )
    except OptionError as exc:
        raise UserError(str(exc)) from None
    incident = loaded.incident
    fault_ids = {f.id for f in incident.faults}
    if args.reference:
        shown = f"{loaded.path} (reference)"
        actions = timed.parse_text("\n".join(incident.reference), shown, fault_ids)
    elif getattr(args, "runbook", None):
        books = {book.name: book for book in incident.runbooks}
        if args.runbook not in books:
            known = ", ".join(sorted(books)) or "none"
            raise UserError(
                f"{loaded.path}: no graded runbook named {args.runbook!r}; it has: {known}"
            )
        shown = f"{loaded.path} (runbook {args.runbook})"
        actions = timed.parse_text("\n".join(books[args.runbook].actions), shown, fault_ids)
    elif args.actions:
        shown = args.actions
        actions = timed.load_file(args.actions, fault_ids)
    else:
        shown, actions = "", []
    if save is not None:
        actions = actions_after(save, actions, shown)  # those already played are in the save
        session = Session.resume(loaded, save)
    else:
        seed = args.seed if args.seed is not None else incident.seeds[0]
        learner = getattr(args, "learner", None)
        if learner is not None:
            from drill.classroom.pack_play import learner_option

            learner = learner_option(learner)
        session = Session.start(
            loaded, seed, args.backend or "inprocess", args.save, args.ranks, learner=learner
        )
    try:
        pace = args.pace

        def on_result(result) -> None:
            session.record(result)
            if pace:
                time.sleep(pace)  # wall-clock pacing only; the night does not notice

        skipped = play_actions(
            session.drill,
            actions,
            on_result=on_result,
            finish_night=False,
            previous_end=session.previous_end,
        )
        score = session.finish()
        data = account(session.drill, skipped)
        report = session.drill.replica_report()
        if report is not None:
            data["replica"] = report.to_json()
        data["score"] = score.to_json()
        if args.json:
            print_json(data)
            # Not in the JSON: the account is the night's, identical wherever it is saved.
            say(f"drill: saved to {session.save_path}", err=True)
        else:
            data["save"] = str(session.save_path)
            say(render_text(session.drill, data))
    finally:
        session.close()
    return 0

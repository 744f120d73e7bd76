"""`drill replay SAVE [--json] [--verify]`: the saved night again, through the same engine.

With --verify, exit 0 means every field of every line was reproduced: the header's incident,
seed, backend, learner, engine and drill versions (drill/saves/header_check.py), each action, the
score and the end time. Exit 1 names the first line and field that differ, or
says what could not be checked (a save that ends before its score line, or with a line cut
short), so an unfinished save is never reported as verified. The checks are drill/replay_check.py,
which the instructors' course grades with too.
"""

from __future__ import annotations

import argparse

from drill.commands.printing import print_json, say
from drill.commands.stages import Stages
from drill.engine.account import account, render_text
from drill.incident.library import resolve_incident
from drill.replay_check import NotVerified, Replayed, check_header, replay_and_score
from drill.replica_choice import replica_for_save, with_replica
from drill.saves import Save, check_incident, read_save, resolve_saved_incident
from drill.session import provenance

EXIT_MISMATCH = 1


def replay(args: argparse.Namespace) -> int:
    save = read_save(args.save)
    # The replica the night ran, checked before anything of it is imported.
    ran = replica_for_save(save, getattr(args, "replica", None))
    loaded = resolve_incident(args.incident) if args.incident else resolve_saved_incident(save)
    loaded = with_replica(loaded, ran)
    check_incident(save, loaded)
    with Stages() as stage:
        try:
            if args.verify:
                check_header(save, across_versions=getattr(args, "across_versions", False))
            replayed = replay_and_score(save, loaded, verify=args.verify, stage=stage)
        except NotVerified as exc:
            stage.close()
            say(f"drill: {exc.heading}: {exc}", err=True)
            return EXIT_MISMATCH
        stage.close()
        return _report(args, save, replayed)


def _report(args, save: Save, replayed: Replayed) -> int:
    session, score = replayed.session, replayed.score
    try:
        data = account(session.drill)
        report = session.drill.replica_report()
        if report is not None:
            data["replica"] = report.to_json()
        data["score"] = score.to_json()
        data["verified"] = bool(args.verify)
        if args.json:
            print_json(data)
        else:
            say(render_text(session.drill, data))
            if args.verify:
                say(
                    f"Verified: the header, all {len(save.actions)} actions, the score and the"
                    f" end time match {save.path}{provenance(save)}."
                )
    finally:
        session.close()
    return 0

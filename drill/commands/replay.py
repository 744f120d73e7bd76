"""`drill replay SAVE [--json] [--verify]`: the saved night again, through the same engine.

With --verify, exit 0 means every field of every line was reproduced: the header's incident,
seed, backend, engine and drill versions (drill/saves/header_check.py), each action, the score
and the end time. Exit 1 names the first line and field that differ, or
says what could not be checked (a save that ends before its score line, or with a line cut
short), so an unfinished save is never reported as verified.
"""

from __future__ import annotations

import argparse

from drill import ENGINE_VERSION, __version__
from drill.commands.printing import print_json, say
from drill.commands.stages import Stages
from drill.engine.account import account, render_text
from drill.incident.library import resolve_incident
from drill.replica_choice import replica_for_save, with_replica
from drill.saves import Save, check_incident, read_save, resolve_saved_incident
from drill.saves.header_check import edited_header, other_version
from drill.saves.verify import compare_score
from drill.session import ReplayMismatch, Session, mismatch, provenance, replica_figures_differ
from drill.values.units import plural

EXIT_MISMATCH = 1


def replay(args: argparse.Namespace) -> int:
    save = read_save(args.save)
    # The replica the night ran, checked before anything of it is imported.
    ran = replica_for_save(save, getattr(args, "replica", None))
    loaded = resolve_incident(args.incident) if args.incident else resolve_saved_incident(save)
    loaded = with_replica(loaded, ran)
    check_incident(save, loaded)
    if args.verify:
        edited = edited_header(save)
        if edited:
            say(f"drill: replay differs: {edited}", err=True)
            return EXIT_MISMATCH
        other = other_version(save, engine_version=ENGINE_VERSION, drill_version=__version__)
        if other and not getattr(args, "across_versions", False):
            say(f"drill: not verified: {other}", err=True)
            return EXIT_MISMATCH
    with Stages() as stage:
        return _replay(args, save, loaded, stage)


def _replay(args, save: Save, loaded, stage: Stages) -> int:
    from drill.engine.scoring.par import is_cached, par_and_floor

    stage(f"starting the {save.backend} backend")
    session = Session.for_replay(loaded, save)
    try:
        drill = session.drill
        stage(f"replaying the save's {len(save.actions)} actions")
        try:
            session.replay(save, verify=args.verify)
        except ReplayMismatch as exc:
            stage.close()
            say(f"drill: replay differs: {exc}", err=True)
            return EXIT_MISMATCH
        if args.verify:
            gap = unchecked(save)
            if gap:
                stage.close()
                say(f"drill: not verified: {gap}", err=True)
                return EXIT_MISMATCH
        stage("playing out the rest of the night")
        drill.play_out()  # what finish() does first; it finds the night over
        if is_cached(drill.incident, drill.seed, drill.backend, drill.cache_dir):
            stage("reading par and floor from the cache")
        else:
            stage(
                "measuring par and floor (the reference solution and an empty night on this"
                " seed; once, then cached)"
            )
        par_and_floor(drill.incident, drill.seed, drill.backend, cache_dir=drill.cache_dir)
        stage("scoring the night")
        score = session.finish()
        stage.close()
        if args.verify:
            tolerant = replica_figures_differ(save)
            found = compare_score(score.to_json(), session.drill.end_time, save, tolerant=tolerant)
            if found is not None:
                say(f"drill: replay differs: {mismatch(save, found)}", err=True)
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
            say(render_text(session.drill, data))
            if args.verify:
                say(
                    f"Verified: the header, all {len(save.actions)} actions, the score and the"
                    f" end time match {save.path}{provenance(save)}."
                )
    finally:
        session.close()
    return 0


def unchecked(save: Save) -> str | None:
    """What a verify could not check, located, or None when the save is whole."""
    count = len(save.actions)
    played = (
        f"its {plural(count, 'action')} {'matches' if count == 1 else 'match'}"
        if count
        else "it has no actions"
    )
    if save.truncated:
        return (
            f"{save.path}:{save.lines + 1}: the last line was cut short (a crash mid-write), so"
            f" it was not checked; {played}"
        )
    if save.score is None:
        return (
            f"{save.path}:{save.lines + 1}: the save ends without its score line (the night was"
            f" not finished), so the score was not checked; {played}. Finish the night with"
            f" `drill run --resume {save.path}`"
        )
    return None

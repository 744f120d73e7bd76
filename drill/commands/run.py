"""`drill run`: a whole night headless. `drill play` uses it until the TUI lands."""

from __future__ import annotations

import argparse

from drill.cli import print_json
from drill.commands.resolve import resolve_incident
from drill.engine import timed
from drill.engine.account import account, render_text
from drill.engine.drill import Drill
from drill.engine.headless import play as play_actions


def run(args: argparse.Namespace) -> int:
    loaded = resolve_incident(args.incident)
    incident = loaded.incident
    fault_ids = {f.id for f in incident.faults}
    if args.reference:
        text = "\n".join(incident.reference)
        actions = timed.parse_text(text, f"{loaded.path} (reference)", fault_ids)
    else:
        actions = timed.load_file(args.actions, fault_ids)
    seed = args.seed if args.seed is not None else incident.seeds[0]
    drill = Drill(incident, seed)
    skipped = play_actions(drill, actions)
    data = account(drill, skipped)
    if args.json:
        print_json(data)
    else:
        print(render_text(drill, data))
    return 0


def play(args: argparse.Namespace) -> int:
    loaded = resolve_incident(args.incident)
    incident = loaded.incident
    seed = args.seed if args.seed is not None else incident.seeds[0]
    print(incident.title)
    print(incident.briefing.strip())
    print()
    print("The playable screen is not built yet; here is the night played by its reference solution.")
    print()
    actions = timed.parse_text("\n".join(incident.reference), loaded.path, {f.id for f in incident.faults})
    drill = Drill(incident, seed)
    skipped = play_actions(drill, actions)
    print(render_text(drill, account(drill, skipped)))
    return 0

"""`drill season INCIDENT`: weeks of the fleet's failures, played by the standing policies."""

from __future__ import annotations

import argparse
import json
import sys

from drill.commands.printing import say, write
from drill.errors import UserError
from drill.incident.errors import IncidentError

POLICY_KEYS = ("spares", "auto_drain", "auto_restart", "health_check", "checkpoint_every", "keep")
YES = {"yes": True, "true": True, "on": True, "no": False, "false": False, "off": False}


def parse_policies(items: list[str]) -> dict:
    """`--set key=value` lines as policy overrides; a bad one is a one-line error."""
    out: dict = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        value = value.strip().lower()
        if not sep or key not in POLICY_KEYS:
            raise UserError(
                f"--set {item}: unknown policy; write POLICY=VALUE with one of"
                f" {', '.join(POLICY_KEYS)}"
            )
        if key in ("auto_drain", "auto_restart", "health_check"):
            if value not in YES:
                raise UserError(f"--set {item}: {key} is yes or no")
            out[key] = YES[value]
            continue
        low, high = {"spares": (0, 16), "checkpoint_every": (1, 100000), "keep": (1, 100)}[key]
        if not value.isdigit() or not low <= int(value) <= high:
            raise UserError(f"--set {item}: {key} is a whole number from {low} to {high}")
        out[key] = int(value)
    return out


def season(args: argparse.Namespace) -> int:
    from drill.incident.library import resolve_incident
    from drill.season.figures import play_season, policies_with

    overrides = parse_policies(args.policies)
    loaded = resolve_incident(args.incident)
    incident = loaded.incident
    if incident.season is None:
        raise IncidentError(
            [
                loaded.doc.problem(
                    (),
                    "this incident has no `season:` section, so there is no season to play;"
                    " add one (incidents/README.md, section `season`)",
                )
            ]
        )
    seed = incident.seeds[0] if args.seed is None else args.seed
    figures = play_season(incident, seed, policies_with(incident, overrides))
    if args.report:
        from drill.season.html import write_season_page

        write_season_page(incident, figures, args.report)
    if args.tui:
        from drill.tui.season_app import run_season_app

        run_season_app(incident, seed, figures)
        return 0
    if args.json:
        json.dump(figures.to_json(), sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
    else:
        from drill.season.text import render

        write(render(figures))
        if args.report:
            say(f"wrote {args.report}")
    return 0

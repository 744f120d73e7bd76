"""One module per CLI command; each turns known errors into UserError lines.

A command's module is imported only when it runs, so `drill` (the picker) does not pay for the
engine, the scorer and the exports before its first frame.
"""

from __future__ import annotations

import argparse
import importlib

from drill.engine.actions.errors import ActionsFileError
from drill.incident.errors import IncidentError

HANDLERS = {
    "run": ("run", "run"),
    "play": ("play", "play"),
    "serve": ("serve", "serve"),
    "list": ("listing", "list_incidents"),
    "replay": ("replay", "replay"),
    "validate": ("authoring", "validate"),
    "schema": ("authoring", "schema"),
    "migrate": ("authoring", "migrate"),
    "new": ("authoring", "new"),
    "test": ("testing", "run_tests"),
    "runbook": ("exports", "runbook"),
    "report": ("exports", "report"),
    "season": ("season", "season"),
    "course": ("course", "course"),
}


def run_command(name: str, args: argparse.Namespace) -> int:
    from drill.errors import UserError

    module, function = HANDLERS[name]
    handler = getattr(importlib.import_module(f"drill.commands.{module}"), function)
    try:
        return handler(args)
    except (IncidentError, ActionsFileError) as exc:
        raise UserError(str(exc)) from None
    except Exception as exc:
        # drill.saves is imported when an error needs it, not before every command's first
        # frame (the picker's and the briefing's never touch a save's reader).
        from drill.saves import SaveError

        # The replica's config checks (ValueErrors) speak plain English already.
        if isinstance(exc, SaveError | ValueError):
            raise UserError(str(exc)) from None
        raise

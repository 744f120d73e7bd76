"""One module per CLI command; each turns known errors into UserError lines."""

from __future__ import annotations

import argparse

from drill.engine.timed import ActionsFileError
from drill.incident.errors import IncidentError


def run_command(name: str, args: argparse.Namespace) -> int:
    from drill.commands import authoring, exports, listing, play, replay, run, serve, testing
    from drill.errors import UserError
    from drill.saves import SaveError

    handlers = {
        "run": run.run,
        "play": play.play,
        "serve": serve.serve,
        "list": listing.list_incidents,
        "replay": replay.replay,
        "validate": authoring.validate,
        "schema": authoring.schema,
        "new": authoring.new,
        "test": testing.run_tests,
        "runbook": exports.runbook,
        "report": exports.report,
    }
    try:
        return handlers[name](args)
    except (IncidentError, ActionsFileError, SaveError) as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:
        # The replica's config checks speak plain English already.
        raise UserError(str(exc)) from None

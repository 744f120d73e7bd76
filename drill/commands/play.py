"""`drill` and `drill play`: the game in the terminal. With no incident, the picker opens."""

from __future__ import annotations

import argparse
from pathlib import Path

from drill.cli import UserError
from drill.commands.resolve import resolve_incident
from drill.saves.files import check_new_save_path
from drill.session import OptionError, check_ranks, check_seed, open_resume


def play(args: argparse.Namespace) -> int:
    incident_name = getattr(args, "incident", None)
    resume = getattr(args, "resume", None)
    save_path = getattr(args, "save", None)
    seed = getattr(args, "seed", None)
    backend = getattr(args, "backend", None)
    ranks = getattr(args, "ranks", None)
    save = None
    loaded = None
    try:
        if resume:
            override = resolve_incident(incident_name) if incident_name else None
            save, loaded = open_resume(
                resume,
                incident=override,
                seed=seed,
                backend=backend,
                ranks=ranks,
                save_path=save_path,
            )
            seed, backend = save.seed, save.backend
        else:
            check_ranks(ranks)
            check_seed(seed)
            if incident_name:
                loaded = resolve_incident(incident_name)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    if save_path:
        check_new_save_path(Path(save_path))
    saves_dir = getattr(args, "saves_dir", None)

    from drill.tui.app import DrillApp

    app = DrillApp(
        loaded=loaded,
        seed=seed,
        backend=backend or "inprocess",
        save_path=save_path,
        resume=save,
        ranks=ranks,
        hard=bool(getattr(args, "hard", False)),
        saves_dir=Path(saves_dir) if saves_dir else None,
    )
    app.run()
    return int(app.return_code or 0)

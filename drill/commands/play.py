"""`drill` and `drill play`: the game in the terminal. With no incident, the picker opens."""

from __future__ import annotations

import argparse
from pathlib import Path

from drill.commands.resolve import resolve_saved_incident
from drill.errors import UserError
from drill.incident.library import resolve_incident
from drill.saves import read_save
from drill.session import check_incident


def play(args: argparse.Namespace) -> int:
    incident_name = getattr(args, "incident", None)
    resume = getattr(args, "resume", None)
    save_path = getattr(args, "save", None)
    seed = getattr(args, "seed", None)
    backend = getattr(args, "backend", "inprocess")
    save = read_save(resume) if resume else None
    loaded = None
    if save is not None:
        if save_path:
            raise UserError("--resume carries on the save it names; drop --save")
        if save.score is not None:
            raise UserError(
                f"{resume}: this night is finished (score {save.score.get('total')});"
                " watch it again with `drill replay`, or play a new one with `drill play`"
            )
        loaded = resolve_saved_incident(save, incident_name)
        check_incident(save, loaded)
        if seed is not None and seed != save.seed:
            raise UserError(
                f"{resume}: this save is seed {save.seed}; drop --seed or use {save.seed}"
            )
        seed, backend = save.seed, save.backend
    elif incident_name:
        loaded = resolve_incident(incident_name)
    if save_path and Path(save_path).exists() and Path(save_path).stat().st_size > 0:
        raise UserError(
            f"{save_path}: a save already exists here; carry it on with --resume, or pick another path"
        )
    saves_dir = getattr(args, "saves_dir", None)

    from drill.tui.app import DrillApp

    app = DrillApp(
        loaded=loaded,
        seed=seed,
        backend=backend,
        save_path=save_path,
        resume=save,
        ranks=getattr(args, "ranks", None),
        hard=bool(getattr(args, "hard", False)),
        saves_dir=Path(saves_dir) if saves_dir else None,
    )
    app.run()
    return int(app.return_code or 0)

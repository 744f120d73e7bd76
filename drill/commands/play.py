"""`drill` and `drill play`: the game in the terminal. With no incident, the picker opens.

Everything the command line can get wrong is checked here, before the screen opens, so a bad
name or a finished save is one line and exit 2, never a screen that cannot start.
"""

from __future__ import annotations

import argparse
import difflib
from pathlib import Path

from drill.errors import UserError
from drill.incident.errors import IncidentError
from drill.incident.library import resolve_incident, shipped_incident_files
from drill.replica_choice import check_replica_name, choose_replica, project_replica


def play(args: argparse.Namespace) -> int:
    options = app_options(args, defer_load=True)
    from drill.tui.app import DrillApp

    app = DrillApp(**options)
    app.run()
    if app.refused is not None:
        # The incident's full load, which ran after the briefing's first frame, found what a
        # load before the screen would have: the same line and exit 2, the terminal restored.
        raise app.refused
    return int(app.return_code or 0)


def app_options(args: argparse.Namespace, *, defer_load: bool = False) -> dict:
    """The DrillApp's keyword arguments from `drill play`'s (or `drill serve`'s) flags.

    With `defer_load`, a named incident whose header reads plainly is handed over unloaded (a
    DeferredIncident: its briefing draws from the header, the full load follows the first
    frame). `drill serve` loads it here: a bad file must stop the server before it starts."""
    # Not drill.session: it brings the engine and SimPy, which neither the picker's nor the
    # briefing's first frame needs (the warm-up imports them once the screen is drawn).
    from drill.session_options import OptionError, check_ranks, check_seed
    from drill.tui.pacing import DEFAULT_SPEED, MAX_SPEED, MIN_SPEED

    course = course_play(args) if getattr(args, "course", None) else None
    incident_name = getattr(args, "incident", None)
    resume = getattr(args, "resume", None)
    save_path = getattr(args, "save", None)
    seed = getattr(args, "seed", None)
    backend = getattr(args, "backend", None)
    ranks = getattr(args, "ranks", None)
    replica = getattr(args, "replica", None)
    speed = getattr(args, "speed", None)
    if speed is None:
        speed = DEFAULT_SPEED
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise UserError(f"--speed {speed}: the clock goes from {MIN_SPEED} to {MAX_SPEED}x")
    save = None
    loaded = None
    try:
        if resume and getattr(args, "learner", None) is not None:
            raise UserError("--learner: the save already says whose night it is; drop --learner")
        if resume:
            # One resume path for `run` and `play` (drill/session.py): refusals included.
            # A resumed night replays through the engine before its briefing anyway.
            from drill.session import open_resume

            override = resolve_with_suggestion(incident_name) if incident_name else None
            save, loaded = open_resume(
                resume,
                incident=override,
                seed=seed,
                backend=backend,
                ranks=ranks,
                save_path=save_path,
                replica=replica,
            )
            seed, backend = save.seed, save.backend
        else:
            check_ranks(ranks)
            check_seed(seed)
            if course is not None:
                loaded, seed = course_night(course, incident_name, seed)
            elif incident_name:
                loaded = deferred(incident_name, replica) if defer_load else None
                if loaded is None:
                    loaded = choose_replica(resolve_with_suggestion(incident_name), replica)
    except OptionError as exc:
        raise UserError(str(exc)) from None
    if save_path:
        from drill.saves.files import check_new_save_path  # drill.saves waits for a save

        check_new_save_path(Path(save_path))
    saves_dir = getattr(args, "saves_dir", None)
    if course is not None:
        # Every night of the pack saves into it, and its par and floor are cached there.
        from drill.saves_dir import set_saves_dir

        saves_dir = str(course.saves_dir)
        set_saves_dir(saves_dir)
        backend = course.course.backend
    return {
        "loaded": loaded,
        "seed": seed,
        "backend": backend or "inprocess",
        "save_path": save_path,
        "resume": save,
        "ranks": ranks,
        "hard": bool(getattr(args, "hard", False)),
        "saves_dir": Path(saves_dir) if saves_dir else None,
        "speed": speed,
        "paused": bool(getattr(args, "paused", False)),
        # For incidents picked in the app: the command line's replica, or the project's (a
        # course's nights train their own).
        "replica": replica if replica is not None or course else project_replica(),
        "course": course,
    }


def deferred(name: str, replica: str | None):
    """The incident as a DeferredIncident when its file exists and its header reads plainly;
    None otherwise (it is then loaded at once, so its problem is reported before any screen)."""
    from drill.incident.header import read_header
    from drill.incident.library import shipped_path
    from drill.tui.deferred_incident import DeferredIncident

    path = Path(name)
    if not path.is_file():
        path = shipped_path(name) or path
    if not path.is_file():
        return None
    if replica is not None:
        check_replica_name(replica)  # a mistyped --replica is one line before the screen
    header = read_header(path)
    return DeferredIncident(header, replica) if header is not None else None


def course_play(args: argparse.Namespace):
    """The pack `--course PACK` names, and who plays it: --learner, else the name the pack
    kept, else None (the app asks). Refuses the flags a course decides itself."""
    from drill.classroom.course_file import CourseError, load_course
    from drill.classroom.pack_play import CoursePlay, learner_option, remembered_learner

    for flag, value in (
        ("--saves-dir", getattr(args, "saves_dir", None)),
        ("--save", getattr(args, "save", None)),
        ("--replica", getattr(args, "replica", None)),
    ):
        if value is not None:
            raise UserError(
                f"{flag}: a course decides it (its nights save into the pack and train their own"
                f" replica); drop {flag}"
            )
    try:
        course = load_course(args.course)
    except CourseError as exc:
        raise UserError(str(exc)) from None
    backend = getattr(args, "backend", None)
    if backend is not None and backend != course.backend:
        raise UserError(
            f"--backend {backend}: this course is played on {course.backend}, the backend it is"
            f" graded on; drop --backend"
        )
    every_tab = bool(getattr(args, "learner_per_tab", False))
    learner = getattr(args, "learner", None)
    if learner is not None:
        learner = learner_option(learner)
    elif not every_tab:
        learner = remembered_learner(course.folder)
    return CoursePlay(course, learner, remember=not every_tab)


def course_night(course, name: str | None, seed: int | None):
    """The night `drill play --course PACK NIGHT` names (an incident id of the course, or its
    number), loaded, and its seed: --seed when it is one of the night's, else the learner's own
    (None until the learner has said who they are)."""
    if not name:
        if seed is not None:
            raise UserError("--seed: name the night too, like `drill play --course PACK NIGHT`")
        return None, None
    nights = course.course.nights
    night = course.night(name)
    if night is None and name.isdigit() and 1 <= int(name) <= len(nights):
        night = nights[int(name) - 1]
    if night is None:
        ids = ", ".join(n.id for n in nights)
        raise UserError(f"{name!r} is not a night of this course; its nights are: {ids}")
    if seed is not None and not night.has_seed(seed):
        raise UserError(
            f"--seed {seed}: night {night.id} is played on {night.seeds_text()}; drop --seed"
        )
    from drill.incident.loader import load_incident

    loaded = load_incident(night.incident)
    return loaded, seed if seed is not None else course.seed_for(night.id)


def resolve_with_suggestion(name: str):
    """The incident, or the loader's error with the closest shipped id when the name looks
    like a misspelt one: `drill play dead-rnak` asks about `dead-rank`."""
    try:
        return resolve_incident(name)
    except IncidentError as exc:
        if Path(name).exists():
            raise
        close = close_incident(name)
        if looks_like_a_name(name):
            # `dead-rnak` is a misspelt id, not a file: no file:1:1 for a name typed by hand.
            first = f"no incident named {name!r} (and no file by that name)"
        elif close is None:
            raise
        else:
            first = str(exc).splitlines()[0]
        guess = f"; did you mean `{close}`?" if close else ";"
        raise UserError(f"{first}{guess} `drill list` shows them all") from None


def looks_like_a_name(name: str) -> bool:
    """An id typed by hand: no folder and no YAML suffix."""
    return "/" not in name and "\\" not in name and not name.endswith((".yaml", ".yml"))


def close_incident(name: str) -> str | None:
    stem = Path(name).name.removesuffix(".yaml").removesuffix(".yml")
    ids = [path.stem for path in shipped_incident_files()]
    found = difflib.get_close_matches(stem, ids, n=1, cutoff=0.6)
    return found[0] if found else None

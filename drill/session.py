"""A session: one engine, one save file. Every way of playing goes through here, so every
accepted action is on disk before the next one runs and a session can be rebuilt from its save.

`drill run --resume` and `drill play --resume` share one path: `open_resume` reads the save and
refuses what cannot be carried on (a finished night, options that contradict the save), and
`Session.resume` rebuilds the night by replaying the saved actions at their saved times. The
night then goes on under the time rules of a fresh one: the next relative (`+30s`) line counts
from the end of the last saved action, as it would have without the interruption.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from drill import ENGINE_VERSION
from drill.engine.drill import ActionResult, Drill
from drill.engine.scoring.par import score_drill
from drill.engine.timed import TEMPLATE, ActionsFileError, TimedAction
from drill.incident.loader import LoadedIncident
from drill.replica_choice import header_replica, replica_for_save, with_replica
from drill.saves import (
    Save,
    SaveError,
    SaveWriter,
    check_incident,
    read_save,
    resolve_saved_incident,
    saved_incident_path,
)
from drill.saves.folder import claim_new_save
from drill.saves.lock import check_not_locked
from drill.saves.origin import current_origin, describe, same_origin
from drill.saves.verify import Difference, compare_action
from drill.saves_dir import cache_dir
from drill.session_options import OptionError, check_ranks, check_seed

__all__ = [
    "OptionError",
    "ReplayMismatch",
    "Session",
    "actions_after",
    "check_incident",
    "check_ranks",
    "check_seed",
    "drill_for",
    "open_resume",
]


class ReplayMismatch(Exception):
    """A replayed action or score differs from what the save recorded."""

    def __init__(self, path: str, line: int, message: str, field: str = ""):
        super().__init__(f"{path}:{line}: {message}")
        self.line = line
        self.field = field  # the field that differs, as a path (drill/saves/verify.py's key)


def open_resume(
    path: str,
    *,
    incident: LoadedIncident | None = None,
    seed: int | None = None,
    backend: str | None = None,
    ranks: int | None = None,
    save_path: str | None = None,
    replica: str | None = None,
) -> tuple[Save, LoadedIncident]:
    """The save to carry on and its incident, or an error saying why it cannot be carried on.
    `incident` is the --incident override (an incident file that moved since the save);
    `replica` the command line's --replica (see replica_choice.replica_for_save)."""
    if save_path:
        raise OptionError(
            f"--resume carries on {path} itself, so --save {save_path} has nothing to do; drop"
            " --save (copy the save first to keep the original)"
        )
    save = read_save(path)
    check_not_locked(path)  # before the night is rebuilt; the writer's lock is what holds
    ran = replica_for_save(save, replica)  # before anything of the replica is imported
    if save.finished:
        raise SaveError(
            save.path,
            save.score_line or 1,
            f"this night is finished (score {save.score['total']}); watch it again with"
            " `drill replay`, or play a new one",
        )
    for option, given, saved in (
        ("--seed", seed, save.seed),
        ("--backend", backend, save.backend),
        ("--ranks", ranks, save.ranks),
    ):
        if given is not None and given != saved:
            if saved is None:
                raise OptionError(f"{path}: this save uses the default {option}; drop {option}")
            raise OptionError(
                f"{path}: this save is {option} {saved}; drop {option} or use {saved}"
            )
    loaded = incident if incident is not None else resolve_saved_incident(save)
    check_incident(save, loaded)
    return save, with_replica(loaded, ran)  # the replica the night ran, whatever now


def drill_for(loaded: LoadedIncident, save: Save, backend: str | None = None) -> Drill:
    """A fresh engine for the save's night (on `backend` instead of the save's, if given)."""
    try:
        return Drill.create(
            loaded.incident,
            save.seed,
            backend or save.backend,
            save.ranks,
            cache_dir=cache_dir(),
        )
    except ValueError as exc:
        # The replica refuses a header's ranks its config cannot split the batch into.
        raise SaveError(
            save.path, 1, f"the header's settings do not fit this incident: {exc}"
        ) from None


@dataclass
class Session:
    drill: Drill
    loaded: LoadedIncident
    writer: SaveWriter | None = None
    results: list[ActionResult] = field(default_factory=list)
    previous_end: float = 0.0  # where the next relative action line counts from

    @classmethod
    def start(
        cls,
        loaded: LoadedIncident,
        seed: int,
        backend: str,
        save_path: str | Path | None,
        ranks: int | None = None,
        *,
        learner: str | None = None,
    ) -> Session:
        """A new night and its save. `learner`: whose night it is, in a course's save."""
        check_ranks(ranks)
        path = Path(save_path) if save_path else None
        if path is not None and path.is_dir():
            raise SaveError(
                str(path), 1, "this is a folder; give a file for the save, like FOLDER/night.jsonl"
            )
        # The fingerprint is taken from the files before the backend imports the replica.
        replica, replica_sha256 = header_replica(loaded)
        drill = Drill.create(loaded.incident, seed, backend, ranks, cache_dir=cache_dir())
        try:
            fd = None
            if path is None:
                # A name of our own in the saves folder, created at once: two drills starting
                # this incident and seed together get two saves, not one each other's.
                path, fd = claim_new_save(loaded.incident.id, seed)
            writer = SaveWriter.start(
                path,
                incident_id=loaded.incident.id,
                incident_sha256=loaded.sha256,
                incident_path=saved_incident_path(loaded.path, path),
                seed=seed,
                backend=backend,
                ranks=ranks,
                replica=replica,
                replica_sha256=replica_sha256,
                fd=fd,
                learner=learner,
            )
        except BaseException:
            drill.close()
            raise
        return cls(drill, loaded, writer)

    @classmethod
    def resume(cls, loaded: LoadedIncident, save: Save) -> Session:
        """Rebuild a session from its save by replaying its actions, then keep appending."""
        drill = drill_for(loaded, save)
        try:
            session = cls(drill, loaded, SaveWriter.reopen(save))
            session.replay(save, verify=False)
        except BaseException:
            drill.close()
            raise
        return session

    @classmethod
    def for_replay(cls, loaded: LoadedIncident, save: Save) -> Session:
        """The save's night again, writing nothing."""
        return cls(drill_for(loaded, save), loaded)

    @property
    def save_path(self) -> Path | None:
        return self.writer.path if self.writer else None

    def record(self, result: ActionResult) -> None:
        self.results.append(result)
        self.previous_end = result.end
        if self.writer:
            self.writer.action(len(self.results), result)

    def act(self, text: str) -> ActionResult:
        # What a person types is played as typed: `{fault.*}` names are for incident authors.
        result = self.drill.act(text)
        self.record(result)
        return result

    def replay(self, save: Save, *, verify: bool) -> None:
        """Rebuild the night from a save's actions, each at its recorded time. With verify,
        any difference in an action's outcome stops the replay, naming the save's line."""
        tolerant = verify and replica_figures_differ(save)
        for saved in save.actions:
            self.drill.advance_to(saved.time)
            result = self.drill.act(saved.text)  # a save holds what was played, names filled in
            self.results.append(result)
            self.previous_end = result.end
            if verify:
                found = compare_action(saved, result, tolerant=tolerant)
                if found is not None:
                    raise mismatch(save, found)

    def finish(self):
        self.drill.play_out()
        score = score_drill(self.drill)
        if self.writer:
            self.writer.score(score.to_json(), self.drill.end_time)
        return score

    def close(self) -> None:
        try:
            if self.writer:
                self.writer.close()
        finally:
            self.drill.close()


def actions_after(save: Save, actions: list[TimedAction], shown: str) -> list[TimedAction]:
    """The lines of an actions file still to play after a resume. Its first lines are the ones
    the save holds; a line that plainly says something else (no `{fault...}` name to fill in)
    means this is not the file that made the save, and carrying on would mix two nights."""
    for saved, action in zip(save.actions, actions, strict=False):
        if TEMPLATE.search(action.text) is None and action.text.strip() != saved.text:
            raise ActionsFileError(
                shown,
                action.line,
                1,
                f"this line is `{action.text.strip()[:60]}`, but action {saved.n} in the save"
                f" ({save.path}:{saved.line}) is `{saved.text[:60]}`; resume with the actions"
                " file that made the save",
            )
    return actions[len(save.actions) :]


def replica_figures_differ(save: Save) -> bool:
    """Whether the save's replica figures (losses, distances) may differ in their last digits
    here: the save came from another machine or torch build, or does not say."""
    if save.backend == "sim":
        return False
    return not same_origin(save.header.get("origin"), current_origin(True))


def mismatch(save: Save, found: Difference) -> ReplayMismatch:
    engine = save.header.get("engine_version")
    if engine is not None and engine != ENGINE_VERSION:
        # Not the learner's night that changed but the game: say that first.
        return ReplayMismatch(
            save.path,
            found.line,
            f"the engine changed since this save was made (it was scored by engine"
            f" {str(engine)[:12]}, this drill is {ENGINE_VERSION[:12]}), so the night replays"
            f" differently; the first difference: {found}{provenance(save, engine=False)}",
            found.key,
        )
    return ReplayMismatch(save.path, found.line, f"{found}{provenance(save)}", found.key)


def provenance(save: Save, engine: bool = True) -> str:
    """What a reader of a verify message should know about where the save came from: another
    engine, and replica figures from another machine compared within tolerance (so what differs
    is a decision)."""
    notes = []
    made_by = save.header.get("engine_version")
    if engine and made_by is not None and made_by != ENGINE_VERSION:
        notes.append(
            f"the save was made by engine {str(made_by)[:12]}, this drill is {ENGINE_VERSION[:12]}"
        )
    if replica_figures_differ(save):
        notes.append(
            f"the save was made on {describe(save.header.get('origin'))}, so replica losses and"
            " distances were compared within tolerance"
        )
    return f" ({'; '.join(notes)})" if notes else ""

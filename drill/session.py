"""A session: one engine, one save file. Every way of playing goes through here, so every
accepted action is on disk before the next one runs and a session can be rebuilt from its save.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from drill.engine.drill import ActionResult, Drill
from drill.engine.headless import act_line
from drill.incident.loader import LoadedIncident
from drill.saves import Save, SaveError, SaveWriter, default_save_path
from drill.saves_dir import cache_dir


class ReplayMismatch(Exception):
    """A replayed action or score differs from what the save recorded."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.line = line


@dataclass
class Session:
    drill: Drill
    loaded: LoadedIncident
    writer: SaveWriter | None = None
    results: list[ActionResult] = field(default_factory=list)

    @classmethod
    def start(
        cls,
        loaded: LoadedIncident,
        seed: int,
        backend: str,
        save_path: str | Path | None,
        ranks: int | None = None,
    ) -> Session:
        drill = Drill.create(loaded.incident, seed, backend, ranks, cache_dir=cache_dir())
        path = Path(save_path) if save_path else default_save_path(loaded.incident.id, seed)
        writer = SaveWriter.start(
            path,
            incident_id=loaded.incident.id,
            incident_sha256=loaded.sha256,
            incident_path=loaded.path,
            seed=seed,
            backend=backend,
            ranks=ranks,
        )
        return cls(drill, loaded, writer)

    @classmethod
    def resume(cls, loaded: LoadedIncident, save: Save) -> Session:
        """Rebuild a session from its save by replaying its actions, then keep appending."""
        drill = Drill.create(
            loaded.incident, save.seed, save.backend, save.ranks, cache_dir=cache_dir()
        )
        session = cls(drill, loaded, SaveWriter.reopen(save))
        session.replay(save, verify=False)
        return session

    @property
    def save_path(self) -> Path | None:
        return self.writer.path if self.writer else None

    def record(self, result: ActionResult) -> None:
        self.results.append(result)
        if self.writer:
            self.writer.action(len(self.results), result)

    def act(self, text: str) -> ActionResult:
        result = act_line(self.drill, text)
        self.record(result)
        return result

    def replay(self, save: Save, *, verify: bool) -> None:
        """Rebuild the night from a save's actions, each at its recorded time. With verify,
        any difference in an action's outcome stops the replay, naming the save's line."""
        for saved in save.actions:
            if saved.time + 1e-6 < self.drill.now:
                raise ReplayMismatch(
                    save.path,
                    saved.line,
                    f"action {saved.n} is timed before the previous one ended",
                )
            self.drill.advance_to(saved.time)
            result = act_line(self.drill, saved.text)
            self.results.append(result)
            if verify:
                _compare(save.path, saved, result)

    def finish(self):
        self.drill.play_out()
        score = self.drill.finish()
        if self.writer:
            self.writer.score(score.to_json(), self.drill.end_time)
        return score

    def close(self) -> None:
        if self.writer:
            self.writer.close()
        self.drill.close()


def _compare(path: str, saved, result: ActionResult) -> None:
    problems = []
    if abs(saved.time - result.time) > 1e-3:
        problems.append(f"it started at {result.time:.3f}, the save says {saved.time:.3f}")
    if saved.accepted != result.accepted:
        problems.append(
            "accepted" if result.accepted else "rejected" + " now, the save says otherwise"
        )
    if saved.result != result.output:
        first = next(
            (
                a
                for a, b in zip(saved.result.splitlines(), result.output.splitlines(), strict=False)
                if a != b
            ),
            saved.result.splitlines()[0] if saved.result else "",
        )
        problems.append(f"its result differs (saved: {first[:80]!r})")
    if abs(saved.end - result.end) > 1e-3:
        problems.append(f"it ended at {result.end:.3f}, the save says {saved.end:.3f}")
    if problems:
        raise ReplayMismatch(
            path, saved.line, f"action {saved.n} `{saved.text}`: " + "; ".join(problems)
        )


def check_incident(save: Save, loaded: LoadedIncident) -> None:
    if save.header["incident_sha256"] != loaded.sha256:
        raise SaveError(
            save.path,
            1,
            f"the incident changed since this save was made: the save has sha256"
            f" {save.header['incident_sha256'][:16]}..., {loaded.path} now has {loaded.sha256[:16]}...;"
            " replay needs the incident file as it was",
        )

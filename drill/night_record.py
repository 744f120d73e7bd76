"""A finished (or abandoned) night rebuilt from its save, for the runbook and the report.

The save holds the actions and the final score; the signals, state changes and loss curve come
from replaying those actions through the same engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drill.engine.drill import Drill
from drill.incident.loader import LoadedIncident
from drill.replica_choice import replica_for_save, with_replica
from drill.saves import Save, check_incident, read_save, resolve_saved_incident
from drill.session import drill_for


@dataclass
class NightRecord:
    save: Save
    loaded: LoadedIncident
    drill: Drill
    finished: bool  # the save has a final score
    score: dict[str, Any] | None
    losses: list[tuple[int, float]] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)

    @property
    def incident(self):
        return self.loaded.incident

    def close(self) -> None:
        self.drill.close()


def rebuild(
    path: str,
    *,
    backend: str | None = None,
    incident: LoadedIncident | None = None,
    replica: str | None = None,
) -> NightRecord:
    """Replay a save. `backend` "sim" skips the replica (fast: timelines only); `incident`
    replaces the one the save names (a file that moved); `replica` is the command line's
    --replica, needed when the save's night ran a module:factory."""
    save = read_save(path)
    ran = replica_for_save(save, replica)  # before anything of the replica is imported
    loaded = with_replica(incident or resolve_saved_incident(save), ran)
    check_incident(save, loaded)
    chosen = backend or save.backend
    drill = drill_for(loaded, save, chosen)
    for saved in save.actions:
        drill.advance_to(saved.time)
        drill.act(saved.text)
    if save.score is not None:
        drill.play_out()
    record = NightRecord(save, loaded, drill, save.score is not None, save.score)
    record.losses = list(drill.learner_job.losses)
    if chosen != "sim":
        record.baseline = drill.baseline_losses()
    return record

"""An incident named on `drill play`'s command line, shown from its header before it is loaded.

The full load validates the file against the pydantic models and every fault kind; importing
those costs about as much CPU as Textual itself, so on a busy machine it alone pushed the
briefing's first frame past a second. The briefing needs only the header (title, level, time,
briefing, seeds: drill/incident/header.py), so it is drawn from that and the full load runs
first thing in the warm-up, off the event loop. A file whose header does not read plainly is
still loaded before any screen (drill/commands/play.py), and a file that reads plainly there
but fails the full load ends the app with the loader's own line and exit 2, as before the
screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.incident.header import Header

if TYPE_CHECKING:
    from drill.incident.loader import LoadedIncident


@dataclass(frozen=True)
class DeferredIncident:
    header: Header
    cli_replica: str | None = None  # `--replica` as typed; the load checks it as play did

    @property
    def incident(self) -> Header:
        """What the briefing reads before the load: id, title, level, time, briefing, seeds."""
        return self.header

    @property
    def path(self) -> str:
        return str(self.header.path)

    def load(self) -> LoadedIncident:
        """The full load and the replica choice `drill play` makes before a screen for any
        other file. Raises what they raise (IncidentError, ReplicaChoiceError)."""
        from drill.incident.loader import load_incident
        from drill.replica_choice import choose_replica

        return choose_replica(load_incident(self.header.path), self.cli_replica)


def is_deferred(loaded: object) -> bool:
    return isinstance(loaded, DeferredIncident)

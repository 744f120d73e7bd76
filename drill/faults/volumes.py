"""What the storage fault kinds share: the volume a fault names must exist, and a team it names
must be one the incident knows (a job's team, or a team with a quota on some volume)."""

from __future__ import annotations

from drill.faults.base import Loc, Names
from drill.faults.targets import suggest


def check_volume(volume: str, names: Names) -> list[tuple[Loc, str]]:
    if volume in names.volumes:
        return []
    if not names.volumes:
        return [(("volume",), "this incident has no `storage:` volumes; add one or drop the fault")]
    return [(("volume",), f"no volume named {volume!r}; {suggest(volume, set(names.volumes))}")]


def check_team(team: str | None, names: Names) -> list[tuple[Loc, str]]:
    if team is None or team in names.teams:
        return []
    return [(("team",), f"no job or quota names team {team!r}; {suggest(team, names.teams)}")]

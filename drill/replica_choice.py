"""Which replica trains for the learner's job, and where that was said.

In order, the first that names one wins:
1. the command line: `drill play|run INCIDENT --replica module:factory` (or a shipped short name);
2. the project: `replica = "module:factory"` in the `[tool.drill]` table of pyproject.toml in the
   folder drill runs from;
3. the incident: the learner job's `replica_factory`;
4. the shipped addition GPT.

A save records the replica its night ran (the header's `replica`), and replaying or resuming it
uses that one, whatever the command line or the project say now.

The choice is applied by copying the incident with the job's `replica_factory` filled in, so
everything downstream (the engine, par and floor, their cache key) sees one incident that says
which replica it runs. Only the name is checked here: the factory's module is imported when a
replica backend starts, never at start-up, so torch and the learner's code stay out of it.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from drill.incident.loader import LoadedIncident

PROJECT_FILE = "pyproject.toml"


class ReplicaChoiceError(ValueError):
    """A replica name or a project config that cannot be used; one line, exit 2."""


def project_replica(folder: Path | None = None) -> str | None:
    """`[tool.drill] replica` of ./pyproject.toml, or None when there is none."""
    path = (folder or Path.cwd()) / PROJECT_FILE
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ReplicaChoiceError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ReplicaChoiceError(f"{path}: not valid TOML: {exc}") from None
    table = doc.get("tool", {}).get("drill")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise ReplicaChoiceError(f"{path}: [tool.drill] must be a table")
    unknown = sorted(set(table) - {"replica"})
    if unknown:
        raise ReplicaChoiceError(
            f"{path}: [tool.drill] has unknown key {unknown[0]!r}; the one key is replica"
        )
    value = table.get("replica")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ReplicaChoiceError(
            f'{path}: [tool.drill] replica must be a string like "myweek.replica:make"'
        )
    _check_name(value, f"{path}: [tool.drill] replica")
    return value


def choose_replica(
    loaded: LoadedIncident, cli: str | None, *, folder: Path | None = None
) -> LoadedIncident:
    """The incident with the replica the command line, the project or the incident names."""
    if cli is not None:
        _check_name(cli, "--replica")
        return with_replica(loaded, cli)
    return with_replica(loaded, project_replica(folder))


def with_replica(loaded: LoadedIncident, ref: str | None) -> LoadedIncident:
    """`loaded` with the learner job's replica_factory set to `ref` (None: unchanged)."""
    if not ref:
        return loaded
    incident = loaded.incident
    job = incident.learner_job
    if job.replica_factory == ref:
        return loaded
    jobs = [
        j.model_copy(update={"replica_factory": ref}) if j.name == job.name else j
        for j in incident.jobs
    ]
    return dataclasses.replace(loaded, incident=incident.model_copy(update={"jobs": jobs}))


def chosen_replica(loaded: LoadedIncident) -> str | None:
    """What a save records: the learner job's replica, or None for the shipped default."""
    return loaded.incident.learner_job.replica_factory


def _check_name(ref: str, where: str) -> None:
    from replica.interface import canonical_ref  # no torch: names only

    try:
        canonical_ref(ref)
    except ValueError as exc:
        raise ReplicaChoiceError(f"{where}: {exc}") from None


def refuse_other_replica(where: str, save, cli: str | None) -> None:
    """A save carries on with the replica it ran; a different --replica is a mistake."""
    if cli is None:
        return
    from replica.interface import canonical_ref

    _check_name(cli, "--replica")
    ran = save.replica
    if canonical_ref(cli) != canonical_ref(ran):
        raise ReplicaChoiceError(
            f"{where}: this night ran replica {ran or 'addition-gpt'}; drop --replica to carry"
            " it on, or start a new night"
        )

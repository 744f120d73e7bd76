"""Which replica trains for the learner's job, and where that was said.

In order, the first that names one wins:
1. the command line: `drill play|run INCIDENT --replica NAME` or `--replica module:factory`;
2. the project: `replica = "NAME"` in the `[tool.drill]` table of pyproject.toml in the folder
   drill runs from;
3. the incident: the learner job's `replica_factory` (a NAME);
4. the shipped addition GPT.

A NAME is a replica installed as a package: a shipped one (addition-gpt, spiral-mlp) or a
`drill.replicas` entry point. Only the command line may name code (`module:factory`): the
person typing it chose to run it. Files others write (an incident, a save, a config) name
installed replicas at most; docs/security.md has the threat model.

A save records the replica its night ran (the header's `replica`, and for a learner's replica
its source fingerprint `replica_sha256`). Replaying or resuming it uses that one, whatever the
project says now: a NAME that is installed, or a module:factory only when the command line
repeats it, and then only when its source is still the one the save recorded. All of that is
checked from names and files before anything of the replica is imported.

The choice is applied by copying the incident with the job's `replica_factory` filled in, so
everything downstream (the engine, par and floor, their cache key) sees one incident that says
which replica it runs. Only the name is checked here: the factory's module is imported when a
replica backend starts, never at start-up, so torch and the learner's code stay out of it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

# Only this module and the engine's replica adapters import `replica` (a contract in
# pyproject.toml). The layers above take the torch build of this machine (a save's origin) and
# an early torch import (before a gloo night's workers start) from here, re-exported; each
# imports torch only when called.
from replica.build import torch_build as torch_build
from replica.build import warm_up as warm_up

if TYPE_CHECKING:  # a type only: `drill` reads the project's replica before its picker draws
    from drill.incident.loader import LoadedIncident

PROJECT_FILE = "pyproject.toml"


class ReplicaChoiceError(ValueError):
    """A replica name or a project config that cannot be used; one line, exit 2."""


def project_replica(folder: Path | None = None) -> str | None:
    """`[tool.drill] replica` of ./pyproject.toml, or None when there is none. A replica NAME
    only: a config names what is installed, never a module to import."""
    path = (folder or Path.cwd()) / PROJECT_FILE
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ReplicaChoiceError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    import tomllib  # only for a folder that has a pyproject.toml

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
    where = f"{path}: [tool.drill] replica"
    if not isinstance(value, str):
        raise ReplicaChoiceError(
            f'{where} must be a string, the name of an installed replica like "spiral-mlp"'
        )
    if ":" in value or "." in value:  # module:factory, or a dotted module path
        raise ReplicaChoiceError(f"{where} is {value!r}: {NAMES_CODE}")
    _check_name(value, where)
    return value


# Said wherever a file names code, so the fix is the same everywhere.
NAMES_CODE = (
    "a file cannot name code to run, only the name of an installed replica (addition-gpt,"
    " spiral-mlp, or a drill.replicas entry point your package declares); to run a module of"
    " your own, pass --replica module:factory on the command line"
)


def choose_replica(
    loaded: LoadedIncident, cli: str | None, *, folder: Path | None = None
) -> LoadedIncident:
    """The incident with the replica the command line, the project or the incident names."""
    if cli is not None:
        _check_name(cli, "--replica")
        return with_replica(loaded, cli)
    project = project_replica(folder)
    if project is None and loaded.incident.learner_job.replica_factory:
        # The incident's name was checked by its validation; it must be installed here.
        _check_name(loaded.incident.learner_job.replica_factory, f"{loaded.path}: replica_factory")
    return with_replica(loaded, project)


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


def header_replica(loaded: LoadedIncident) -> tuple[str | None, str | None]:
    """(replica, fingerprint) for a save's header: None, None for the shipped default (so
    default saves stay byte for byte as they were); a shipped replica by its name, with no
    fingerprint (drill's own version is in the header); a learner's replica by its name or
    its command-line module:factory, with its source fingerprint. Imports nothing."""
    from replica.interface import BUILTIN, is_code_ref, replica_fingerprint, short_name

    choice = chosen_replica(loaded)
    if not choice:
        return None, None
    choice = short_name(choice.strip())
    if choice in BUILTIN:
        return choice, None
    return choice, replica_fingerprint(choice, from_here=is_code_ref(choice)) or None


def replica_for_save(save, cli: str | None) -> str | None:
    """The replica to replay or carry on a save with, checked before anything is imported.

    The save's own NAME, when it is installed; the save's module:factory only when the command
    line repeats it (a save cannot make drill import code); either only while its source is
    the one the save recorded. `cli` is the command line's --replica; a different one is a
    mistake. Raises ReplicaChoiceError with one located line."""
    from replica.interface import (
        BUILTIN,
        DEFAULT_REF,
        GROUP,
        canonical_ref,
        is_code_ref,
        replica_fingerprint,
        short_name,
    )

    where = f"{save.path}:1"
    if cli is not None:
        _check_name(cli, "--replica")
    ran = save.replica
    if ran is None:
        if cli is not None and canonical_ref(cli) != DEFAULT_REF:
            raise ReplicaChoiceError(
                f"{where}: this night ran replica addition-gpt; drop --replica to carry it on,"
                " or start a new night"
            )
        return None
    ran = short_name(ran)
    if is_code_ref(ran):
        if cli is None or cli.strip() != ran:
            raise ReplicaChoiceError(
                f"{where}: this night ran replica {ran}, code that a save cannot make drill"
                f" import; if you trust it, pass --replica {ran} on the command line"
            )
    elif not _is_name(ran):
        raise ReplicaChoiceError(f"{where}: the header's replica {ran!r} is not a replica name")
    else:
        try:
            canonical_ref(ran)
        except ValueError:
            raise ReplicaChoiceError(
                f"{where}: this night ran replica {ran}, which is not installed here; install"
                f" the package that declares the {GROUP} entry point {ran!r}"
            ) from None
        if cli is not None and canonical_ref(cli) != canonical_ref(ran):
            raise ReplicaChoiceError(
                f"{where}: this night ran replica {ran}; drop --replica to carry it on, or"
                " start a new night"
            )
    recorded = save.header.get("replica_sha256")
    if recorded and ran not in BUILTIN:
        now = replica_fingerprint(ran, from_here=is_code_ref(ran))
        if now != recorded:
            found = (
                f"its source now has fingerprint {now[:12]}" if now else "its source is not found"
            )
            raise ReplicaChoiceError(
                f"{where}: the source of replica {ran} changed since the save ({found}, the save"
                f" recorded {recorded[:12]}); restore that source to replay this night"
            )
    return ran


def _is_name(value: str) -> bool:
    from replica.interface import is_replica_name

    return is_replica_name(value)


def check_replica_name(ref: str) -> None:
    """The command line's --replica names an installed replica or a module:factory; checked
    from names and metadata only, before anything is imported."""
    _check_name(ref, "--replica")


def _check_name(ref: str, where: str) -> None:
    from replica.interface import canonical_ref  # no torch: names and metadata only

    try:
        canonical_ref(ref)
    except ValueError as exc:
        raise ReplicaChoiceError(f"{where}: {exc}") from None

"""Load an incident file into typed models, with every problem located at path:line:col."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from drill.faults import KINDS
from drill.faults.base import Names, Target
from drill.faults.targets import check_target
from drill.faults.triggers import check_triggers
from drill.incident.clock import NightClock
from drill.incident.errors import IncidentError, Problem, sorted_unique
from drill.incident.migrations import Change, migrate
from drill.incident.models import Incident
from drill.incident.naming import layout
from drill.incident.pydantic_errors import allowed_keys_for, problems_from_validation_error
from drill.incident.templates import template_problems
from drill.incident.trace import TraceError, read_trace
from drill.incident.yaml_source import (
    LocatedDocument,
    decode_source,
    load_yaml_document,
    read_source_bytes,
)
from drill.values.bounds import MAX_QUEUED_JOBS


@dataclass(frozen=True)
class LoadedIncident:
    incident: Incident
    path: str
    sha256: str
    doc: LocatedDocument
    # Written for an earlier schema: the version it says, and what the migration changed.
    migrated_from: int | None = None
    migration: tuple[Change, ...] = ()


def load_incident(path: str | Path) -> LoadedIncident:
    shown = str(path)
    return load_incident_bytes(read_source_bytes(shown, shown), shown)


def load_incident_bytes(raw: bytes, shown: str) -> LoadedIncident:
    """An incident from the bytes of the file at `shown` (a trace is read beside that path)."""
    sha = hashlib.sha256(raw).hexdigest()
    doc = load_yaml_document(decode_source(raw, shown), shown)
    data, changes, old_version = migrate(doc.data)
    if changes:
        renames = {c.loc: (*c.loc[:-1], c.new) for c in changes if c.action == "rename"}
        doc = doc.migrated(data, renames)
    try:
        incident = Incident.model_validate(doc.data)
    except ValidationError as exc:
        problems = problems_from_validation_error(exc, doc, shown, allowed_keys_for(Incident))
        raise IncidentError(problems) from None
    problems = cross_references(incident, doc)
    if problems:
        raise IncidentError(problems)
    if incident.background.trace is not None:
        _read_background_trace(incident, Path(shown), doc)
    return LoadedIncident(incident, shown, sha, doc, old_version, tuple(changes))


def _read_background_trace(incident: Incident, path: Path, doc: LocatedDocument) -> None:
    """Read `background.trace` from the incident's folder; a path out of it is refused."""
    folder = path.resolve().parent
    trace = (folder / str(incident.background.trace)).resolve()
    where = ("background", "trace")
    if not trace.is_relative_to(folder):
        raise IncidentError([doc.problem(where, "the trace must be in this file's folder")])
    if not trace.is_file():
        raise IncidentError(
            [doc.problem(where, f"no trace file at {trace.name}; put it next to the incident")]
        )
    try:
        rows = read_trace(trace)
    except TraceError as exc:
        raise IncidentError([doc.problem(where, str(exc))]) from None
    night = [row for row in rows if row.submit < incident.night.length]
    if len(night) + len(incident.jobs) > MAX_QUEUED_JOBS:
        raise IncidentError(
            [
                doc.problem(
                    where,
                    f"{len(night)} trace jobs arrive in this night; the engine runs at most"
                    f" {MAX_QUEUED_JOBS} in one night, so shorten the trace or the night",
                )
            ]
        )
    incident.background._trace_jobs = rows


def cross_references(incident: Incident, doc: LocatedDocument) -> list[Problem]:
    """Names that must point at something real: nodes, jobs, leaves, islands, and times."""
    problems: list[Problem] = []
    node_names, leaves, islands = cluster_names(incident)
    clock = NightClock(incident.night.start)
    length = incident.night.length

    def add(loc: tuple, message: str) -> None:
        problems.append(doc.problem(loc, message))

    def check_node(loc: tuple, name: str) -> None:
        if name not in node_names:
            add(loc, f"no node named {name!r}; {_suggest(name, node_names)}")

    slots = {slot.name: slot for slot in layout(incident.cluster)}
    for j, job in enumerate(incident.jobs):
        for n, name in enumerate(job.nodes):
            check_node(("jobs", j, "nodes", n), name)
        for loc, message in pinned_placement(job, slots, incident.cluster.gpus_per_node):
            add(("jobs", j, *loc), message)
        for n, name in enumerate(job.exclude):
            check_node(("jobs", j, "exclude", n), name)
        gpn = incident.cluster.gpus_per_node
        if job.gpus > gpn and job.gpus % gpn:
            add(
                ("jobs", j, "gpus"),
                f"{job.gpus} GPUs do not fill whole nodes of {gpn}; use a multiple of {gpn}",
            )
        if clock.moment(job.submit_at) >= length:
            add(
                ("jobs", j, "submit_at"),
                "this is after the night ends; submit it earlier or make the night longer",
            )
    names = Names(
        nodes=node_names,
        leaves=leaves,
        islands=islands,
        jobs={job.name: job.gpus for job in incident.jobs},
        cluster_mtbf=incident.cluster.mtbf,
        volumes={volume.name: volume.capacity for volume in incident.storage},
        teams={job.team for job in incident.jobs}
        | {team for volume in incident.storage for team in volume.quotas},
    )
    for f, fault in enumerate(incident.faults):
        base = ("faults", f)
        kind = KINDS[fault.kind]
        target = getattr(fault, "target", None)
        if isinstance(target, Target):
            for loc, message in check_target(target, names, (*base, "target")):
                add(loc, message)
        if kind.check is not None:
            for loc, message in kind.check(fault, names):
                add((*base, *loc), message)
        if fault.trigger is not None:
            if not isinstance(fault.at, str) and fault.at + fault.jitter >= length:
                add((*base, "at"), "this delay is longer than the night; make it shorter")
        elif clock.moment(fault.at) + fault.jitter >= length:
            add(
                (*base, "at"),
                "this fault can fire after the night ends; move it earlier or shorten the jitter",
            )
    plan = incident.plan
    planned = next((j for j in incident.jobs if plan and j.name == plan.job), None)
    if plan and plan.choices and planned is not None and not planned.checkpoint.enabled:
        add(
            ("plan", "choices"),
            f"{planned.name} writes no checkpoints (`checkpoint: {{enabled: false}}`), so there"
            " is no checkpoint setting to choose; drop the choices or enable its checkpoints",
        )
    for loc, message in check_triggers(incident.faults, names):
        add(loc, message)
    fault_ids = {fault.id for fault in incident.faults}
    for loc, text in shown_texts(incident):
        for message in template_problems(text, fault_ids):
            add(loc, message)
    for n, noise in enumerate(incident.noise):
        if clock.moment(noise.at) >= length:
            add(
                ("noise", n, "at"),
                "this noise fires after the night ends; move it earlier or make the night longer",
            )
    return sorted_unique(problems)


def shown_texts(incident: Incident) -> list[tuple[tuple, str]]:
    """The author's texts the game shows with `{fault.ID.FIELD}` filled in."""
    texts: list[tuple[tuple, str]] = [
        (("hints", i, "text"), hint.text) for i, hint in enumerate(incident.hints)
    ]
    texts += [(("runbooks", i, "why"), book.why) for i, book in enumerate(incident.runbooks)]
    for i, item in enumerate(incident.debrief.takeaways):
        if isinstance(item, str):
            texts.append((("debrief", "takeaways", i), item))
        else:
            texts.append((("debrief", "takeaways", i, "text"), item.text))
    texts.append((("debrief", "opinion"), incident.debrief.opinion))
    texts += [(("noise", i, "text"), noise.text) for i, noise in enumerate(incident.noise)]
    texts += [(("noise", i, "source"), noise.source) for i, noise in enumerate(incident.noise)]
    return texts


def pinned_placement(job, slots: dict, gpus_per_node: int) -> list[tuple[tuple, str]]:
    """A pinned `nodes:` list is held to the gang rules the scheduler keeps for every job: the
    exact number of nodes the job fills, each named once, in service, in one fabric island,
    and none of them in its own `exclude` list."""
    if not job.nodes:
        return []
    named = [name for name in job.nodes if name in slots]
    if len(named) < len(job.nodes):
        return []  # unknown names are reported on their own lines
    problems: list[tuple[tuple, str]] = []
    seen: set[str] = set()
    for n, name in enumerate(job.nodes):
        loc = ("nodes", n)
        if name in seen:
            problems.append(
                (loc, f"{name} is listed twice; a GPU holds one rank, so name each node once")
            )
        seen.add(name)
        if slots[name].spare:
            problems.append(
                (
                    loc,
                    f"{name} is a spare, out of service until `swap` brings it in; pin an in-service node",
                )
            )
        if name in job.exclude:
            problems.append(
                (loc, f"{name} is also in this job's `exclude` list; drop it from one of the two")
            )
    islands = sorted({slots[name].island for name in job.nodes})
    if len(islands) > 1:
        problems.append(
            (
                ("nodes",),
                f"these nodes span islands {', '.join(islands)}; a job that spans nodes must sit"
                " inside one fabric island",
            )
        )
    need = 1 if job.gpus <= gpus_per_node else job.gpus // gpus_per_node
    if len(job.nodes) != need and not problems:
        per = min(job.gpus, gpus_per_node)
        problems.append(
            (
                ("nodes",),
                f"a {job.gpus}-GPU job takes {need} node{'s' if need > 1 else ''} of"
                f" {gpus_per_node} GPUs ({per} GPUs on each); this lists {len(job.nodes)}",
            )
        )
    return problems


def cluster_names(incident: Incident) -> tuple[set[str], set[str], set[str]]:
    slots = layout(incident.cluster)
    nodes = {slot.name for slot in slots}
    leaves = {slot.leaf for slot in slots if slot.leaf}
    return nodes, leaves, {i.name for i in incident.cluster.islands}


def _suggest(word: str, options: set[str]) -> str:
    import difflib

    found = difflib.get_close_matches(word, sorted(options), n=1, cutoff=0.5)
    if found:
        return f"did you mean {found[0]!r}?"
    return f"valid names include {', '.join(sorted(options)[:4])}"

"""Checks of an incident that need the action language: reference and graded runbook lines must
parse as the engine parses them (verb, argument count and types, options), the nodes, jobs and
volumes they name must exist, and nothing the engine would refuse when the line runs for a reason
known from the file alone (another team's job, a setting outside the plan). Also the pre-shift
plan's ranges.

Lives in the engine because the incident layer must not import it; `drill validate` runs both.
"""

from __future__ import annotations

import difflib
from collections.abc import Set as AbstractSet

from drill.engine.actions.catalog import VERBS, On, refusal_on_others_job
from drill.engine.actions.parser import parse
from drill.engine.actions.settings import plan_refusal
from drill.engine.replica_training import shipped_settings
from drill.engine.timed import TEMPLATE, ActionsFileError, parse_line
from drill.incident.clock import NightClock
from drill.incident.errors import Problem
from drill.incident.job_settings import JOB_SETTINGS
from drill.incident.loader import LoadedIncident, cluster_names


def check(loaded: LoadedIncident) -> list[Problem]:
    incident = loaded.incident
    doc = loaded.doc
    problems: list[Problem] = []
    fault_ids = {f.id for f in incident.faults}
    nodes, leaves, _ = cluster_names(incident)
    jobs = {j.name for j in incident.jobs}
    volumes = {v.name for v in incident.storage}
    clock = NightClock(incident.night.start)
    for index, hint in enumerate(incident.hints):
        if hint.after >= incident.night.length:
            problems.append(
                doc.problem(
                    ("hints", index, "after"),
                    "this hint unlocks after the night ends; make it earlier",
                )
            )
    books: list[tuple[tuple[str | int, ...], list[str]]] = [(("reference",), incident.reference)]
    books += [(("runbooks", i, "actions"), r.actions) for i, r in enumerate(incident.runbooks)]
    for base, lines in books:
        for index, line in enumerate(lines):
            loc = (*base, index)
            try:
                action = parse_line(line, loaded.path, 1, fault_ids)
            except ActionsFileError as exc:
                problems.append(doc.problem(loc, f"{exc.message}"))
                continue
            if action is None:
                continue
            base_time = action.when.split("+")[0]
            absolute = base_time and ":" in base_time and "{" not in base_time
            if absolute and clock.from_clock(base_time) >= incident.night.length:
                problems.append(
                    doc.problem(
                        loc,
                        f"{base_time} is after the night ends; act before {clock.label(incident.night.length)}",
                    )
                )
            for message in _names(action.text, nodes, jobs, volumes, leaves):
                problems.append(doc.problem(loc, message))
            for message in _refusals(action.text, incident):
                problems.append(doc.problem(loc, message))
    for name in ("reference",):
        if not getattr(incident, name):
            problems.append(
                doc.problem(
                    (),
                    "the incident has no `reference:` solution; `drill test` needs one to set par",
                )
            )
    problems += _plan_ranges(loaded)
    problems += _replica_settings(loaded)
    for spec_index, volume_name in _job_volumes(incident):
        if volume_name not in volumes:
            problems.append(
                doc.problem(
                    ("jobs", spec_index, "checkpoint", "volume"),
                    f"no volume named {volume_name!r} under `storage:`; "
                    + (f"use one of {', '.join(sorted(volumes))}, " if volumes else "")
                    + "add it there, or drop `volume:` to use `write_time`",
                )
            )
    return problems


def _is_template(word: str) -> bool:
    return TEMPLATE.search(word) is not None


def _names(
    text: str,
    nodes: AbstractSet[str],
    jobs: AbstractSet[str],
    volumes: AbstractSet[str],
    leaves: AbstractSet[str] = frozenset(),
) -> list[str]:
    """Every node, leaf, job and volume the line names, by its verb's argument types."""
    command = parse(text, stand_in=_is_template)
    pools = {"node": nodes, "job": jobs, "volume": volumes, "leaf": leaves}
    problems = []
    for part in VERBS[command.verb].typed():
        value = command.values.get(part.name)
        pool = pools.get(part.type.names or "")
        if value is None or pool is None:
            continue
        for word in value if part.type.many else (value,):
            if _is_template(word) or word in pool:
                continue
            close = difflib.get_close_matches(word, sorted(pool), n=1, cutoff=0.6)
            fix = (
                f"did you mean {close[0]!r}?"
                if close
                else f"valid: {', '.join(sorted(pool)[:5]) or 'none'}"
            )
            problems.append(
                f"`{text}` names {part.type.names} {word!r}, which does not exist; {fix}"
            )
    return problems


def _refusals(text: str, incident) -> list[str]:
    """What the engine would refuse when the line runs, known from the file: a verb that may not
    touch another team's job, and a `set` the pre-shift plan does not allow."""
    command = parse(text, stand_in=_is_template)
    verb = VERBS[command.verb]
    target = verb.target_arg
    name = command.values.get(target.name) if target is not None else None
    job = next((j for j in incident.jobs if j.name == name), None)
    if verb.on != On.JOB or job is None:
        return []
    refusal = refusal_on_others_job(verb, job, incident.learner_job)
    if refusal:
        return [f"`{text}` would be refused: {refusal}"]
    if verb.plan:
        key, value = command.values.get("key"), command.values.get("value")
        if key and value and not _is_template(key) and not _is_template(value):
            refusal = plan_refusal(incident.plan, job.name, key, value)
            if refusal:
                return [f"`{text}` would be refused: {refusal}"]
    return []


def _plan_ranges(loaded: LoadedIncident) -> list[Problem]:
    incident = loaded.incident
    plan = incident.plan
    if plan is None:
        return []
    problems = []
    job = next((j for j in incident.jobs if j.name == plan.job), None)
    if job is None:
        return [
            loaded.doc.problem(
                ("plan", "job"),
                f"no job named {plan.job!r}; the plan must name one of the jobs: {', '.join(sorted(j.name for j in incident.jobs))}",
            )
        ]
    for key, choice in plan.choices.items():
        setting = JOB_SETTINGS[key]
        value = setting.value(job.checkpoint)
        default = setting.word(value) if setting.flag else value
        loc = ("plan", "choices", key)
        if choice.allowed is not None:
            if default not in choice.allowed:
                problems.append(
                    loaded.doc.problem(
                        loc,
                        f"the job's default for {key} is {default!r}, which `allowed` excludes; include it",
                    )
                )
        elif not (choice.min or 1) <= int(default) <= (choice.max or 10**9):
            problems.append(
                loaded.doc.problem(
                    loc,
                    f"the job's default for {key} is {default}, outside {choice.min} to {choice.max}; widen the range",
                )
            )
    return problems


def _job_volumes(incident) -> list[tuple[int, str]]:
    return [(i, j.checkpoint.volume) for i, j in enumerate(incident.jobs) if j.checkpoint.volume]


def _replica_settings(loaded: LoadedIncident) -> list[Problem]:
    """A job's `replica:` block must be settings its replica accepts, or the night fails to start.
    A shipped replica's settings are checked here (no torch); a learner's own replica checks its
    settings when the night starts."""
    problems = []
    for index, job in enumerate(loaded.incident.jobs):
        loc = ("jobs", index, "replica")
        try:
            shipped = shipped_settings(job.replica_factory)
        except ValueError as exc:  # a short name that is not a shipped replica
            problems.append(loaded.doc.problem(("jobs", index, "replica_factory"), str(exc)))
            continue
        if shipped is None:
            continue
        known, check = shipped
        unknown = [key for key in job.replica if key not in known]
        for key in unknown:
            problems.append(
                loaded.doc.problem(
                    (*loc, key),
                    f"unknown replica setting {key!r}; known: {', '.join(sorted(known))}",
                    at_key=True,
                )
            )
        if unknown:
            continue
        try:
            check(dict(job.replica))
        except (ValueError, TypeError) as exc:
            problems.append(loaded.doc.problem(loc, str(exc)))
    return problems

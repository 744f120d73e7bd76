"""The learner's runbook: Queue, Health, Checkpoint, and What you do at 3am, scaffolded from
the nights they played and carrying their own words. Several saves merge into one document."""

from __future__ import annotations

import math
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass

from drill.atomic_file import write_text_atomic
from drill.engine.actions.catalog import HELP, section_of, verb_of
from drill.engine.planned import planned
from drill.engine.runbook_sections import (
    COMPONENT_SECTION,
    RUNBOOK_SECTIONS,
    RunbookSection,
    Section,
)
from drill.incident.job_settings import CKPT_EVERY, CKPT_KEEP
from drill.night_record import NightRecord, rebuild
from drill.season.advice import async_line, measured_lines, node_mtbf
from drill.sim.checkpointing import checkpoint_size
from drill.text_safety import visible
from drill.values.units import format_duration, format_size, plural

# What a signal meant, in the words an on-call colleague would use. Matched on the alert text.
SIGNALS = (
    ("no training progress", "A rank stopped. The others wait in the collective until its timeout, so the first sign is silence."),
    ("Watchdog caught collective operation timeout", "The collective timed out: one rank never joined. Find which one and why before restarting."),
    ("not responding", "The node stopped sending heartbeats. Its jobs fail as node failures and requeue elsewhere if they can."),
    ("full", "The volume is filling. The next checkpoint write may fail, and a non-atomic one leaves a torn file."),
    ("preempted", "Higher-priority work took the GPUs: SIGTERM, a grace window, then SIGKILL."),
    ("step time", "The job is running slow: one straggler sets the pace for every rank."),
    ("quota", "The storage team answered a quota request."),
)  # fmt: skip


@dataclass
class CadenceAdvice:
    write_seconds: float
    mtbf_seconds: float | None
    job_nodes: int
    young_seconds: float | None
    chosen_steps: int
    chosen_seconds: float
    step_time: float
    keep: int
    size: int
    basis: str = "the cluster's stated rate"

    def lines(self) -> list[str]:
        out = [
            f"- One checkpoint is {format_size(self.size)} and takes about {format_duration(self.write_seconds)} to write.",
        ]
        if self.young_seconds is None or self.mtbf_seconds is None:
            out.append(
                "- This incident states no mean time between failures, so Young's formula has nothing to work with."
            )
        else:
            node_mtbf = self.mtbf_seconds * self.job_nodes
            out += [
                f"- The job spans {plural(self.job_nodes, 'node')}; at {format_duration(node_mtbf)} between failures per node"
                f" ({self.basis}, not one night's fault), it sees one failure every {format_duration(self.mtbf_seconds)} on average.",
                f"- Young's formula: interval = sqrt(2 x {format_duration(self.write_seconds)} write x {format_duration(self.mtbf_seconds)} between failures)"
                f" = {format_duration(self.young_seconds)},"
                f" or every {plural(max(1, round(self.young_seconds / self.step_time)), 'step')} at {format_duration(self.step_time)} a step.",
                async_line(self.mtbf_seconds, self.step_time),
            ]
        out += [
            f"- You chose every {self.chosen_steps} steps, about {format_duration(self.chosen_seconds)}. A failure costs on average"
            f" half an interval of recomputed work ({format_duration(self.chosen_seconds / 2)}) plus the restart;"
            f" checkpointing costs {self.write_seconds / max(self.chosen_seconds, 1):.0%} of training time in writes"
            f" and {format_size(self.keep * self.size)} of storage for {self.keep} kept.",
        ]
        return out + measured_lines()  # the formula, as this simulator measured it


def cadence(record: NightRecord) -> CadenceAdvice:
    incident = record.incident
    world = record.drill.world
    job = world.jobs[incident.learner_job.name]
    spec = incident.learner_job
    policy = job.policy
    size = checkpoint_size(world, job)
    volume = world.volumes.get(policy.volume) if policy.volume else None
    write = size / volume.spec.write_bandwidth if volume else policy.write_time
    nodes = max(1, math.ceil(spec.gpus / incident.cluster.gpus_per_node))
    found = node_mtbf(incident)  # the season's rate where there is one, as the debrief says
    job_mtbf = found[0] / nodes if found else None
    young = math.sqrt(2 * write * job_mtbf) if job_mtbf else None
    chosen = int(planned(record.save.actions, CKPT_EVERY, spec.checkpoint.every))
    keep = int(planned(record.save.actions, CKPT_KEEP, spec.checkpoint.keep))
    return CadenceAdvice(
        write, job_mtbf, nodes, young, chosen, chosen * spec.step_time, spec.step_time, keep, size,
        "the season's rate" if incident.season and incident.season.mtbf else "the cluster's stated rate",
    )  # fmt: skip


def _sentence(text: str) -> str:
    """A page's text as a sentence, so that what it meant can follow it."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _verb(text: str) -> str:
    found = verb_of(text.split())
    return found[0] if found else ""


def night_heading(record: NightRecord) -> str:
    score = record.score
    result = (
        f"score {score['total']:.0f}, grade {score['grade']}"
        if score
        else "the night did not finish"
    )
    return f"{record.incident.title} (seed {record.save.seed}, {result})"


def build_markdown(records: list[NightRecord]) -> str:
    out = ["# Cluster runbook", ""]
    out.append(
        "Built from the nights you played in 3am Drill: what fired, what it meant, what worked, and"
        " what the score said to do differently. Your own words are kept under each section."
    )
    out.append("")
    for section in RUNBOOK_SECTIONS:
        out += [f"## {section.title}", ""]
        for record in records:
            out += [f"### {night_heading(record)}", ""]
            out += _section(record, section)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _section(record: NightRecord, section: RunbookSection) -> list[str]:
    lines: list[str] = []
    clock = record.drill.clock
    key = section.section
    if key == Section.NIGHT:
        lines += ["Signals that fired and what they meant:"]
        seen = set()
        for alert in record.drill.world.pager.alerts:
            meaning = next((m for pattern, m in SIGNALS if pattern in alert.text), None)
            if meaning is None and not alert.noise:
                meaning = "Read it, then look before acting."
            if alert.noise:
                meaning = "It looked alarming, but it was not the cause tonight."
            if (alert.text, meaning) in seen:
                continue
            seen.add((alert.text, meaning))
            lines.append(f"- {clock(alert.time)} {_sentence(alert.text)} What it meant: {meaning}")
        if len(lines) == 1:
            lines.append("- No pages fired.")
        lines.append("")
    if key == Section.CHECKPOINT:
        advice = cadence(record)
        lines += advice.lines()
        plan = _component(record, "plan")
        if plan is not None and plan["weight"]:  # only a night with a pre-shift choice has one
            rewarded = plan["points"] >= 0.9 * plan["weight"]
            verdict = "rewarded" if rewarded else "did not reward"
            lines.append(f"- The night {verdict} your choice: {plan['why']}")
        lines.append("")
    accepted = [a for a in record.save.actions if a.accepted and _verb(a.text) != HELP.name]
    if key == Section.NIGHT:
        # The 3am sequence is the whole night in order: acks, looks and fixes together. The
        # other sections file each action under what it is about.
        worked = accepted
        heading = "The whole night, in order:"
    else:
        worked = [a for a in accepted if section_of(_verb(a.text)) == key]
        heading = "What you did, in order:"
    if worked:
        lines.append(heading)
        lines += [f"{n}. `{a.text}` at {clock(a.time)}" for n, a in enumerate(worked, 1)]
        lines.append("")
    advice_lines = _differently(record, key)
    if advice_lines:
        lines.append("What the score says to do differently:")
        lines += [f"- {text}" for text in advice_lines]
        lines.append("")
    own = record.save.texts.get(section.save_key, "").strip()
    lines.append("Your notes:")
    lines.append(own if own else "_(nothing written yet)_")
    if key == Section.NIGHT:
        notes = [text for _, text in record.drill.ctx.notes]
        if notes:
            lines += ["", "Notes you wrote during the night:"] + [f"- {n}" for n in notes]
    return lines


def _component(record: NightRecord, name: str) -> dict | None:
    if not record.score:
        return None
    return next((c for c in record.score["components"] if c["name"] == name), None)


def _differently(record: NightRecord, key: Section) -> list[str]:
    if not record.score:
        return (
            ["The night did not finish, so there is no score to learn from yet."]
            if key == Section.NIGHT
            else []
        )
    out = []
    for component in record.score["components"]:
        if COMPONENT_SECTION.get(component["name"]) != key or not component["weight"]:
            continue
        if component["points"] < component["weight"] * 0.9:
            out.append(f"{component['name'].replace('_', ' ')}: {component['why']}")
    return out


def write_runbook(
    save_paths: list[str],
    out_path: str | None = None,
    *,
    edit: bool = False,
    replica: str | None = None,
) -> str:
    records = [rebuild(path, backend="sim", replica=replica) for path in save_paths]
    try:
        # A save's notes and answers are the learner's typing, pastes included: a control
        # character in them would drive the terminal of whoever cats the runbook.
        text = visible(build_markdown(records))
    finally:
        for record in records:
            record.close()
    if edit:
        text = _edit(text)
    if out_path:
        write_text_atomic(out_path, text)
    return text


def _edit(text: str) -> str:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as handle:
        handle.write(text)
    try:
        subprocess.run([*shlex.split(editor), handle.name], check=False)
        with open(handle.name, encoding="utf-8") as edited:
            return edited.read()
    finally:
        os.unlink(handle.name)

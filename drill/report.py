"""The night as one self-contained HTML page: score, curves, timelines, lesson, runbook.

No external assets: styles inline, charts as inline SVG, so the file can be mailed or opened
offline. Plain HTML escaping everywhere the learner's or the instructor's words appear.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from drill.atomic_file import write_text_atomic
from drill.course import COURSE as COURSE_NAME
from drill.course import KEY_CONCEPTS, LESSON, PHASE, PRINCIPLE
from drill.engine import shown_text
from drill.engine.scoring.par import is_cached, reference_actions
from drill.figures import FLOOR_NAME, points, rows
from drill.night_record import NightRecord, rebuild
from drill.page_style import STYLE
from drill.runbook import build_markdown
from drill.season.html import night_season_section
from drill.text_safety import visible

WIDTH, HEIGHT, PAD = 720, 260, 40


def write_report(
    save_path: str,
    out_path: str | None = None,
    progress: Callable[[str], None] | None = None,
    *,
    replica: str | None = None,
) -> str:
    """The page for one save. `progress` hears each step as it starts (the debrief shows it;
    it may raise to stop the export between steps)."""
    say = progress or (lambda text: None)
    say("replaying the night from the save")
    record = rebuild(save_path, replica=replica)
    try:
        drill = record.drill
        if is_cached(drill.incident, record.save.seed, record.save.backend, drill.cache_dir):
            say("reading the reference solution's night")
        else:  # the first time for this seed: par and floor are measured, then cached
            say("measuring the reference solution's night (once for this seed, then cached)")
        reference = reference_timeline(record)
        say("writing the page")
        # html.escape leaves control characters alone; on stdout they would reach a terminal.
        page = visible(build_html(record, reference))
    finally:
        record.close()
    if out_path:
        write_text_atomic(out_path, page)
    return page


def reference_timeline(record: NightRecord) -> list[tuple[float, str, bool]]:
    """The reference solution's actions as the engine played them (from the par cache, or
    measured now). An error here is an error in the report: it is not hidden."""
    incident, save = record.incident, record.save
    return [
        (a["time"], a["text"], a["accepted"])
        for a in reference_actions(
            incident, save.seed, save.backend, cache_dir=record.drill.cache_dir
        )
    ]


def build_html(record: NightRecord, reference: list[tuple[float, str, bool]] | None = None) -> str:
    incident = record.incident
    if reference is None:
        reference = reference_timeline(record)
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(incident.title)}: night report</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{e(incident.title)}</h1>",
        f'<p class="muted">{e(COURSE_NAME)}, {e(PHASE)}, {e(LESSON)}. Incident {e(incident.id)}, seed {record.save.seed}.</p>',
    ]
    parts += night_sections(record, reference)
    return "\n".join(parts) + "</body></html>\n"


def night_sections(
    record: NightRecord, reference: list[tuple[float, str, bool]], *, key_concepts: bool = True
) -> list[str]:
    """The page's sections, from the score to the runbook: the night's page, and the course's
    feedback page for each night it grades (which shows the key concepts once, not per night)."""
    e = html.escape
    parts = _score_section(record)
    parts += _curve_section(record)
    parts += night_season_section(record)  # the incident's season, when it has one
    parts += _timeline_section(record, reference)
    if key_concepts:
        parts += ['<section id="key-concepts"><h2>Key concepts</h2>', f"<p>{e(PRINCIPLE)}</p><ul>"]
        parts += [f"<li>{e(text)}</li>" for text in KEY_CONCEPTS]
        parts += ["</ul></section>"]
    parts += ['<section id="takeaways"><h2>Takeaways</h2><ul>']
    parts += [f"<li>{e(text)}</li>" for text in shown_text.takeaways(record.drill.world)] or [
        "<li>None written.</li>"
    ]
    parts += ["</ul></section>"]
    answer = record.save.texts.get("opinion", "").strip()
    parts += [
        '<section id="opinion"><h2>Opinion checkpoint</h2>',
        f"<p><strong>{e(shown_text.opinion(record.drill.world) or 'No question for this night.')}</strong></p>",
        f'<div class="answer">{e(answer) if answer else "<em>No answer written yet.</em>"}</div>',
        "</section>",
        '<section id="runbook"><h2>Your cluster runbook</h2>',
        markdown_to_html(_runbook_body(build_markdown([record]))),
        "</section>",
    ]
    return parts


def _score_section(record: NightRecord) -> list[str]:
    """Every component the save's score has, figures formatted for a person."""
    e = html.escape
    out = ['<section id="score"><h2>Score</h2>']
    if not record.score:
        out.append(
            "<p>The night did not finish, so it has no score. Play it to the end or call the debrief.</p>"
        )
        return out + ["</section>"]
    score = record.score
    out.append(f'<p><span class="grade">{e(score["grade"])}</span> {score["total"]:.0f} of 100</p>')
    out.append(
        '<table><tr><th>Component</th><th class="num">Points</th><th>You</th><th>Reference</th>'
        f"<th>{e(FLOOR_NAME.capitalize())}</th><th>Basis</th><th>Why</th></tr>"
    )
    for row in rows(score):
        out.append(
            f'<tr><td>{e(row.title)}</td><td class="num">{e(points(row))}</td>'
            f"<td>{e(row.mine)}</td><td>{e(row.par)}</td><td>{e(row.floor)}</td>"
            f"<td>{e(row.basis)}</td><td>{e(row.why)}</td></tr>"
        )
    out.append("</table>")
    out.append(
        f'<p class="muted">Reference: the incident\'s reference solution on the same night and seed.'
        f" {e(FLOOR_NAME.capitalize())}: the same night with nobody acting. Points scale between"
        " them. Basis: tonight's figure, or the mean over tonight and seeded nights where only"
        " what nobody on call could know (other teams' jobs, random failures) was drawn again.</p>"
    )
    return out + ["</section>"]


def _curve_section(record: NightRecord) -> list[str]:
    losses = record.losses
    baseline = record.baseline
    out = ['<section id="loss-curve"><h2>Training loss against the undisturbed run</h2>']
    if not losses:
        return out + ["<p>No replica steps were recorded for this night.</p></section>"]
    steps = max([s for s, _ in losses] + [len(baseline)])
    values = [v for _, v in losses] + list(baseline)
    low, high = min(values), max(values)
    span = (high - low) or 1.0

    def point(step: float, value: float) -> str:
        x = PAD + (WIDTH - 2 * PAD) * step / max(steps, 1)
        y = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (value - low) / span
        return f"{x:.1f},{y:.1f}"

    base_points = " ".join(point(i + 1, v) for i, v in enumerate(baseline))
    # A restart steps back: draw each run of increasing steps as its own line.
    segments: list[list[str]] = [[]]
    last = 0
    for step, value in losses:
        if step <= last and segments[-1]:
            segments.append([])
        segments[-1].append(point(step, value))
        last = step
    out.append(
        f'<svg id="loss-svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" aria-label="loss curve">'
    )
    out.append(
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#99a"/>'
    )
    out.append(f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#99a"/>')
    if base_points:
        out.append(
            f'<polyline class="baseline" points="{base_points}" fill="none" stroke="#b8c2cc" stroke-width="3"/>'
        )
    for segment in segments:
        out.append(
            f'<polyline class="learner" points="{" ".join(segment)}" fill="none" stroke="#2d6cdf" stroke-width="1.5"/>'
        )
    out.append(
        f'<text x="{PAD}" y="{HEIGHT - 12}">step 0</text><text x="{WIDTH - PAD - 50}" y="{HEIGHT - 12}">step {steps}</text>'
    )
    out.append(
        f'<text x="4" y="{PAD - 8}">loss {high:.2f}</text><text x="4" y="{HEIGHT - PAD + 14}">{low:.2f}</text>'
    )
    out.append("</svg>")
    out.append(
        '<p class="muted">Blue: your run, one line per attempt. Grey: the undisturbed run of the same job.</p>'
    )
    return out + ["</section>"]


def _timeline_section(record: NightRecord, theirs: list[tuple[float, str, bool]]) -> list[str]:
    drill = record.drill
    mine = [(a.time, a.text, a.accepted) for a in record.save.actions]
    alerts = [(a.time, a.text, a.severity) for a in drill.world.pager.alerts]
    end = max([drill.end_time, *(t for t, _, _ in mine), *(t for t, _, _ in theirs)], default=1.0)
    out = [
        '<section id="timeline"><h2>Timeline: you and the reference</h2>',
        _timeline_svg(alerts, mine, theirs, end, drill.clock),
    ]
    out.append('<div class="timelines">')
    for title, actions in (("You", mine), ("Reference", theirs)):
        out.append(f"<div><h3>{title}</h3><table>")
        for time, text, accepted in actions:
            mark = "" if accepted else ' <span class="muted">(rejected)</span>'
            out.append(
                f"<tr><td>{html.escape(drill.clock(time))}</td><td><code>{html.escape(text)}</code>{mark}</td></tr>"
            )
        out.append("</table></div>")
    out.append("</div>")
    return out + ["</section>"]


def _timeline_svg(alerts, mine, theirs, end, clock) -> str:
    height = 130
    rows = {"pages": 30, "you": 70, "reference": 110}

    def x(time: float) -> float:
        return PAD + (WIDTH - 2 * PAD) * time / max(end, 1.0)

    out = [
        f'<svg id="timeline-svg" viewBox="0 0 {WIDTH} {height}" width="100%" role="img" aria-label="timeline">'
    ]
    for label, y in rows.items():
        out.append(
            f'<text x="2" y="{y + 4}">{label}</text><line x1="{PAD + 30}" y1="{y}" x2="{WIDTH - PAD}" y2="{y}" stroke="#dde"/>'
        )
    colours = {"critical": "#d33", "warning": "#e90", "info": "#69a"}
    for time, text, severity in alerts:
        out.append(
            f'<circle cx="{x(time) + 30:.1f}" cy="{rows["pages"]}" r="4" fill="{colours.get(severity, "#888")}"><title>{html.escape(clock(time) + " " + text)}</title></circle>'
        )
    for key, items in (("you", mine), ("reference", theirs)):
        for time, text, accepted in items:
            fill = "#2d6cdf" if accepted else "#aaa"
            out.append(
                f'<rect x="{x(time) + 28:.1f}" y="{rows[key] - 5}" width="4" height="10" fill="{fill}"><title>{html.escape(clock(time) + " " + text)}</title></rect>'
            )
    out.append("</svg>")
    return "\n".join(out)


def _runbook_body(markdown: str) -> str:
    """The runbook under the page's own heading: without its title (the section's heading
    says it) and, for the one night of this page, without a night heading in every section."""
    lines = markdown.splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(line for line in lines if not line.startswith("### "))


def markdown_to_html(text: str) -> str:
    """Just enough Markdown for the runbook this game writes: headings, lists, code, emphasis."""
    out: list[str] = []
    list_kind: str | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        item = re.match(r"^(- |\d+\. )(.*)$", line)
        kind = ("ol" if item.group(1)[0].isdigit() else "ul") if item else None
        if list_kind and kind != list_kind:
            out.append(f"</{list_kind}>")
            list_kind = None
        if item:
            if list_kind is None:
                out.append(f"<{kind}>")
                list_kind = kind
            out.append(f"<li>{_inline(item.group(2))}</li>")
        elif line.startswith("#"):
            level = min(6, len(line) - len(line.lstrip("#")) + 1)
            out.append(f"<h{level}>{_inline(line.lstrip('#').strip())}</h{level}>")
        elif line:
            out.append(f"<p>{_inline(line)}</p>")
    if list_kind:
        out.append(f"</{list_kind}>")
    return "\n".join(out)


def _inline(text: str) -> str:
    escaped = html.escape(text)
    escaped = re.sub(r"`([^`]+)`", r"<code>\1</code>", escaped)
    return re.sub(r"_\(([^)]*)\)_", r"<em>(\1)</em>", escaped)

"""A season as HTML: its figures as a table and two inline SVG charts, in the night report's style.

The curve shows the training kept over the season against a fleet that never failed; a tick under
it marks each interruption of the learner's job, coloured by cause. The bars show where the time
that was not kept went.
"""

from __future__ import annotations

import html

from drill.atomic_file import write_text_atomic
from drill.engine.planned import planned
from drill.incident.job_settings import CKPT_EVERY, CKPT_KEEP
from drill.incident.models import Incident
from drill.incident.season import CAUSE_TEXT
from drill.page_style import STYLE
from drill.season.figures import SeasonFigures, play_season, policies_with
from drill.season.text import hours, policy_line
from drill.values.units import format_size

WIDTH, HEIGHT, PAD = 720, 260, 44
COLOURS = {
    "gpu": "#c0392b",
    "gpu_memory": "#d35400",
    "network": "#2980b9",
    "nic": "#5dade2",
    "node": "#8e44ad",
    "software": "#16a085",
    "sdc": "#b7950b",
    "checkpoint writes": "#7f8c8d",
}
DAY = 86400.0


def curve_svg(figures: SeasonFigures) -> str:
    length = figures.length
    top = length / 3600
    inner_w, inner_h = WIDTH - 2 * PAD, HEIGHT - 2 * PAD

    def x(time: float) -> float:
        return PAD + inner_w * time / length

    def y(hours_kept: float) -> float:
        return HEIGHT - PAD - inner_h * hours_kept / top

    kept = " ".join(f"{x(t):.1f},{y(v / 3600):.1f}" for t, v in figures.curve)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}"'
        f' viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="training kept over the season">',
        f'<line x1="{PAD}" y1="{HEIGHT - PAD}" x2="{WIDTH - PAD}" y2="{HEIGHT - PAD}" stroke="#889"/>',
        f'<line x1="{PAD}" y1="{PAD}" x2="{PAD}" y2="{HEIGHT - PAD}" stroke="#889"/>',
        f'<line x1="{x(0):.1f}" y1="{y(0):.1f}" x2="{x(length):.1f}" y2="{y(top):.1f}"'
        ' stroke="#aab" stroke-dasharray="5,4"><title>a fleet that never failed</title></line>',
        f'<polyline fill="none" stroke="#2d6a4f" stroke-width="2" points="{kept}">'
        "<title>training kept</title></polyline>",
    ]
    days = int(length // DAY)
    step = max(1, days // 7)
    for day in range(0, days + 1, step):
        parts.append(
            f'<text x="{x(day * DAY):.1f}" y="{HEIGHT - PAD + 16}" text-anchor="middle">'
            f"day {day}</text>"
        )
    for frac in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{PAD - 6}" y="{y(top * frac) + 4:.1f}" text-anchor="end">'
            f"{top * frac:.0f} h</text>"
        )
    for item in figures.interruptions:
        colour = COLOURS[item.cause]
        tip = html.escape(
            f"day {item.time / DAY:.1f}: {CAUSE_TEXT[item.cause]} on {item.node},"
            f" {hours(item.lost)} lost"
        )
        parts.append(
            f'<line x1="{x(item.time):.1f}" y1="{HEIGHT - PAD - 2}" x2="{x(item.time):.1f}"'
            f' y2="{HEIGHT - PAD - 12}" stroke="{colour}" stroke-width="2"><title>{tip}</title></line>'
        )
    parts.append(
        f'<text x="{PAD + 8}" y="{PAD - 10}">training kept (hours); dashed: no failures;'
        " ticks: interruptions of your job</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def bars_svg(figures: SeasonFigures) -> str:
    rows = [(row.cause, row.text, row.lost) for row in figures.causes]
    rows.append(("checkpoint writes", "checkpoint writes", figures.checkpoint_time))
    longest = max((seconds for _, _, seconds in rows), default=0.0) or 1.0
    bar_h, gap, label_w = 18, 8, 230
    height = PAD + len(rows) * (bar_h + gap)
    inner = WIDTH - label_w - 2 * PAD
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}"'
        f' viewBox="0 0 {WIDTH} {height}" role="img" aria-label="time lost by cause">'
    ]
    for index, (key, text, seconds) in enumerate(rows):
        top = PAD / 2 + index * (bar_h + gap)
        width = inner * seconds / longest
        parts.append(
            f'<text x="{label_w}" y="{top + 13}" text-anchor="end">{html.escape(text)}</text>'
            f'<rect x="{label_w + 8}" y="{top}" width="{width:.1f}" height="{bar_h}"'
            f' fill="{COLOURS[key]}"><title>{hours(seconds)}</title></rect>'
            f'<text x="{label_w + 14 + width:.1f}" y="{top + 13}">{hours(seconds)}'
            f" ({seconds / figures.length:.1%})</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def season_section(figures: SeasonFigures, heading: str = "Over a season") -> list[str]:
    e = html.escape
    length = figures.length
    parts = [
        '<section id="season">',
        f"<h2>{e(heading)}</h2>",
        f'<p class="muted">{length / DAY:g} days on the fleet, seed {figures.seed}. Policies:'
        f" {e(policy_line(figures))}.</p>",
        f"<p>Effective training time: <b>{hours(figures.effective)}</b> of {hours(length)}"
        f" ({figures.effective_share:.1%}). Your job was interrupted"
        f" {len(figures.interruptions)} times ({figures.strikes} interruptions anywhere on the"
        " fleet).</p>",
        curve_svg(figures),
        "<h3>Time lost by cause</h3>",
        bars_svg(figures),
        "<table><tr><th>cause</th><th class='num'>interruptions</th><th class='num'>work"
        " redone</th><th class='num'>down</th><th class='num'>lost</th></tr>",
    ]
    for row in figures.causes:
        parts.append(
            f"<tr><td>{e(row.text)}</td><td class='num'>{row.interruptions}</td>"
            f"<td class='num'>{hours(row.lost_work)}</td><td class='num'>{hours(row.down)}</td>"
            f"<td class='num'>{hours(row.lost)}</td></tr>"
        )
    parts.append("</table><h3>Where the time went</h3><table>")
    for name, seconds in figures.account():
        parts.append(
            f"<tr><td>{e(name)}</td><td class='num'>{hours(seconds)}</td>"
            f"<td class='num'>{seconds / length:.1%}</td></tr>"
        )
    parts += [
        "</table>",
        f"<p>Checkpoints: {figures.checkpoint_writes} written, {format_size(figures.checkpoint_size)}"
        f" each, {format_size(figures.storage_written)} written in all;"
        f" {format_size(figures.storage_peak)} held at most,"
        f" {format_size(int(figures.storage_mean))} on average. Checkpoint cadence is a storage"
        " decision: retention sets what you hold, cadence what you write.</p>",
        "</section>",
    ]
    return parts


def season_page(incident: Incident, figures: SeasonFigures) -> str:
    e = html.escape
    return "".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            f"<title>{e(incident.title)}: season report</title>",
            f"<style>{STYLE}</style></head><body>",
            f"<h1>{e(incident.title)}</h1>",
            *season_section(figures, "The season"),
            "</body></html>\n",
        ]
    )


def write_season_page(incident: Incident, figures: SeasonFigures, path: str) -> None:
    write_text_atomic(path, season_page(incident, figures))


def night_season_section(record) -> list[str]:
    """For the night report: the incident's season, played with the cadence and retention the
    learner's pre-shift plan chose (the season's own policies otherwise). Empty without one."""
    incident = record.incident
    if incident.season is None:
        return []
    spec = incident.learner_job
    base = policies_with(incident)
    overrides = {
        "checkpoint_every": planned(
            record.save.actions, CKPT_EVERY, base.checkpoint_every or spec.checkpoint.every
        ),
        "keep": planned(record.save.actions, CKPT_KEEP, base.keep or spec.checkpoint.keep),
    }
    figures = play_season(incident, record.save.seed, policies_with(incident, overrides))
    return season_section(figures, "Over a season with your cadence")

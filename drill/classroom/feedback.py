"""Each learner's feedback page: one self-contained HTML file per learner in the course's
feedback/ folder, with every night of the course in order. A graded night shows its score and
the component where the learner lost the most points, then the night's debrief and runbook
(drill/classroom/feedback_night.py, built by the grading worker from the night it replayed). A
refused save says where it stopped being what it says, and a night not handed in says so.
"""

from __future__ import annotations

import hashlib
import html
import re
from pathlib import Path

from drill.atomic_file import write_text_atomic
from drill.classroom.course_file import Course, learner_key
from drill.classroom.gradebook.query import kept_feedback, read_class
from drill.classroom.results import ClassResults, GradedNight
from drill.course import KEY_CONCEPTS, PRINCIPLE
from drill.figures import title
from drill.page_style import STYLE
from drill.text_safety import visible

FEEDBACK = "feedback"


def feedback_name(learner: str) -> str:
    """The page's file name: readable, and never the same for two learners."""
    key = learner_key(learner)
    slug = re.sub(r"[^a-z0-9]+", "-", key).strip("-")[:40] or "learner"
    return f"{slug}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.html"


def write_feedback(course: Course, engine) -> list[Path]:
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        results, _ = read_class(course, session)
    nights_html = kept_feedback(course, engine)
    folder = course.folder / FEEDBACK
    written = []
    for learner in results.learners:
        page = learner_page(course, results, learner, nights_html)
        path = folder / feedback_name(learner)
        write_text_atomic(path, page)
        written.append(path)
    return written


def learner_page(
    course: Course, results: ClassResults, learner: str, nights_html: dict[tuple[str, str], str]
) -> str:
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(learner)}: {e(course.title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{e(course.title)}</h1>",
        f'<p class="muted">Feedback for {e(learner)}: each night of the course, graded by'
        f" replaying your save. The {e(results.attempt)} verified attempt of each night counts.</p>",
        '<section id="nights"><h2>Your nights</h2><table>',
        '<tr><th>Night</th><th class="num">Score</th><th>Grade</th><th>Lost most in</th>'
        "<th>Saves handed in</th></tr>",
    ]
    for number, night in enumerate(course.nights, start=1):
        cell = results.cell(learner, night.id)
        parts.append(
            f"<tr><td>{number}. {e(night.id)}</td>{_cells(cell)}"
            f"<td>{cell.attempts if cell else 0}</td></tr>"
        )
    parts.append("</table></section>")
    for number, night in enumerate(course.nights, start=1):
        cell = results.cell(learner, night.id)
        parts.append(f'<section class="night" id="night-{e(night.id)}">')
        parts.append(f"<h2>Night {number}: {e(night.id)}</h2>")
        parts += _night(cell, nights_html.get((learner, night.id), ""))
        refused = [g for g in results.refused if g.learner == learner and g.night == night.id]
        if refused and cell is not None and cell.verified:
            parts.append("<p>Also handed in, and not graded:</p><ul>")
            parts += [f"<li>{_refusal(g)}</li>" for g in refused]
            parts.append("</ul>")
        parts.append("</section>")
    parts += ['<section id="key-concepts"><h2>Key concepts</h2>', f"<p>{e(PRINCIPLE)}</p><ul>"]
    parts += [f"<li>{e(text)}</li>" for text in KEY_CONCEPTS]
    parts.append("</ul></section></body></html>")
    # html.escape leaves control characters alone; a name from a save could hold one.
    return visible("\n".join(parts)) + "\n"


def _cells(cell: GradedNight | None) -> str:
    e = html.escape
    if cell is None:
        return '<td class="num">-</td><td>not handed in</td><td></td>'
    if not cell.verified:
        return '<td class="num">-</td><td>not graded</td><td></td>'
    lost = title(cell.lost_most) if cell.lost_most else "nothing"
    return f'<td class="num">{cell.total:.0f}</td><td>{e(cell.grade or "")}</td><td>{e(lost)}</td>'


def _night(cell: GradedNight | None, fragment: str) -> list[str]:
    e = html.escape
    if cell is None:
        return ["<p>Not handed in.</p>"]
    if not cell.verified:
        return [f"<p>Your save was not graded: {_refusal(cell)}</p>"]
    out = [
        f"<p><strong>{cell.total:.0f} of 100, grade {e(cell.grade or '')}</strong>, seed {cell.seed}."
    ]
    worst = max(cell.components, key=lambda c: c.lost, default=None)
    if worst is not None and worst.lost > 0:
        out.append(
            f" You lost the most in {e(title(worst.name).lower())}: {worst.points:.1f} of"
            f" {worst.weight:.0f} points."
        )
    else:
        out.append(" You lost no points.")
    if cell.first_wrong_act:
        out.append(
            f" The first act the score held against you: <code>{e(cell.first_wrong_act)}</code>."
        )
    out.append("</p>")
    out.append(fragment)
    return out


def _refusal(cell: GradedNight) -> str:
    e = html.escape
    refusal = cell.refusal
    assert refusal is not None
    return (
        f"<code>{e(cell.save_name)}</code>, line {refusal.line}"
        f" (<code>{e(refusal.field)}</code>): {e(refusal.reason)}"
    )

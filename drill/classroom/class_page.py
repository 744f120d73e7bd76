"""The class report as one self-contained HTML page, like `drill report`'s night page: styles
inline, charts as inline SVG, no script, no outside address, so it can be mailed to a colleague
or opened offline.

Read top down it answers an instructor's questions in order: who struggled where (the heat
table, learners by night), how each night went (the score histograms), what the class lost
points on (per component), what usually went wrong first (the first wrong acts), which saves
were refused and why, and then each learner's nights and timelines.

Everything a learner or an instructor wrote (names, actions, reasons, the course's title) is
escaped, and control characters become visible signs (drill/text_safety.py) first.
"""

from __future__ import annotations

import html
from pathlib import Path

from drill.atomic_file import write_text_atomic
from drill.classroom.class_charts import histogram_svg, losses_svg
from drill.classroom.class_figures import (
    class_component_losses,
    component_losses,
    first_wrong_acts,
    lost_most,
    night_counts,
    no_wrong_act,
    same_act,
)
from drill.classroom.heat import HEATS, cell_text, heat_of
from drill.classroom.results import ClassResults, GradedNight, Refusal
from drill.figures import title as component_title
from drill.page_style import STYLE
from drill.text_safety import visible
from drill.values.units import plural

# This page's own rules, after the shared ones: a wider body for ten nights of columns, the
# heat cells (printed in colour too), the chart grid and the drill-downs.
CLASS_STYLE = (
    "body { max-width: 70rem; }\n"
    "table.heat-table { width: auto; font-size: 0.92rem; }"
    " .heat-table td, .heat-table th { padding: 0.2rem 0.35rem; }\n"
    ".heat-table th.night { text-align: center; font-size: 0.8rem; max-width: 5.5rem; }\n"
    ".heat-table td { vertical-align: middle; white-space: nowrap; }\n"
    ".table-scroll { overflow-x: auto; }\n"
    "td.heat { text-align: center; white-space: nowrap; font-variant-numeric: tabular-nums;"
    " min-width: 3.6rem; border: 1px solid #fff;"
    " -webkit-print-color-adjust: exact; print-color-adjust: exact; }\n"
    + "".join(
        f"td.h-{h.key}, span.h-{h.key} {{ background: {h.background}; color: {h.foreground}; }}\n"
        for h in HEATS
    )
    + "td.h-missing, span.h-missing { border: 1px dashed #99a; font-style: italic; }\n"
    "td.h-refused, span.h-refused { background-image: repeating-linear-gradient(45deg,"
    " transparent 0 6px, rgba(255,255,255,0.18) 6px 9px); font-weight: 600; }\n"
    ".legend span { display: inline-block; padding: 0.1rem 0.5rem; margin: 0 0.3rem 0.3rem 0;"
    " font-size: 0.85rem; -webkit-print-color-adjust: exact; print-color-adjust: exact; }\n"
    ".charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(17rem, 1fr));"
    " gap: 1rem; } .charts p { margin: 0; font-size: 0.85rem; }\n"
    "table.wrong-acts { width: auto; min-width: 28rem; }\n"
    "table.timeline { width: auto; } .timeline td { padding: 0.12rem 0.6rem; }\n"
    "details { border-bottom: 1px solid #e3e6ea; padding: 0.3rem 0; }"
    " summary { cursor: pointer; } tr.wrong td { background: #fdecea; }\n"
    ".chart-title { font-weight: 600; font-size: 12px; }\n"
)


def _e(text: str) -> str:
    return html.escape(visible(text))


def write_class_page(results: ClassResults, out_path: str | Path) -> str:
    """Write the page to `out_path` whole (a reader sees the old page or the new one); returns
    the path written."""
    write_text_atomic(out_path, class_page_html(results))
    return str(out_path)


def class_page_html(results: ClassResults) -> str:
    learners = plural(len(results.learners), "learner")
    nights = plural(len(results.nights), "night")
    cells = [
        heat_of(results.cell(learner, n)).key
        for learner in results.learners
        for n in results.nights
    ]
    refused, missing = cells.count("refused"), cells.count("missing")
    verified = len(cells) - refused - missing
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{_e(results.title)}: class report</title>",
        f"<style>{STYLE}{CLASS_STYLE}</style></head><body>",
        f"<h1>{_e(results.title)}</h1>",
        f'<p class="muted">Class report: {learners}, {nights}. {verified} verified'
        f" {'save' if verified == 1 else 'saves'} graded, {refused} refused,"
        f" {missing} missing. Every figure below counts verified saves only.</p>",
    ]
    parts += _heat_section(results)
    parts += _distribution_section(results)
    parts += _components_section(results)
    parts += _wrong_acts_section(results)
    parts += _refused_section(results)
    parts += _learners_section(results)
    parts.append("</body></html>")
    # Belt and braces, as the night report does: nothing on the page drives a terminal.
    return visible("\n".join(parts)) + "\n"


def _night_heading(index: int, night: str) -> str:
    return f"Night {index}: {night}"


def _anchor(results: ClassResults, learner: str) -> str:
    """An id made from the learner's place in the list: a name may hold anything."""
    return f"learner-{results.learners.index(learner) + 1}"


def _legend() -> str:
    spans = "".join(f'<span class="h-{h.key}">{_e(h.meaning)}</span>' for h in HEATS)
    return f'<p class="legend">{spans}</p>'


def _heat_section(results: ClassResults) -> list[str]:
    out = [
        '<section id="heat"><h2>Learners by night</h2>',
        '<p class="muted">Each cell is the learner\'s kept night: its score (rounded down, so'
        " it agrees with the letter) and grade. A name opens that learner's nights below.</p>",
        _legend(),
        '<div class="table-scroll"><table class="heat-table"><thead><tr><th>Learner</th>',
    ]
    out += [
        f'<th class="night">{index}<br><span class="muted">{_e(night)}</span></th>'
        for index, night in enumerate(results.nights, start=1)
    ]
    out.append("<th>Lost most</th></tr></thead><tbody>")
    for learner in results.learners:
        row = [f'<tr><td><a href="#{_anchor(results, learner)}">{_e(learner)}</a></td>']
        for night in results.nights:
            entry = results.cell(learner, night)
            heat = heat_of(entry)
            row.append(
                f'<td class="heat h-{heat.key}" data-night="{_e(night)}"'
                f' title="{_e(_cell_tip(entry, night))}">{_e(cell_text(entry))}</td>'
            )
        worst = lost_most(results.for_learner(learner))
        row.append(f"<td>{_e(component_title(worst.name)) if worst else ''}</td></tr>")
        out.append("".join(row))
    out.append("</tbody></table></div></section>")
    return out


def _cell_tip(entry: GradedNight | None, night: str) -> str:
    if entry is None:
        return f"{night}: nothing handed in"
    if entry.refusal is not None:
        r = entry.refusal
        where = f"at line {r.line}" if r.line > 0 else "unreadable"
        return f"{night}: refused {where}{', ' + r.field if r.field else ''}: {r.reason}"
    tries = plural(entry.attempts, "save")
    return f"{night}: {entry.total:.1f}, {entry.grade}, kept from {tries} handed in"


def _distribution_section(results: ClassResults) -> list[str]:
    out = [
        '<section id="distribution"><h2>Score distribution per night</h2>',
        '<p class="muted">Verified saves per ten points; the number above a bar is its count.</p>',
        '<div class="charts">',
    ]
    for index, night in enumerate(results.nights, start=1):
        counts = night_counts(results, night)
        middle = "" if counts.median is None else f"; median {counts.median:.0f}"
        out.append(
            f'<figure class="night-chart" data-night="{_e(night)}" style="margin:0">'
            f"{histogram_svg(counts, _night_heading(index, night))}"
            f"<p>{counts.verified} verified, {counts.refused} refused,"
            f" {counts.missing} missing{middle}.</p></figure>"
        )
    out.append("</div></section>")
    return out


def _components_section(results: ClassResults) -> list[str]:
    losses = class_component_losses(results)
    out = [
        '<section id="components"><h2>Points lost per component</h2>',
    ]
    if not losses:
        return out + ["<p>No verified saves, so nothing to count yet.</p></section>"]
    out += [
        '<p class="muted">Dark: points lost on an average verified night where the component'
        " was scored; light: what it could earn. The table splits the losses by night.</p>",
        losses_svg(losses),
        '<table id="losses-table"><tr><th>Component</th>',
    ]
    out += [f'<th class="num">Night {i}</th>' for i in range(1, len(results.nights) + 1)]
    out.append('<th class="num">All nights</th></tr>')
    by_night = {night: component_losses(results.for_night(night)) for night in results.nights}
    for loss in losses:
        row = [f"<tr><td>{_e(component_title(loss.name))}</td>"]
        for night in results.nights:
            found = next((c for c in by_night[night] if c.name == loss.name), None)
            row.append(
                f'<td class="num">{found.mean:.1f} of {found.mean_weight:.0f}</td>'
                if found
                else '<td class="num muted">not scored</td>'
            )
        row.append(f'<td class="num">{loss.lost:.1f}</td></tr>')
        out.append("".join(row))
    out.append("</table>")
    out.append(
        '<p class="muted">Night columns: the mean lost per verified night, out of the weight.'
        " All nights: the points lost in total across the class.</p></section>"
    )
    return out


def _wrong_acts_section(results: ClassResults) -> list[str]:
    out = [
        '<section id="wrong-acts"><h2>The most common first wrong act</h2>',
        '<p class="muted">The first action each verified night\'s score counted against the'
        " learner, counted across the class.</p>",
    ]
    for index, night in enumerate(results.nights, start=1):
        acts = first_wrong_acts(results, night)
        clean = no_wrong_act(results, night)
        out.append(f'<h3 data-night="{_e(night)}">{_e(_night_heading(index, night))}</h3>')
        if acts:
            verified = night_counts(results, night).verified
            out.append(
                '<table class="wrong-acts"><tr><th>First wrong act</th>'
                '<th class="num">Learners</th></tr>'
            )
            out += [
                f"<tr><td><code>{_e(act.act)}</code></td>"
                f'<td class="num">{act.count} of {verified}</td></tr>'
                for act in acts
            ]
            out.append("</table>")
        else:
            out.append("<p>No verified save had a wrong act counted against it.</p>")
        out.append(f'<p class="muted">{plural(clean, "verified save")} with no wrong act.</p>')
    out.append("</section>")
    return out


def _refused_section(results: ClassResults) -> list[str]:
    refused = results.refused_saves()
    out = ['<section id="refused"><h2>Refused saves</h2>']
    if not refused:
        return out + ["<p>None: every save handed in replayed to what it says.</p></section>"]
    out.append(
        '<p class="muted">A refused save did not replay to what it says (edited, cut short, or'
        " from another version of the incident). It is not graded; the line and field are where"
        " it first differs.</p>"
    )
    out.append(
        "<table><tr><th>Learner</th><th>Night</th><th>Save</th>"
        '<th class="num">Line</th><th>Field</th><th>Reason</th></tr>'
    )
    for entry in refused:
        r = entry.refusal
        assert r is not None
        out.append(
            f"<tr><td>{_e(entry.learner)}</td><td>{_e(entry.night)}</td>"
            f'<td><code>{_e(entry.save_name)}</code></td><td class="num">{_line(r)}</td>'
            f"<td>{_field(r)}</td><td>{_e(r.reason)}</td></tr>"
        )
    out.append("</table></section>")
    return out


def _line(refusal: Refusal) -> str:
    return str(refusal.line) if refusal.line > 0 else "unreadable"


def _field(refusal: Refusal) -> str:
    return f"<code>{_e(refusal.field)}</code>" if refusal.field else ""


def _learners_section(results: ClassResults) -> list[str]:
    out = [
        '<section id="learners"><h2>Each learner</h2>',
        '<p class="muted">Open a learner for their nights, the component where they lost the'
        " most points, and each night's timeline.</p>",
    ]
    for learner in results.learners:
        out += _learner_details(results, learner)
    out.append("</section>")
    return out


def _learner_details(results: ClassResults, learner: str) -> list[str]:
    theirs = results.for_learner(learner)
    worst = lost_most(theirs)
    cells = ", ".join(cell_text(results.cell(learner, night)) for night in results.nights)
    summary = f"{learner}: {cells}"
    out = [
        f'<details id="{_anchor(results, learner)}"><summary>{_e(summary)}</summary>',
        "<p>"
        + (
            f"Lost the most on <strong>{_e(component_title(worst.name))}</strong>:"
            f" {worst.lost:.1f} points over {plural(worst.nights, 'verified night')}."
            if worst
            else "No points lost on a verified night."
        )
        + "</p>",
        '<table><tr><th>Night</th><th>Score</th><th>Save</th><th class="num">Saves</th>'
        "<th>Lost most</th><th>First wrong act</th></tr>",
    ]
    for night in results.nights:
        entry = results.cell(learner, night)
        heat = heat_of(entry)
        score = f'<span class="h-{heat.key}" style="padding:0 0.3rem">{_e(cell_text(entry))}</span>'
        if entry is None:
            out.append(f'<tr><td>{_e(night)}</td><td>{score}</td><td colspan="4"></td></tr>')
            continue
        if entry.refusal is not None:
            r = entry.refusal
            where = f"line {r.line}" if r.line > 0 else "unreadable"
            detail = f"Refused, {where}{', ' + _field(r) if r.field else ''}: {_e(r.reason)}"
            out.append(
                f"<tr><td>{_e(night)}</td><td>{score}</td><td><code>{_e(entry.save_name)}</code></td>"
                f'<td class="num">{entry.attempts}</td><td colspan="2">{detail}</td></tr>'
            )
            continue
        most = entry.lost_most
        wrong = f"<code>{_e(entry.first_wrong_act)}</code>" if entry.first_wrong_act else "none"
        out.append(
            f"<tr><td>{_e(night)}</td><td>{score}</td><td><code>{_e(entry.save_name)}</code></td>"
            f'<td class="num">{entry.attempts}</td>'
            f"<td>{_e(component_title(most)) if most else 'nothing'}</td><td>{wrong}</td></tr>"
        )
    out.append("</table>")
    for night in results.nights:
        entry = results.cell(learner, night)
        if entry is not None and entry.verified and entry.timeline:
            out += _timeline(entry)
    out.append("</details>")
    return out


def _timeline(entry: GradedNight) -> list[str]:
    """One night's timeline; the first wrong act's line is marked, once."""
    out = [f"<h4>{_e(entry.night)}: timeline</h4>", '<table class="timeline">']
    wrong = same_act(entry.first_wrong_act) if entry.first_wrong_act else None
    for line in entry.timeline:
        mark = wrong is not None and line.kind == "action" and same_act(line.text) == wrong
        if mark:
            wrong = None
        note = ' <span class="muted">(first wrong act)</span>' if mark else ""
        row = '<tr class="wrong">' if mark else "<tr>"
        out.append(
            f"{row}<td>{_e(line.clock)}</td>"
            f"<td>{_e(line.kind)}</td><td><code>{_e(line.text)}</code>{note}</td></tr>"
        )
    out.append("</table>")
    return out

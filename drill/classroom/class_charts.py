"""The class report's charts as inline SVG: a score histogram per night and the points lost per
component. Each bar carries its number as text, so a chart reads without its colours and in
print; each has a <title> for the exact figure under the mouse.

No xmlns: SVG inline in HTML needs none, and the page names no outside address at all.
"""

from __future__ import annotations

import html

from drill.classroom.class_figures import BINS, ComponentLoss, NightCounts, bin_label
from drill.figures import title
from drill.text_safety import visible

BAR = "#3b5b8c"  # the histogram's bars: one dark blue, the heat colours are for the table
AXIS = "#889"
LOST = "#d7301f"
KEPT = "#e3e6ea"


def _e(text: str) -> str:
    return html.escape(visible(text))


def histogram_svg(counts: NightCounts, heading: str) -> str:
    """One night's verified scores in bars of ten points; the bar's count stands above it."""
    width, height, left, right, top, bottom = 320, 170, 14, 16, 26, 30
    inner_w, inner_h = width - left - right, height - top - bottom
    tallest = max(counts.histogram, default=0) or 1
    bar_w = inner_w / BINS
    parts = [
        f'<svg class="histogram" viewBox="0 0 {width} {height}" width="100%"'
        f' role="img" aria-label="{_e(heading)}: scores of the verified saves">',
        f'<text x="{left}" y="14" class="chart-title">{_e(heading)}</text>',
        f'<line x1="{left}" y1="{top + inner_h}" x2="{left + inner_w}" y2="{top + inner_h}"'
        f' stroke="{AXIS}"/>',
    ]
    for index, count in enumerate(counts.histogram):
        x = left + index * bar_w
        bar_h = inner_h * count / tallest
        y = top + inner_h - bar_h
        label = bin_label(index)
        parts.append(
            f'<rect class="bar" data-bin="{label}" data-count="{count}" x="{x + 1:.1f}"'
            f' y="{y:.1f}" width="{bar_w - 2:.1f}" height="{bar_h:.1f}" fill="{BAR}">'
            f"<title>{label} points: {count}</title></rect>"
        )
        if count:
            parts.append(
                f'<text x="{x + bar_w / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle">{count}</text>'
            )
    for index in range(0, BINS + 1, 2):
        x = left + index * bar_w
        parts.append(
            f'<text x="{x:.1f}" y="{top + inner_h + 14}" text-anchor="middle">{index * 10}</text>'
        )
    parts.append(
        f'<text x="{left + inner_w / 2:.1f}" y="{height - 2}" text-anchor="middle">points</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def losses_svg(losses: list[ComponentLoss]) -> str:
    """Per component, the points lost on an average night (dark) out of its weight (light)."""
    row_h, left, right, top = 26, 150, 190, 8
    width = 720
    height = top * 2 + row_h * max(1, len(losses))
    inner_w = width - left - right
    widest = max((c.mean_weight for c in losses), default=0) or 1.0
    parts = [
        f'<svg id="losses-svg" viewBox="0 0 {width} {height}" width="100%" role="img"'
        ' aria-label="points lost per component, on an average night">'
    ]
    for row, loss in enumerate(losses):
        y = top + row * row_h
        kept_w = inner_w * loss.mean_weight / widest
        lost_w = inner_w * loss.mean / widest
        name = _e(title(loss.name))
        parts.append(f'<text x="{left - 8}" y="{y + 16}" text-anchor="end">{name}</text>')
        parts.append(
            f'<rect x="{left}" y="{y + 4}" width="{kept_w:.1f}" height="16" fill="{KEPT}"/>'
        )
        parts.append(
            f'<rect class="lost" data-component="{_e(loss.name)}" x="{left}" y="{y + 4}"'
            f' width="{lost_w:.1f}" height="16" fill="{LOST}"><title>{name}: {loss.mean:.1f}'
            f" of {loss.mean_weight:.0f} lost on an average night, {loss.lost:.1f} in all"
            "</title></rect>"
        )
        parts.append(
            f'<text x="{left + inner_w + 8}" y="{y + 16}">{loss.mean:.1f} of'
            f" {loss.mean_weight:.0f}, {loss.lost:.0f} in all</text>"
        )
    parts.append("</svg>")
    return "".join(parts)

"""The heat colours of a class's scores, shared by the HTML page and the Textual screen.

One hue, light to dark as the grade falls (from ColorBrewer's orange-red sequence; white text on
the two darkest): the order reads by lightness alone, so it holds for people who do not tell red
from green and on a grey-scale printout. Colour is never the only sign: every cell also carries
its number and letter, or the word for a refused or missing save.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from drill.classroom.results import GradedNight


@dataclass(frozen=True)
class Heat:
    key: str  # "A" to "F", "refused" or "missing": the CSS class and the legend's entry
    background: str  # "#rrggbb"
    foreground: str
    meaning: str  # the legend's words


GRADE_HEAT = {
    "A": Heat("A", "#fef0d9", "#1d232a", "A, 90 and up"),
    "B": Heat("B", "#fdcc8a", "#1d232a", "B, 80 to 89"),
    "C": Heat("C", "#fc8d59", "#1d232a", "C, 65 to 79"),
    "D": Heat("D", "#d7301f", "#ffffff", "D, 50 to 64"),
    "F": Heat("F", "#7f0000", "#ffffff", "F, under 50"),
}
REFUSED = Heat("refused", "#5f6670", "#ffffff", "refused: the save did not replay")
MISSING = Heat("missing", "#ffffff", "#667080", "missing: nothing handed in")
HEATS = (*GRADE_HEAT.values(), REFUSED, MISSING)


def heat_of(entry: GradedNight | None) -> Heat:
    """The colour of one learner's night: by its letter, refused or missing."""
    if entry is None:
        return MISSING
    if not entry.verified or entry.total is None:
        return REFUSED
    return GRADE_HEAT.get((entry.grade or "").upper()[:1], GRADE_HEAT["F"])


def cell_text(entry: GradedNight | None) -> str:
    """What a heat cell says, so the cell reads without its colour: `87 B`, `refused`,
    `missing`. The number is rounded down so it agrees with the letter: 89.9 is a B, and
    "90 B" would read as a mistake."""
    if entry is None:
        return "missing"
    if not entry.verified or entry.total is None:
        return "refused"
    return f"{math.floor(entry.total)} {entry.grade or ''}".strip()

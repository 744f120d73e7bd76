"""The night screen's panels, in tab order: (key, label).

Its own module because two places list them: the night screen draws a tab per panel, and the
command palette offers "Show panel: ..." for each. Both import this; neither imports the other.
"""

from __future__ import annotations

PANELS = (
    ("log", "Log"),
    ("map", "Map"),
    ("queue", "Queue"),
    ("training", "Training"),
    ("storage", "Storage"),
    ("pager", "Pager"),
)

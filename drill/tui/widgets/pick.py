"""Clickable names: a node on the map or a job in the queue runs the screen's `pick` action,
which puts the name on the prompt."""

from __future__ import annotations

import re

from rich.style import Style

SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def pick_style(kind: str, name: str, style: Style | None = None) -> Style:
    """`style` plus a click that picks this node or job. Names go into the action string only
    when they are plain letters, digits, dots, dashes and underscores."""
    style = style or Style()
    if not SAFE_NAME.match(name):
        return style
    return style + Style.from_meta({"@click": f"screen.pick('{kind}', '{name}')"})

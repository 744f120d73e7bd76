"""What the commands print: JSON for machines, text for people, never a raw control character.

Text that reaches the terminal can quote a save (the learner's notes and answers, the action
lines), an actions file or an error about either, so it goes through `visible` (drill/
text_safety.py): an escape sequence shows as a sign instead of driving the terminal. JSON needs
nothing more: json.dumps writes every control character as a \\u escape.
"""

from __future__ import annotations

import json
import sys

from drill.text_safety import visible


def print_json(data) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))


def say(text: str, *, err: bool = False) -> None:
    """One message and a newline, on stdout (stderr with `err`)."""
    print(visible(str(text)), file=sys.stderr if err else sys.stdout)


def write(text: str) -> None:
    """A whole document (a runbook, a page) to stdout as it is, bar its control characters."""
    sys.stdout.write(visible(text))

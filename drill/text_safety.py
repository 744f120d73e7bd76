"""Text from a file must never drive the terminal it is shown on.

An incident, a trace or a save is written by someone else (or pasted by the learner), and a
terminal obeys escape sequences wherever they arrive: ESC [2J clears the screen, ESC ]52 writes
the clipboard, a bidi override reorders what a line seems to say. So the loaders refuse control
characters where a file's author can remove them (`first_unsafe`), and everything that prints or
shows a save's text runs it through `visible` first.

Newline and tab are ordinary text and stay. Every other C0 control, DEL, every C1 control and the
bidi embedding, override and isolate controls become one visible character each: the Control
Pictures sign for C0 and DEL (ESC shows as U+241B), U+FFFD for the rest. One character for one
keeps offsets, so a styled Rich Text can be cleaned in place without moving its styles.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_PICTURES = {code: chr(0x2400 + code) for code in range(0x20)} | {0x7F: "\u2421"}


def _picture(match: re.Match[str]) -> str:
    return _PICTURES.get(ord(match.group()), "\ufffd")


def visible(text: str) -> str:
    """`text` with each control character replaced by a visible sign of the same length."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_picture, text)


def first_unsafe(text: str) -> str | None:
    """The first control character in `text` that `visible` would replace, or None."""
    found = _UNSAFE.search(text)
    return found.group() if found else None


def codepoint(char: str) -> str:
    """`U+001B`: how a message names a character that cannot be shown as itself."""
    return f"U+{ord(char):04X}"

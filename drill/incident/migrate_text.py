"""`drill migrate`: rewrite an old incident file in place, keeping its comments and layout.

The migration (drill/incident/migrations.py) works on parsed data; this applies the same
changes to the file's text at the positions the parser recorded, so every comment, blank line
and quoting style the author chose survives. Each edit is checked afterwards: the rewritten text
must load with no migration left to do and give the same incident the old file gave through the
migration. Anything the rewriter cannot place (a key to remove inside a one-line `{...}` mapping,
say) is one line naming the line to edit by hand, and the file is left as it was.
"""

from __future__ import annotations

from drill.incident.errors import IncidentError, Problem
from drill.incident.migrations import Change
from drill.incident.yaml_source import LocatedDocument


def rewrite(text: str, doc: LocatedDocument, changes: list[Change]) -> str:
    """The file's text with every change applied at its recorded position."""
    lines = text.splitlines(keepends=True)
    edits = sorted(changes, key=lambda c: _position(doc, c), reverse=True)
    for change in edits:
        line, col = _position(doc, change)
        if change.action == "drop":
            _drop_block(lines, line, col, doc.filename, change)
        else:
            old = "work_lost" if change.action in ("rename", "replace") else None
            new = str(change.new)
            _replace_token(lines, line, col, old, new, doc.filename, change)
    return "".join(lines)


def _position(doc: LocatedDocument, change: Change) -> tuple[int, int]:
    if change.action in ("rename", "drop"):
        return doc.key_where(change.loc)
    return doc.where(change.loc)


def _replace_token(
    lines: list[str], line: int, col: int, old: str | None, new: str, filename: str, change
) -> None:
    text = lines[line - 1]
    start = col - 1
    quote = text[start] if start < len(text) and text[start] in "'\"" else ""
    token_start = start + len(quote)
    if old is None:  # the schema number
        end = token_start
        while end < len(text) and text[end].isdigit():
            end += 1
        if end == token_start:
            _by_hand(filename, line, col, change)
    else:
        if text[token_start : token_start + len(old)] != old:
            _by_hand(filename, line, col, change)
        end = token_start + len(old)
    lines[line - 1] = text[:token_start] + new + text[end:]


def _drop_block(lines: list[str], line: int, col: int, filename: str, change) -> None:
    """Remove a block-style `key: value` and everything indented under it."""
    text = lines[line - 1]
    before = text[: col - 1]
    if before.strip() or "{" in text[: col - 1]:
        # The key shares its line with a list marker or a flow mapping: removing the line
        # would take other keys with it.
        _by_hand(filename, line, col, change)
    end = line
    while end < len(lines):
        following = lines[end]
        stripped = following.strip()
        indent = len(following) - len(following.lstrip(" "))
        if stripped and indent < col:  # back at the key's own level or above
            break
        end += 1
    # Trailing blank or comment lines belong to whatever comes next.
    while end > line and not lines[end - 1].strip():
        end -= 1
    del lines[line - 1 : end]


def _by_hand(filename: str, line: int, col: int, change: Change) -> None:
    what = "remove" if change.action == "drop" else f"change it to `{change.new}`"
    raise IncidentError(
        [
            Problem(
                filename,
                line,
                col,
                f"drill migrate cannot rewrite this line by itself; {what} here ({change.why})",
            )
        ]
    )

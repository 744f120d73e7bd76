"""Where each key of a course file sits, so that a problem tomllib cannot see (a wrong value, an
unknown key) is still reported at its line. tomllib gives values, not positions; a course file
is flat (top-level keys and [[nights]] tables), so one pass over its lines finds them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TABLE = re.compile(r"^\s*\[\[\s*([A-Za-z0-9_-]+)\s*\]\]")
_SINGLE_TABLE = re.compile(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]")
_KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=""")


@dataclass
class KeyLines:
    """Lines (1-based) of the top-level keys (table None) and of each [[nights]] table's keys."""

    top: dict[str, int] = field(default_factory=dict)
    nights: list[int] = field(default_factory=list)  # where each [[nights]] starts
    night_keys: list[dict[str, int]] = field(default_factory=list)

    def of(self, index: int | None, key: str) -> int:
        """The key's line; its table's (or line 1) when the key is not written."""
        if index is None:
            return self.top.get(key, 1)
        if index < len(self.night_keys):
            return self.night_keys[index].get(key, self.nights[index])
        return 1

    def night(self, index: int) -> int:
        return self.nights[index] if index < len(self.nights) else 1


def key_lines(text: str) -> KeyLines:
    found = KeyLines()
    current: dict[str, int] = found.top
    for number, line in enumerate(text.split("\n"), start=1):
        table = _TABLE.match(line)
        if table:
            if table.group(1) == "nights":
                found.nights.append(number)
                found.night_keys.append({})
                current = found.night_keys[-1]
            continue
        single = _SINGLE_TABLE.match(line)
        if single:
            # A [table] is a top-level key of its own; nothing in it is the course's.
            found.top.setdefault(single.group(1), number)
            current = {}
            continue
        key = _KEY.match(line)
        if key:
            name = next(g for g in key.groups() if g is not None)
            current.setdefault(name, number)
    return found

"""One JSON line of a save, parsed within bounds: a save is data from who knows where.

The standard parser recurses once per nesting level, so a line of a hundred thousand `[` is a
RecursionError, not a message. The nesting depth is measured first, outside strings, and the
line refused above MAX_DEPTH. Every problem is a SaveError at the line, never a traceback, and
never the line's content (it may be anything, a private key included).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from drill.saves.model import SaveError

MAX_LINE_BYTES = 2_000_000  # a score line with the debrief's words is a few kB
MAX_DEPTH = 20  # the deepest line the game writes nests 5 levels (score, components, values)

# Outside a string only a quote or a bracket matters; inside one, the rest of the string is
# skipped in one match of the unrolled loop `[^"\\]*(?:\\.[^"\\]*)*"`, which never backtracks
# into itself. (The alternation `(?:[^"\\]|\\.)*"` tried again from every quote of an
# unterminated string of `\"` pairs: 20 KB took 24 s.)
_TOKEN = re.compile(rb'["\[\]{}]')
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)


class _Refused(ValueError):
    """A JSON value the game never writes (a repeated key, NaN or infinity)."""


def nesting_depth(blob: bytes, limit: int | None = None) -> int:
    """How deep arrays and objects nest, counting only brackets outside strings. Linear: each
    byte is looked at a bounded number of times. Stops once `limit` is passed, and at a string
    that never ends (the line is not JSON, and the parser says so)."""
    depth = deepest = 0
    at = 0
    while True:
        token = _TOKEN.search(blob, at)
        if token is None:
            return deepest
        at = token.end()
        kind = token.group()
        if kind == b'"':
            rest = _STRING_REST.match(blob, at)
            if rest is None:
                return deepest
            at = rest.end()
        elif kind in (b"[", b"{"):
            depth += 1
            if depth > deepest:
                deepest = depth
                if limit is not None and deepest > limit:
                    return deepest
        else:
            depth -= 1


def parse_record(path: str, number: int, blob: bytes) -> dict[str, Any]:
    if len(blob) > MAX_LINE_BYTES:
        raise SaveError(
            path,
            number,
            f"this line is over {MAX_LINE_BYTES // 1_000_000} MB; the game never writes one that"
            " long, so the save was damaged or is not a save",
        )
    if blob.endswith(b"\r"):
        # The game writes "\n" alone and escapes a carriage return inside a string, so a raw
        # one at a line's end is a save converted to CRLF line ends by an editor or a copy.
        raise SaveError(
            path,
            number,
            "this line ends with a carriage return (CRLF line ends); the game writes \\n alone,"
            " so the save was converted or edited: use the original file",
        )
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        raise SaveError(
            path, number, "this line is not UTF-8 text; the save is damaged here"
        ) from None
    if nesting_depth(blob, MAX_DEPTH) > MAX_DEPTH:
        raise SaveError(
            path,
            number,
            f"this line nests arrays or objects more than {MAX_DEPTH} deep; the game never"
            " writes that, so the save was damaged or is not a save",
        )
    try:
        record = json.loads(
            text,
            object_pairs_hook=_no_repeats,
            parse_constant=_no_constant,
            parse_float=_finite,
        )
    except _Refused as exc:
        raise SaveError(path, number, f"{exc}; the save was edited or damaged here") from None
    except json.JSONDecodeError as exc:
        raise SaveError(
            path,
            number,
            f"this line is not valid JSON ({exc.msg} at column {exc.colno}); the save is"
            " damaged here",
        ) from None
    except ValueError:
        # Python refuses integers of thousands of digits; no save holds one.
        raise SaveError(path, number, "this line holds a number too long to be real") from None
    if not isinstance(record, dict):
        raise SaveError(path, number, 'each line must be a JSON object, like {"type": ...}')
    return record


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for key, value in pairs:
        if key in record:
            raise _Refused(f"the key {json.dumps(key)[:60]} appears twice in one object")
        record[key] = value
    return record


def _no_constant(name: str) -> float:
    raise _Refused(f"{name} is not a number a save holds")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("a number too large to be real")
    return value

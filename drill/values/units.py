"""Strict parsing of the units instructors write: durations, clock times, sizes and rates.

Strict on purpose: "10 min" or "20 TBs" is an error with the accepted forms named, never a guess.
"""

from __future__ import annotations

import math
import re

DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")

SIZE_UNITS = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "PB": 10**15,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "PiB": 2**50,
}
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s?([KMGTP]?i?B)$")
RATE_PERIODS = {"s": 1, "m": 60, "h": 3600}

DURATION_HELP = "a duration like 90s, 10m, 1h30m or 2h, or a number of seconds"
CLOCK_HELP = "a time of night like 03:12 or 03:12:30"
SIZE_HELP = "a size like 500GB, 20TB or 1.5TiB"
RATE_HELP = "a rate like 5GB/s or 2TB/h"


class UnitError(ValueError):
    """A value that is not in one of the accepted forms; the message says which forms are."""


def parse_duration(value: str | int | float) -> float:
    """Seconds from '90s', '10m', '1h30m', '2h' or a plain non-negative number of seconds."""
    if isinstance(value, bool):
        raise UnitError(f"expected {DURATION_HELP}, got {value!r}")
    if isinstance(value, int | float):
        if value < 0:
            raise UnitError(f"expected {DURATION_HELP}, got a negative number {value!r}")
        if not math.isfinite(value):  # YAML's .inf and .nan
            raise UnitError(f"expected {DURATION_HELP}, got {value!r}")
        return float(value)
    text = str(value).strip()
    if re.fullmatch(r"\d+(?:\.\d+)?", text):
        return float(text)
    pos = 0
    total = 0.0
    seen: list[str] = []
    for match in _DURATION_PART.finditer(text):
        if match.start() != pos or match.group(2) in seen:
            raise UnitError(f"expected {DURATION_HELP}, got {text!r}")
        seen.append(match.group(2))
        total += float(match.group(1)) * DURATION_UNITS[match.group(2)]
        pos = match.end()
    if pos != len(text) or not seen:
        raise UnitError(f"expected {DURATION_HELP}, got {text!r}")
    return total


def format_duration(seconds: float) -> str:
    """The short form people read: 45s, 12m, 1h05m, 2h."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        minutes, rest = divmod(seconds, 60)
        return f"{minutes}m" if rest == 0 else f"{minutes}m{rest:02d}s"
    hours, rest = divmod(seconds, 3600)
    minutes = rest // 60
    return f"{hours}h" if minutes == 0 else f"{hours}h{minutes:02d}m"


def plural(count: int, noun: str, many: str | None = None) -> str:
    """A count with its noun as a person writes it: "1 node", "2 nodes", "0 checkpoints".
    `many` for a noun that does not just take an s ("1 change", "3 changes" need none)."""
    if count == 1:
        return f"{count} {noun}"
    return f"{count} {many or noun + 's'}"


def parse_clock(value: str) -> int:
    """Seconds after midnight for 'HH:MM' or 'HH:MM:SS'."""
    match = _CLOCK.match(str(value).strip())
    if not match:
        raise UnitError(f"expected {CLOCK_HELP}, got {value!r}")
    hours, minutes, secs = int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)
    if hours > 23 or minutes > 59 or secs > 59:
        raise UnitError(f"expected {CLOCK_HELP}, got {value!r} (out of range)")
    return hours * 3600 + minutes * 60 + secs


def format_clock(seconds_after_midnight: float) -> str:
    total = int(seconds_after_midnight) % 86400
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}"


def parse_size(value: str | int) -> int:
    """Bytes from '500GB', '20TB', '1.5TiB' (decimal and binary units), or a plain byte count."""
    if isinstance(value, bool):
        raise UnitError(f"expected {SIZE_HELP}, got {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise UnitError(f"expected {SIZE_HELP}, got a negative number")
        return value
    text = str(value).strip()
    match = _SIZE.match(text)
    if not match or match.group(2) not in SIZE_UNITS:
        raise UnitError(f"expected {SIZE_HELP}, got {text!r}")
    return int(round(float(match.group(1)) * SIZE_UNITS[match.group(2)]))


def format_size(num_bytes: float) -> str:
    for unit in ("PB", "TB", "GB", "MB", "KB"):
        scale = SIZE_UNITS[unit]
        if abs(num_bytes) >= scale:
            return f"{num_bytes / scale:.1f}{unit}"
    return f"{int(num_bytes)}B"


def parse_rate(value: str) -> float:
    """Bytes per second from '5GB/s', '2TB/h' or '300MB/m'."""
    text = str(value).strip()
    size_text, slash, period = text.partition("/")
    if not slash or period not in RATE_PERIODS:
        raise UnitError(f"expected {RATE_HELP}, got {text!r}")
    try:
        size = parse_size(size_text)
    except UnitError:
        raise UnitError(f"expected {RATE_HELP}, got {text!r}") from None
    return size / RATE_PERIODS[period]


def format_rate(bytes_per_second: float) -> str:
    return f"{format_size(bytes_per_second)}/s"

"""The run-specific values in what real worker processes say, replaced by fixed placeholders.

Why: with `--backend gloo` the survivors of a killed rank raise gloo's own exception, and its
text carries values that belong to this one run of the processes, not to the night: the peer's
ephemeral port (`Connection closed by peer [127.0.0.1]:41360`), a process id, the random name
of a scratch folder. That text becomes an action's result, a timeline line, a page and a
failure reason, so the same inputs gave a different save each run and a gloo save never passed
`drill replay --verify`. Every real text goes through `steady_text` once, where it enters the
engine (GlooTraining.rank_fault), so the save, the timeline, the pages and the screen all hold
the same text.

Only the values change; the wording stays gloo's own, because reading the real error is the
point. Loopback addresses stay as they are here (they are the same on every machine; the
simulation then says them as the stopped rank's node, drill/sim/failures.py); any other address
becomes `<address>`. Source locations such as
`pair.cc:553` are not ports and are kept.

A configured duration (`Timed out waiting 10000ms`) is the real process group timeout, in wall
seconds. That clock stands for the job's collective timeout on the night (`night_timeout`): the
survivors waited the night's collective timeout before they raised, so gloo's line says that
many milliseconds, as it would have in a job that ran with it.
"""

from __future__ import annotations

import os
import re
import tempfile

PORT = "<port>"
PID = "<pid>"
ADDRESS = "<address>"
SCRATCH = "<tmp>"

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
# IPv6 in its usual written forms (with :: and an embedded IPv4 tail), bracketed when it has
# a port, which is how gloo and torch print it.
# The full form, or one with `::`; either may end in an IPv4 tail. `[12:30:45]` (a time) is not
# one of them.
_IPV6 = (
    r"(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}"
    rf"|[0-9A-Fa-f:]*::[0-9A-Fa-f:]*(?:{_IPV4})?)"
)

# `[addr]:port`, `addr:port` and `localhost:port`; the address is group 1 or 2.
_ADDRESS_PORT = re.compile(
    rf"\[({_IPV6}|{_IPV4}|localhost)\]:\d{{1,5}}\b"
    rf"|(?<![\w.:])({_IPV4}|localhost):\d{{1,5}}\b"
)
# An address alone, bracketed or not (no port): only the address part changes.
_ADDRESS = re.compile(rf"(?<![\w.:])(?:{_IPV4})(?!\w|\.\d)|\[(?:{_IPV6})\]")
_PID = re.compile(r"\b(pid|process id)(\s*[=:]?\s*)\d+\b", re.IGNORECASE)
# A Python object's repr carries its memory address.
_OBJECT_AT = re.compile(r"\bat 0x[0-9A-Fa-f]{6,}\b")


def steady_text(text: str) -> str:
    """`text` with ports, process ids, non-loopback addresses, object addresses and scratch
    folders replaced by placeholders; otherwise word for word. Idempotent."""
    text = _scratch_paths().sub(SCRATCH, text)
    text = _ADDRESS_PORT.sub(_address_port, text)
    text = _ADDRESS.sub(_address, text)
    text = _PID.sub(lambda m: f"{m.group(1)}{m.group(2)}{PID}", text)
    return _OBJECT_AT.sub("at 0x<object>", text)


def night_timeout(text: str, wall_s: float, night_s: float) -> str:
    """`text` with gloo's timeout in milliseconds (`waiting 10000ms`) said in the night's
    collective timeout instead of the real process group's: the one clock in night units."""
    wall_ms, night_ms = round(wall_s * 1000), round(night_s * 1000)
    return re.sub(rf"(?<![\d.]){wall_ms}ms\b", f"{night_ms}ms", text)


def _address_port(match: re.Match[str]) -> str:
    whole = match.group(0)
    address = match.group(1) or match.group(2)
    shown = address if _loopback(address) else ADDRESS
    return f"[{shown}]:{PORT}" if whole.startswith("[") else f"{shown}:{PORT}"


def _address(match: re.Match[str]) -> str:
    whole = match.group(0)
    address = whole.strip("[]")
    if _loopback(address):
        return whole
    return f"[{ADDRESS}]" if whole.startswith("[") else ADDRESS


def _loopback(address: str) -> bool:
    address = address.lower()
    if address.startswith("::ffff:"):
        address = address[len("::ffff:") :]
    return address in ("localhost", "::1") or address.startswith("127.")


def _scratch_paths() -> re.Pattern[str]:
    """`TEMP/first-component`: mkdtemp and mkstemp names are random, and TEMP itself differs
    between machines. Built per call: TMPDIR may change between nights (tests set it)."""
    places = {tempfile.gettempdir(), os.environ.get("TMPDIR", ""), "/tmp", "/var/tmp", "/dev/shm"}
    roots = sorted({r.rstrip("/") for r in places if r and r != "/"}, key=len, reverse=True)
    alternatives = "|".join(re.escape(r) for r in roots)
    return re.compile(rf"(?<![\w/.-])(?:{alternatives})/[^/\s:'\"\]\)]+")

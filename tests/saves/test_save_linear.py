"""Reading a save takes time linear in its bytes, whatever the bytes are.

Issue 20: the nesting check's string regex tried again from every quote of an unterminated
string of `\\"` pairs, so 20 KB took 24 s and 80 KB over two minutes, in every command that
reads a save and in the picker. Here hypothesis builds pathological lines (quotes, backslash
runs, strings that never end, deep nesting, huge numbers, long digit runs) at a size n and 4n,
and the CPU time of the larger must stay under 10 times the smaller (a quadratic reader costs
16 times), with a floor so that timings of a millisecond do not flake. Every such line is one
located SaveError, never a hang or a traceback.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.saves import SaveError, read_save
from drill.saves.json_line import nesting_depth, parse_record

N = 4_000  # the quadratic reader took about 1 s here and 15 s at 4N
FLOOR = 0.02  # CPU seconds: below this a ratio is noise

PIECES = [b'"', b"\\", b'\\"', b"\\\\", b"[", b"{", b"]", b"}", b"9", b"e", b".", b"-", b"a", b","]
PREFIXES = [b"", b'{"type": "action", "text": "', b'{"a": ', b'{"a": [', b'{"a": 1.', b"["]


@st.composite
def pathological(draw) -> tuple[bytes, bytes]:
    """A prefix and a short pattern that the line repeats to its size."""
    prefix = draw(st.sampled_from(PREFIXES))
    pattern = b"".join(draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6)))
    return prefix, pattern


def line(prefix: bytes, pattern: bytes, size: int) -> bytes:
    # Never closed: no line here is a whole JSON object, so each must be refused.
    return prefix + pattern * (size // len(pattern) + 1)


def cpu(blob: bytes) -> tuple[float, SaveError | None]:
    best, error = float("inf"), None
    for _ in range(2):  # the better of two: a scheduler hiccup is not the reader's cost
        start = time.process_time()
        try:
            parse_record("night.jsonl", 2, blob)
        except SaveError as exc:
            error = exc
        best = min(best, time.process_time() - start)
    return best, error


@settings(
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(shape=pathological())
def test_reading_a_pathological_line_grows_linearly(shape):
    prefix, pattern = shape
    small, small_error = cpu(line(prefix, pattern, N))
    large, large_error = cpu(line(prefix, pattern, 4 * N))
    for error in (small_error, large_error):
        assert error is not None, "a line that is not a JSON object was accepted"
        assert error.line == 2 and "\n" not in str(error)
    assert large < 10 * max(small, FLOOR), (prefix, pattern, small, large)


def test_the_reported_line_is_refused_in_linear_time():
    """The issue's own case: an unterminated string of `\\"` pairs, 20 KB and 80 KB."""
    times = []
    for size in (20_000, 80_000):
        took, error = cpu(b'{"type": "action", "text": "' + b'\\"' * (size // 2))
        assert error is not None and "not valid JSON" in error.message
        times.append(took)
    assert times[1] < 10 * max(times[0], FLOOR), times
    assert times[1] < 1.0, times


def test_nesting_depth_counts_only_brackets_outside_strings():
    assert nesting_depth(b'{"a": [1, {"b": "[[[{{{"}]}') == 3
    assert nesting_depth(b'{"a": "\\"[[["}') == 1
    assert nesting_depth(b'{"a": "\\\\", "b": [[]]}') == 3
    assert nesting_depth(b'["never ends [[[[') == 1
    assert nesting_depth(b"[" * 1000, limit=20) == 21  # stops once past the limit


def test_a_save_holding_such_a_line_is_one_located_error(tmp_path):
    path = tmp_path / "night.jsonl"
    header = (
        b'{"backend": "sim", "format": 2, "incident_id": "dead-rank", "incident_sha256": "'
        + b"0" * 64
        + b'", "seed": 1, "type": "header"}\n'
    )
    path.write_bytes(header + b'{"type": "action", "text": "' + b'\\"' * 400_000 + b"\n")
    start = time.process_time()
    try:
        read_save(path)
    except SaveError as exc:
        assert exc.line == 2 and "not valid JSON" in exc.message
    else:
        raise AssertionError("read a damaged save")
    assert time.process_time() - start < 2.0

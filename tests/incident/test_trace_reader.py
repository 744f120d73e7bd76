"""A background trace (background.trace) is a file someone else wrote: whatever its bytes, it
loads or it is one located line and exit 2, and reading it costs time linear in its size."""

from __future__ import annotations

import contextlib
import csv
import math
import re
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.incident.trace import TraceError, read_trace
from tests.clikit import run_drill
from tests.drillkit import incident_dict

HEADER = "job_id,user,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu\n"
GOOD = "7,ua,V100,1,120,600,4,1\n"


def night_with_trace(folder, body: bytes):
    (folder / "jobs.csv").write_bytes(body)
    data = incident_dict(background={"utilization": 0, "trace": "jobs.csv"})
    path = folder / "night.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def validate_one_line(path) -> str:
    done = run_drill("validate", str(path), timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_a_field_past_the_csv_limit_is_one_located_line(tmp_path):
    # An unclosed quote swallows the rest of the file into one field, past csv's 128 KB limit.
    body = (HEADER + GOOD + '8,"' + "u" * 200_000 + ",V100,1,1,1,1,1\n").encode()
    line = validate_one_line(night_with_trace(tmp_path, body))
    assert "jobs.csv:3: a field runs on past 128 KB" in line
    assert "close the quote" in line


def test_bad_utf8_names_the_file_line_and_byte(tmp_path):
    body = HEADER.encode() + GOOD.encode() + b"8,u\xff,V100,1,120,600,4,1\n"
    line = validate_one_line(night_with_trace(tmp_path, body))
    assert "jobs.csv:3: byte 0xff at column 4 is not UTF-8; save the trace as UTF-8" in line


@pytest.mark.parametrize(
    "row, message",
    [
        ("8,u,V100,1,nan,600,4,1\n", "infinite or not a number"),
        ("8,u,V100,1,120,inf,4,1\n", "infinite or not a number"),
        ("8,u,V100,1,120,600,4,1e999\n", "infinite or not a number"),
        ("8,u,V100," + "9" * 5000 + ",120,600,4,1\n", "not a number"),
        ("8,u\x1b[2J,V100,1,120,600,4,1\n", "user holds the control character U+001B"),
        ("8\u202e,u,V100,1,120,600,4,1\n", "job_id holds the control character U+202E"),
        ("8," + "u" * 101 + ",V100,1,120,600,4,1\n", "user is too long"),
    ],
)
def test_a_row_the_world_cannot_take_is_refused_at_its_line(tmp_path, row, message):
    path = tmp_path / "jobs.csv"
    path.write_text(HEADER + GOOD + row)
    with pytest.raises(TraceError, match=r"jobs.csv:3: .*" + re.escape(message)):
        read_trace(path)


def test_a_quoted_row_over_several_lines_is_named_by_its_first(tmp_path):
    path = tmp_path / "jobs.csv"
    path.write_text(HEADER + '7,"u\nv",V100,1,120,600,4,1\n' + "8,w,V100,1,x,600,4,1\n")
    with pytest.raises(TraceError, match=r"jobs.csv:4: a number is missing"):
        read_trace(path)


# -- the fuzz: any bytes load or give the located error, never anything else -------------------

NUMBERS = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["", "1e999", "-0", "0x10", "1_000", "9" * 5000, " 1", "NaN", "١٢"]),
)
TEXT = st.one_of(
    st.text(max_size=20),
    st.sampled_from(['"', '""', 'a"b', '"a"b"', "\x00", "\x1b[2J", "\r", "\n", ",", "x" * 140_000]),
)


@st.composite
def traces(draw) -> bytes:
    rows = [HEADER.rstrip("\n").split(",")]
    for _ in range(draw(st.integers(0, 6))):
        width = draw(st.integers(0, 10))
        rows.append(
            [draw(st.one_of(NUMBERS, TEXT)) for _ in range(width)]
            if draw(st.booleans())
            else ["1", "u", "V100", draw(NUMBERS), draw(NUMBERS), draw(NUMBERS), "1", draw(NUMBERS)]
        )
    text = "\n".join(",".join(row) for row in rows)
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"]))
    body = text.encode(encoding, errors="replace")
    cut = draw(st.integers(0, len(body)))
    return draw(st.sampled_from([body, body[:cut], body + draw(st.binary(max_size=50))]))


def check_loads_or_refuses(path) -> None:
    try:
        jobs = read_trace(path)
    except TraceError as exc:
        text = str(exc)
        assert text.startswith(f"{path}:") and "\n" not in text, text
        line = text[len(str(path)) + 1 :].split(":", 1)[0]
        assert line.isdigit() and int(line) >= 1, text
        return
    for job in jobs:
        assert job.instances >= 1
        assert all(math.isfinite(x) and x >= 0 for x in (job.submit, job.duration, job.gpus))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.one_of(traces(), st.binary(max_size=400)))
def test_any_bytes_load_or_give_the_located_error(tmp_path_factory, body):
    path = tmp_path_factory.mktemp("trace") / "jobs.csv"
    path.write_bytes(body)
    check_loads_or_refuses(path)


# -- time linear in the input -----------------------------------------------------------------


def _cpu_seconds(path) -> float:
    best = math.inf
    for _ in range(3):
        start = time.process_time()
        with contextlib.suppress(TraceError):
            read_trace(path)
        best = min(best, time.process_time() - start)
    return best


PATHOLOGICAL = {
    "rows": lambda n: HEADER + GOOD * (n // len(GOOD)),
    "quote pairs": lambda n: HEADER + '7,"' + '""' * (n // 2) + '",V100,1,1,1,1,1\n',
    "unclosed quote": lambda n: HEADER + '7,"' + '\\"' * (n // 2),
    "commas": lambda n: HEADER + "," * n + "\n",
    "newlines": lambda n: HEADER + "\n" * n,
    "long number": lambda n: HEADER + "7,u,V100,1,1,1,1," + "9" * n + "\n",
}


@pytest.mark.parametrize("shape", sorted(PATHOLOGICAL))
def test_reading_time_grows_linearly(tmp_path, shape):
    make = PATHOLOGICAL[shape]
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    size = 120_000  # under the field limit at both sizes where the shape is one field
    small.write_text(make(size))
    large.write_text(make(size * 8))
    assert csv.field_size_limit() > 0
    t_small, t_large = _cpu_seconds(small), _cpu_seconds(large)
    # Eight times the input: linear is about eight times the time; quadratic would be 64.
    assert t_large <= 20 * max(t_small, 0.002), (shape, t_small, t_large)

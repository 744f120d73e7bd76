"""Fuzzing the whole incident loader: arbitrary files and mutated shipped incidents.

Whatever is in the file, `load_incident` either returns an incident or raises IncidentError
whose problems all sit at a real place (line and column 1 or more). When a mutation still
loads, the engine's static checks must answer with Problems, never with an exception.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.static_check import check
from drill.incident.errors import IncidentError, Problem
from drill.incident.loader import LoadedIncident, load_incident

REPO = Path(__file__).resolve().parents[2]
SHIPPED = sorted((REPO / "drill" / "incidents").glob("*.yaml"))
TEXTS = [path.read_text(encoding="utf-8") for path in SHIPPED]

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Pieces that mean something to YAML or to the incident models, so mutations go somewhere.
YAML_BITS = st.sampled_from(
    list(":-[]{},&*!|>'\"#%@`?\n\t ")
    + ["---", "...", "<<: *a", "&a", "*a", "!!python/object/apply:os.system", "!tag", "~"]
    + ["{fault.gpu-dies.node}", "{fault.nope.time}", "03:61", "20 TBs", "10 min", "1e999"]
)
SCALARS = st.one_of(
    st.integers(min_value=-(10**15), max_value=10**15),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.none(),
    st.text(max_size=30),
    st.sampled_from(
        ["0", "-1", "1e9", "10**20", "yes", "no", "null", "03:00", "25:00", "1h", "-5m", "5GB/s"]
        + ["gpu-a-1", "gpu-z-9", "llm-pretrain", "scratch", "[]", "{}", "[a, b]", "{a: 1}", "''"]
    ),
)


def _scalar_text(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value.replace("\n", " ")
    return repr(value)


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A shipped incident with one to three small edits."""
    lines = draw(st.sampled_from(TEXTS)).splitlines(keepends=True)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        if not lines:
            break
        index = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        how = draw(st.sampled_from(["delete", "duplicate", "value", "insert", "indent"]))
        line = lines[index]
        if how == "delete":
            del lines[index]
        elif how == "duplicate":
            lines.insert(index, line)
        elif how == "value" and ": " in line:
            key, _, _ = line.partition(": ")
            lines[index] = f"{key}: {_scalar_text(draw(SCALARS))}\n"
        elif how == "indent":
            lines[index] = " " * draw(st.integers(min_value=0, max_value=6)) + line.lstrip(" ")
        else:
            bits = draw(st.lists(st.one_of(YAML_BITS, st.characters()), min_size=1, max_size=4))
            at = draw(st.integers(min_value=0, max_value=len(line)))
            lines[index] = line[:at] + "".join(bits) + line[at:]
    return "".join(lines)


def write(path: Path, text: str) -> None:
    """UTF-8, except that a lone surrogate becomes bytes that are not UTF-8: also worth trying."""
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))


def load_or_problems(path: Path) -> LoadedIncident | list[Problem]:
    try:
        return load_incident(path)
    except IncidentError as exc:
        assert exc.problems, "an IncidentError must list at least one problem"
        return exc.problems


def assert_located(problems: list[Problem], path: Path) -> None:
    for problem in problems:
        assert isinstance(problem, Problem)
        assert problem.path == str(path)
        assert problem.line >= 1 and problem.col >= 1, problem
        assert problem.message and "\n" not in problem.message, problem
        assert "Traceback" not in problem.message


def exercise(path: Path) -> LoadedIncident | None:
    result = load_or_problems(path)
    if isinstance(result, list):
        assert_located(result, path)
        return None
    found = check(result)
    assert isinstance(found, list)
    assert_located(found, path)
    return result


@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    write(path, text)
    exercise(path)


@FUZZ
@given(text=st.lists(st.one_of(YAML_BITS, st.text(max_size=8)), max_size=60).map("".join))
def test_yaml_shaped_text(tmp_path: Path, text: str) -> None:
    path = tmp_path / "fuzz.yaml"
    write(path, text)
    exercise(path)


@FUZZ
@given(raw=st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(raw)
    exercise(path)


@FUZZ
@given(text=mutated())
def test_mutated_shipped_incidents(tmp_path: Path, text: str) -> None:
    path = tmp_path / "mutated.yaml"
    write(path, text)
    exercise(path)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_incidents_load_and_pass_the_static_checks(path: Path) -> None:
    loaded = exercise(path)
    assert loaded is not None
    assert check(loaded) == []

"""Every broken incident in tests/incident/broken/ gets one clean, located report from the CLI.

Each file is the tutorial incident with one thing broken. `drill validate FILE` must exit 2,
never show a traceback, print only `path:line:col: message` lines on stderr, and name the line
and column the table in broken/expected.txt gives (checked by hand against each file).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from drill.engine.static_check import check
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from tests.clikit import run_drill, run_drill_process

REPO = Path(__file__).resolve().parents[2]
BROKEN = Path(__file__).resolve().parent / "broken"
TABLE = BROKEN / "expected.txt"


@dataclass(frozen=True)
class Expected:
    name: str
    line: int
    col: int
    words: str


def read_table() -> dict[str, Expected]:
    rows: dict[str, Expected] = {}
    for raw in TABLE.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        name, place, words = (part.strip() for part in raw.split("|", 2))
        line, col = place.split(":")
        assert name not in rows, f"{name} is in {TABLE.name} twice"
        rows[name] = Expected(name, int(line), int(col), words)
    return rows


EXPECTED = read_table()


def relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def drill(*args: str) -> subprocess.CompletedProcess:
    return run_drill(*args)


@pytest.fixture(scope="module")
def reports() -> dict[str, subprocess.CompletedProcess]:
    """One `drill validate FILE` per broken file (in this process: see tests/clikit.py)."""
    return {name: drill("validate", relative(BROKEN / name)) for name in sorted(EXPECTED)}


def test_a_real_process_reports_a_broken_file_as_the_in_process_call_does(reports) -> None:
    # The real-process sample of `drill validate`: the same exit code and the same lines.
    name = "alias-bomb.yaml" if "alias-bomb.yaml" in EXPECTED else sorted(EXPECTED)[0]
    there = run_drill_process("validate", relative(BROKEN / name), timeout=60)
    here = reports[name]
    assert (there.returncode, there.stdout, there.stderr) == (
        here.returncode,
        here.stdout,
        here.stderr,
    )


def test_every_broken_file_has_a_row_and_every_row_a_file() -> None:
    on_disk = {path.name for path in BROKEN.glob("*.yaml")}
    assert on_disk == set(EXPECTED), (
        f"files without a row: {sorted(on_disk - set(EXPECTED))};"
        f" rows without a file: {sorted(set(EXPECTED) - on_disk)}"
    )
    assert len(on_disk) >= 32


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_is_reported_where_the_problem_is(
    name: str, reports: dict[str, subprocess.CompletedProcess]
) -> None:
    expected = EXPECTED[name]
    done = reports[name]
    shown = relative(BROKEN / name)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert lines, "no problem reported"
    located = re.compile(rf"^{re.escape(shown)}:\d+:\d+: .+")
    for line in lines:
        assert located.match(line), f"not a path:line:col: message line: {line!r}"
    prefix = f"{shown}:{expected.line}:{expected.col}: "
    hits = [line for line in lines if line.startswith(prefix) and expected.words in line]
    assert hits, f"expected {prefix}...{expected.words}...; got:\n" + "\n".join(lines)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file_is_reported_where_the_problem_is_in_process(name: str) -> None:
    """The same table through the loader and the static checks in this process, the way
    `drill validate` calls them, so coverage and mutation tools see which code each row runs."""
    expected = EXPECTED[name]
    path = BROKEN / name
    try:
        found = check(load_incident(path))
    except IncidentError as exc:
        found = exc.problems
    assert found, "no problem reported"
    assert all(problem.path == str(path) for problem in found), found
    hits = [
        p
        for p in found
        if (p.line, p.col) == (expected.line, expected.col) and expected.words in p.message
    ]
    assert hits, f"expected {expected.line}:{expected.col} ...{expected.words}...; got {found}"


def test_the_table_points_at_real_lines() -> None:
    """A row's line must exist in its file (so a shifted file cannot pass by accident)."""
    for expected in EXPECTED.values():
        raw = (BROKEN / expected.name).read_bytes()
        count = max(1, raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1))
        assert 1 <= expected.line <= count + 1, expected


def test_validating_many_broken_files_at_once_reports_each_of_them() -> None:
    names = sorted(EXPECTED)[:12]
    done = drill("validate", *(relative(BROKEN / name) for name in names))
    assert done.returncode == 2
    assert "Traceback" not in done.stdout + done.stderr
    for name in names:
        assert f"{relative(BROKEN / name)}:" in done.stderr


def test_the_tutorial_they_are_made_from_is_valid() -> None:
    done = drill("validate", "incidents/tutorial.yaml")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""

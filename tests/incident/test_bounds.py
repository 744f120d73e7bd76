"""Numbers an incident may hold: the ones that hung or crashed the engine are refused at their
line with the reason, counts are whole numbers (not `true`), and a night's total work is capped."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident

REPO = Path(__file__).resolve().parents[2]


def with_change(tmp_path: Path, where: tuple, value) -> tuple[Path, int]:
    """The tutorial incident with one value changed; the file and the line of that value."""
    data = yaml.safe_load((REPO / "incidents" / "tutorial.yaml").read_text())
    target = data
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    path = tmp_path / "changed.yaml"
    text = yaml.safe_dump(data, sort_keys=False)
    path.write_text(text)
    key = f"{where[-1]}:"
    lines = text.splitlines()
    # The changed key's line: the first one after its parents' lines.
    start = 0
    for parent in where[:-1]:
        if isinstance(parent, str):
            start = next(
                i for i in range(start, len(lines)) if lines[i].strip().startswith(f"{parent}:")
            )
    line = (
        next(i for i in range(start, len(lines)) if lines[i].strip().lstrip("- ").startswith(key))
        + 1
    )
    return path, line


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        (("cluster", "scheduling_interval"), 0, "use 5s to 1h"),
        (("cluster", "heartbeat_timeout"), 0, "use 10s to 1h"),
        (("jobs", 0, "process_group_timeout"), 0, "use 1s to 30m"),
        (("jobs", 0, "step_time"), 0, "use 1s to 1h"),
        (("jobs", 0, "gpus"), True, "expected an integer, got true"),
        (("jobs", 0, "steps"), True, "expected an integer, got true"),
        (("cluster", "gpus_per_node"), True, "expected an integer, got true"),
        (("jobs", 0, "collective_timeout"), 0, "use 10s to 12h"),
        (("cluster", "mtbf"), "1m", "use 1h to 100000h"),
        (("background", "arrivals_per_hour"), 10_000, "at most 5000"),
        (("scoring",), {"weights": {"recovered": -5}}, "at least 0"),
    ],
    ids=lambda v: str(v) if not isinstance(v, tuple) else ".".join(map(str, v)),
)
def test_numbers_that_stop_or_swamp_a_night_are_located(tmp_path, where, value, words):
    path, line = with_change(tmp_path, where, value)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    problem = caught.value.problems[0]
    assert words in problem.message, problem
    if where[-1] != "scoring":
        assert problem.line == line, (problem, line)


def test_a_night_of_too_many_counted_steps_is_refused(tmp_path):
    data = yaml.safe_load((REPO / "incidents" / "tutorial.yaml").read_text())
    data["night"]["length"] = "12h"
    data["jobs"] += [
        {"name": f"side-{n}", "gpus": 1, "steps": 100000, "step_time": "1s"} for n in range(5)
    ]
    path = tmp_path / "busy.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(IncidentError, match="at most 200000 in one night"):
        load_incident(path)


def test_more_jobs_than_the_engine_runs_in_a_night_are_refused(tmp_path):
    data = yaml.safe_load((REPO / "incidents" / "tutorial.yaml").read_text())
    data["night"]["length"] = "30d"
    data["background"]["arrivals_per_hour"] = 200  # 144,000 jobs over the month
    path = tmp_path / "backlog.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(IncidentError, match="at most 100000 in one night") as caught:
        load_incident(path)
    assert "arrivals_per_hour" in caught.value.problems[0].message


def test_the_learner_job_trains_at_most_what_the_replica_can_in_a_night(tmp_path):
    data = yaml.safe_load((REPO / "incidents" / "tutorial.yaml").read_text())
    data["night"]["length"] = "12h"
    data["jobs"][0].update(steps=100000, step_time="2s")
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(IncidentError, match="replica trains at most 3000"):
        load_incident(path)


def test_validate_reports_a_zero_interval_as_one_located_line(tmp_path):
    from tests.clikit import run_drill

    path, line = with_change(tmp_path, ("cluster", "scheduling_interval"), 0)
    done = run_drill("validate", str(path))
    assert done.returncode == 2
    assert f"{path}:{line}:" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr

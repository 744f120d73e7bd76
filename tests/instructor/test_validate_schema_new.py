"""The instructor's loop, end to end through the real CLI: validate, schema, new, list, test.

Every CLI call is `drill` run from the repository root, the way an instructor runs it (in this
process: tests/clikit.py; tests/incident/test_broken_incidents.py has a real-process sample).
Files the tests write go to tmp_path; saves and caches go where tests/conftest.py points them.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from drill.incident.loader import load_incident
from drill.incident.yaml_source import load_yaml_file
from tests.clikit import run_drill

REPO = Path(__file__).resolve().parents[2]
INCIDENTS = REPO / "drill" / "incidents"
SCHEMA_FILE = INCIDENTS / "schema.json"
SHIPPED = sorted(INCIDENTS.glob("*.yaml"))
SCHEMA_COMMENT = "# yaml-language-server: $schema=./schema.json"
REGENERATE = "run `drill schema -o drill/incidents/schema.json` and commit the result"


def drill(*args: str) -> subprocess.CompletedProcess:
    return run_drill(*args)


def no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def test_there_are_shipped_incidents() -> None:
    assert len(SHIPPED) >= 4
    assert INCIDENTS / "tutorial.yaml" in SHIPPED


# -- validate ---------------------------------------------------------------------------------


def test_validate_the_shipped_folder() -> None:
    done = drill("validate", "incidents/")
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.strip() == f"{len(SHIPPED)} incidents valid"


# -- schema -----------------------------------------------------------------------------------


def test_drill_schema_matches_the_committed_schema() -> None:
    done = drill("schema")
    assert done.returncode == 0, done.stderr
    committed = SCHEMA_FILE.read_text(encoding="utf-8")
    assert done.stdout == committed, (
        "drill/incidents/schema.json is out of date with drill/incident/models.py; " + REGENERATE
    )


def test_drill_schema_output_file_matches_stdout(tmp_path: Path) -> None:
    target = tmp_path / "schema.json"
    done = drill("schema", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert target.read_text(encoding="utf-8") == SCHEMA_FILE.read_text(encoding="utf-8"), REGENERATE


def test_the_schema_is_a_valid_draft_2020_12_schema(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_incident_validates_against_the_schema(path: Path, schema: dict[str, Any]) -> None:
    data = load_yaml_file(path).data
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(e.path))
    shown = [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in errors]
    assert not shown, f"{path.name} does not match drill/incidents/schema.json:\n" + "\n".join(
        shown
    )


def test_the_schema_rejects_an_unknown_key_as_drill_validate_does(schema: dict[str, Any]) -> None:
    data = load_yaml_file(INCIDENTS / "tutorial.yaml").data
    data["dificulty"] = data.pop("difficulty")
    assert list(Draft202012Validator(schema).iter_errors(data)), "the schema lets unknown keys pass"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_incident_starts_with_the_schema_comment(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == SCHEMA_COMMENT, f"{path.name}: the first line should be {SCHEMA_COMMENT!r}"


def _properties(node: Any, where: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (path, property schema) under any `properties` in the schema, however deep."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            found.append((f"{where}.{name}", prop))
        for key, value in node.items():
            found += _properties(value, f"{where}/{key}" if key != "properties" else where)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _properties(value, f"{where}[{index}]")
    return found


def test_every_schema_property_has_a_description(schema: dict[str, Any]) -> None:
    definitions = schema.get("$defs", {})

    def described(prop: dict[str, Any]) -> bool:
        if prop.get("description"):
            return True
        ref = prop.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return bool(definitions.get(ref.removeprefix("#/$defs/"), {}).get("description"))
        return False

    found = _properties(schema, "Incident")
    assert len(found) > 50
    missing = sorted(path for path, prop in found if not described(prop))
    assert not missing, (
        "these incident fields have no description, so editors show nothing for them; add"
        " `description=` in drill/incident/models.py and " + REGENERATE + ":\n" + "\n".join(missing)
    )


# -- new --------------------------------------------------------------------------------------


def test_new_writes_a_starter_that_validates_and_passes_drill_test(tmp_path: Path) -> None:
    target = tmp_path / "x.yaml"
    done = drill("new", "gpu-night", "-o", str(target))
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    assert target.is_file()
    assert load_incident(target).incident.id == "gpu-night"
    first = target.read_text(encoding="utf-8").splitlines()[0]
    ref = first.removeprefix("# yaml-language-server: $schema=")
    assert ref != first, first
    assert (target.parent / ref).resolve() == SCHEMA_FILE.resolve(), first

    checked = drill("validate", str(target))
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr == ""

    tested = drill("test", "--backend", "sim", str(target))
    no_traceback(tested)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "FAIL" not in tested.stdout
    assert "all expectations hold" in tested.stdout


def test_new_from_a_shipped_incident_validates_and_carries_the_new_id(tmp_path: Path) -> None:
    target = tmp_path / "copy.yaml"
    done = drill("new", "rank-dies-again", "--from", "dead-rank", "-o", str(target))
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    checked = drill("validate", str(target))
    assert checked.returncode == 0, checked.stderr
    copy = load_incident(target).incident
    original = load_incident(INCIDENTS / "dead-rank.yaml").incident
    assert copy.id == "rank-dies-again"
    assert copy.title == original.title
    assert copy.faults == original.faults
    assert copy.reference == original.reference
    text = target.read_text(encoding="utf-8")
    assert text.count("# yaml-language-server:") == 1
    assert text.startswith("# yaml-language-server: $schema=")


@pytest.mark.parametrize("bad", ["Bad_Id", "has space", "dots.in.id", "x" * 41, "ünïcode"])
def test_new_refuses_a_bad_id(tmp_path: Path, bad: str) -> None:
    target = tmp_path / "bad.yaml"
    done = drill("new", bad, "-o", str(target))
    no_traceback(done)
    assert done.returncode == 2
    assert done.stderr.startswith("drill: ")
    assert "not an incident id" in done.stderr
    assert not target.exists()


def test_new_refuses_to_overwrite_a_file(tmp_path: Path) -> None:
    target = tmp_path / "taken.yaml"
    target.write_text("# mine\n", encoding="utf-8")
    done = drill("new", "taken", "-o", str(target))
    no_traceback(done)
    assert done.returncode == 2
    assert "already exists" in done.stderr
    assert target.read_text(encoding="utf-8") == "# mine\n"


# -- list -------------------------------------------------------------------------------------


def test_list_json_has_one_object_per_shipped_incident_tutorial_first() -> None:
    done = drill("list", "--json")
    no_traceback(done)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert isinstance(rows, list)
    assert len(rows) == len(SHIPPED)
    expected_ids = {load_incident(path).incident.id for path in SHIPPED}
    assert {row["id"] for row in rows} == expected_ids
    for row in rows:
        assert isinstance(row["id"], str) and row["id"]
        assert isinstance(row["title"], str) and row["title"]
        assert row["difficulty"] in ("tutorial", "easy", "medium", "hard")
        assert isinstance(row["tags"], list)
        assert isinstance(row["faults"], list)
        assert isinstance(row["order"], int)
    assert rows[0]["id"] == "tutorial"
    orders = [row["order"] for row in rows]
    assert orders == sorted(orders)


# -- test -------------------------------------------------------------------------------------


def test_drill_test_passes_the_tutorial() -> None:
    done = drill("test", "--backend", "sim", "incidents/tutorial.yaml")
    no_traceback(done)
    assert done.returncode == 0, done.stdout + done.stderr
    seeds = load_incident(INCIDENTS / "tutorial.yaml").incident.seeds
    for seed in seeds:
        assert f"ok   tutorial seed {seed} reference:" in done.stdout
        assert f"ok   tutorial seed {seed} nothing:" in done.stdout


def test_drill_test_fails_an_impossible_runbook_expectation(tmp_path: Path) -> None:
    text = (INCIDENTS / "tutorial.yaml").read_text(encoding="utf-8")
    graded = "expect: {recovered: true, loses_in: [discipline]}"
    assert text.count(graded) == 1, "the tutorial's graded runbook changed; update this test"
    broken = tmp_path / "tutorial-impossible.yaml"
    broken.write_text(text.replace(graded, "expect: {recovered: false}"), encoding="utf-8")
    assert drill("validate", str(broken)).returncode == 0

    done = drill("test", "--backend", "sim", str(broken))
    no_traceback(done)
    assert done.returncode == 1, done.stdout + done.stderr
    failed = re.findall(
        r"^FAIL tutorial seed (\d+) restart-without-looking: .*"
        r"expected recovered=False, got True.*$",
        done.stdout,
        flags=re.MULTILINE,
    )
    seeds = load_incident(INCIDENTS / "tutorial.yaml").incident.seeds
    assert sorted(int(seed) for seed in failed) == sorted(seeds), done.stdout
    assert f"{len(seeds)} expectations failed" in done.stderr  # a plural, not "expectation(s)"

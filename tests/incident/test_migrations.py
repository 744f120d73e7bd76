"""A schema that keeps its promise: a file of every schema version ever shipped validates,
`drill validate` says what `drill migrate` would change, `drill migrate` rewrites it in place
keeping its comments, and the rewritten file is the same incident at the latest schema.

tests/incident/compat/ holds one valid file per shape that shipped: schema 1 as the first round
wrote it (`loses_in: [work_lost]`), schema 1 as last round wrote it (`scoring.weights.work_lost`
and a `target` on `random_failures`), schema 1 in today's shape, and schema 2.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drill.cli import main
from drill.incident.loader import load_incident
from drill.incident.migrations import LATEST, migrate
from drill.incident.models import SCHEMA_VERSION

COMPAT = Path(__file__).parent / "compat"
FILES = sorted(COMPAT.glob("*.yaml"))
OLD = [path for path in FILES if path.name.startswith("schema-1")]
SHIPPED = sorted((Path(__file__).parents[2] / "drill" / "incidents").glob("*.yaml"))


def test_the_migrations_reach_the_schema_the_models_read():
    assert LATEST == SCHEMA_VERSION


def test_a_file_of_every_shipped_schema_is_kept():
    versions = {load_incident(path).migrated_from or SCHEMA_VERSION for path in FILES}
    assert versions == set(range(1, SCHEMA_VERSION + 1))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_compat_file_validates(path, capsys):
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 incident valid" in out


@pytest.mark.parametrize("path", OLD, ids=[p.name for p in OLD])
def test_validate_on_an_old_file_says_what_migrate_changes(path, capsys):
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert f"written for incident schema 1; it loads through a migration to schema {LATEST}" in out
    assert f"`drill migrate {path}` would change:" in out
    assert f"`schema` becomes {LATEST}" in out


def test_last_rounds_shape_names_each_change_at_its_line(capsys):
    path = COMPAT / "schema-1-last-round.yaml"
    main(["validate", str(path)])
    out = capsys.readouterr().out
    text = path.read_text().splitlines()
    work_lost = next(i for i, line in enumerate(text, 1) if "work_lost:" in line)
    target = next(i for i, line in enumerate(text, 1) if line.strip() == "target:")
    assert f"line {work_lost}: `scoring.weights.work_lost` becomes `progress`" in out
    assert f"line {target}: `faults[0].target` is removed" in out


@pytest.mark.parametrize("path", OLD, ids=[p.name for p in OLD])
def test_migrate_rewrites_in_place_keeping_comments(path, tmp_path, capsys):
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    before = load_incident(copy)
    comments = [line for line in path.read_text().splitlines() if line.lstrip().startswith("#")]
    assert main(["migrate", "--check", str(copy)]) == 1
    assert copy.read_text() == path.read_text(), "--check wrote the file"
    assert main(["migrate", str(copy)]) == 0
    after = load_incident(copy)
    assert after.migration == () and after.migrated_from is None
    assert after.incident == before.incident
    text = copy.read_text()
    assert f"schema: {LATEST}" in text and "work_lost:" not in text and "[work_lost]" not in text
    for comment in comments:
        assert comment in text, f"migrate lost the comment {comment!r}"
    assert main(["migrate", "--check", str(copy)]) == 0, "a migrated file still needs migrating"


def test_migrate_refuses_what_it_cannot_place_and_leaves_the_file(tmp_path, capsys):
    """A key to remove inside a one-line mapping cannot be cut out by lines: one located line,
    exit 2, the file as it was."""
    source = (COMPAT / "schema-1-last-round.yaml").read_text()
    flow = source.replace(
        "    target:\n      job: llm-pretrain\n      select: one\n",
        "    target: {job: llm-pretrain, select: one}\n",
    ).replace(
        "  - id: hardware\n    kind: random_failures\n",
        "  - {id: hardware, kind: random_failures, at: '01:00', duration: 20m, target: {job: llm-pretrain}}\n",
    )
    flow = "\n".join(
        line
        for line in flow.splitlines()
        if line
        not in (
            '    at: "01:00"',
            "    duration: 20m",
            "    target: {job: llm-pretrain, select: one}",
        )
    )
    path = tmp_path / "flow.yaml"
    path.write_text(flow + "\n")
    assert main(["validate", str(path)]) == 0
    capsys.readouterr()
    assert main(["migrate", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{path}:" in err[0] and "cannot rewrite this line" in err[0]
    assert path.read_text() == flow + "\n"


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_a_shipped_file_said_to_be_schema_1_needs_only_its_number(path):
    """Today's shape under the old number: the migration is the version alone."""
    loaded = load_incident(path)
    data = dict(loaded.doc.data)
    data["schema"] = 1
    migrated, changes, version = migrate(data)
    assert version == 1
    assert [c.action for c in changes] == ["version"]
    assert migrated["schema"] == LATEST


def test_a_newer_schema_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "new.yaml"
    path.write_text((COMPAT / "schema-2.yaml").read_text().replace("schema: 2", "schema: 9"))
    assert main(["validate", str(path)]) == 2
    assert "newer than this drill reads" in capsys.readouterr().err


# A schema-1 file shaped wrong where the migration looks (a list as a fault's kind, a number
# as `scoring` or `faults`): the migration leaves it to the models, which say what is wrong in
# one line. It used to stop drill with a traceback (an unhashable kind, `.get` on a number).
_WRONG_SHAPES = {
    "kind-a-list": ("    kind: random_failures\n", "    kind: [random_failures]\n"),
    "scoring-a-number": ("scoring:\n", "scoring: 5\nunused:\n"),
    "faults-a-number": ("faults:\n", "faults: 5\nunused:\n"),
}


@pytest.mark.parametrize("name", sorted(_WRONG_SHAPES))
def test_an_old_file_shaped_wrong_is_refused_in_one_line(name, tmp_path, capsys):
    old, new = _WRONG_SHAPES[name]
    text = (COMPAT / "schema-1-last-round.yaml").read_text()
    assert old in text
    path = tmp_path / f"{name}.yaml"
    path.write_text(text.replace(old, new, 1))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "Traceback" not in err


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["kind", "expect", "loses_in", "weights", "x"]), inner)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.sampled_from(["scoring", "runbooks", "faults", "jobs"]), _JSON),
)
def test_migrating_any_schema_1_data_never_raises(data):
    migrated, changes, version = migrate({"schema": 1, **data})
    assert version == 1 and changes[-1].action == "version"
    assert migrated["schema"] == LATEST

"""Fuzzing the loader: whatever the input, only IncidentError comes out, always located."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.incident.errors import IncidentError
from drill.incident.yaml_source import load_yaml_document, load_yaml_file

FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

VALID = """\
schema: 1
id: dead-rank
title: "A rank dies at 3am"
cluster:
  islands:
    - &isl {name: a, leaves: 2, nodes_per_leaf: 4}
    - *isl
jobs:
  - name: train
    gpus: 8
    yours: true
    step_time: 10s
    checkpoint: {every: 50, keep: 3}
faults:
  - id: f1
    kind: kill_rank
    at: 3:12
    target: {job: train}
base: &base {retries: 2}
more:
  <<: *base
  notes: |
    multi line
    text
"""

# Characters that YAML gives meaning to, so mutations hit the parser's interesting paths.
YAML_BITS = st.sampled_from(
    list(":-[]{},&*!|>'\"#%@`?\n\t ")
    + ["---", "...", "<<", "!!python/object:os.system", "!foo", "*isl", "&x", "~", ".inf"]
    + ["9" * 30, "\x00", "\ud800", "\ufeff", "\x85", "\u2028"]
)


def assert_only_located_problems(load: object, *args: object) -> None:
    try:
        doc = load(*args)  # type: ignore[operator]
    except IncidentError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert problem.line >= 1 and problem.col >= 1, problem
            assert problem.message
        str(exc)
    else:
        check_plain(doc.data)
        doc.where(("jobs", 0, "name"))
        doc.key_where(("nowhere",))


def check_plain(value: object, depth: int = 0) -> None:
    assert depth < 100
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, str)
            check_plain(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            check_plain(item, depth + 1)
    else:
        assert value is None or isinstance(value, str | int | float | bool), type(value)


@FUZZ
@given(st.text(max_size=400))
def test_arbitrary_text(text: str) -> None:
    assert_only_located_problems(load_yaml_document, text, "fuzz.yaml")


@FUZZ
@given(st.lists(st.one_of(YAML_BITS, st.text(max_size=5)), max_size=60).map("".join))
def test_yaml_flavoured_text(text: str) -> None:
    assert_only_located_problems(load_yaml_document, text, "fuzz.yaml")


@FUZZ
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(VALID)),
            st.integers(0, 6),
            st.one_of(YAML_BITS, st.text(max_size=4)),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_mutations_of_a_valid_sample(edits: list[tuple[int, int, str]]) -> None:
    text = VALID
    for start, cut, insert in edits:
        start = min(start, len(text))
        text = text[:start] + insert + text[start + cut :]
    assert_only_located_problems(load_yaml_document, text, "fuzz.yaml")


def test_the_valid_sample_loads() -> None:
    doc = load_yaml_document(VALID, "fuzz.yaml")
    assert doc.data["faults"][0]["at"] == "3:12"
    assert doc.data["more"] == {"retries": 2, "notes": "multi line\ntext\n"}


@FUZZ
@given(st.binary(max_size=400))
def test_arbitrary_bytes_from_a_file(raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(raw)
        assert_only_located_problems(load_yaml_file, path)


@FUZZ
@given(st.binary(max_size=40), st.integers(0, len(VALID)))
def test_bytes_spliced_into_a_valid_file(raw: bytes, where: int) -> None:
    data = VALID.encode("utf-8")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.yaml"
        path.write_bytes(data[:where] + raw + data[where:])
        assert_only_located_problems(load_yaml_file, path)

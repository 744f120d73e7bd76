"""The safe, bounded, located YAML layer under the incident models."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from drill.incident.errors import IncidentError, Problem, format_problem
from drill.incident.yaml_source import (
    EMPTY_FILE_MESSAGE,
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_INT,
    MAX_STRING,
    load_yaml_document,
    load_yaml_file,
)


def problems(text: str) -> list[Problem]:
    with pytest.raises(IncidentError) as info:
        load_yaml_document(text, "x.yaml")
    assert info.value.problems, "an IncidentError must carry at least one problem"
    return info.value.problems


def only(text: str) -> Problem:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


# Problems and their formatting


def test_problem_formats_as_path_line_col_message() -> None:
    problem = Problem("a.yaml", 3, 7, "unknown key 'x'; remove it")
    assert str(problem) == "a.yaml:3:7: unknown key 'x'; remove it"
    assert format_problem("a.yaml", 3, 7, "m") == "a.yaml:3:7: m"


def test_incident_error_lists_one_problem_per_line() -> None:
    error = IncidentError([Problem("a.yaml", 1, 1, "one"), Problem("a.yaml", 2, 3, "two")])
    assert str(error) == "a.yaml:1:1: one\na.yaml:2:3: two"
    assert len(error.problems) == 2


# Plain data and positions

SAMPLE = """\
schema: 1
id: dead-rank
cluster:
  islands:
    - name: a
      leaves: 2
    - name: b
jobs:
  - &train
    name: train
    gpus: 8
  - *train
defaults: &defaults
  retries: 2
  backoff: 30s
job:
  <<: *defaults
  retries: 5
ratio: 0.5
on_call: yes
nothing: ~
"""


def test_loads_plain_python_data() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.filename == "x.yaml"
    assert doc.data["schema"] == 1
    assert doc.data["cluster"]["islands"][1] == {"name": "b"}
    assert doc.data["jobs"][0] == doc.data["jobs"][1] == {"name": "train", "gpus": 8}
    assert doc.data["ratio"] == 0.5
    assert doc.data["on_call"] is True
    assert doc.data["nothing"] is None


def test_merge_keys_follow_safe_load_explicit_keys_win() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.data["job"] == {"retries": 5, "backoff": "30s"}


def test_where_points_at_values_and_key_where_at_keys() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.where(("id",)) == (2, 5)
    assert doc.key_where(("id",)) == (2, 1)
    assert doc.where(("cluster", "islands", 0, "leaves")) == (6, 15)
    assert doc.key_where(("cluster", "islands", 0, "leaves")) == (6, 7)
    assert doc.where(("cluster", "islands", 1)) == (7, 7)
    # A list item has no key; key_where falls back to the value.
    assert doc.key_where(("cluster", "islands", 1)) == (7, 7)
    assert doc.where(()) == (1, 1)


def test_where_falls_back_to_the_nearest_existing_parent() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    # A missing key lands on the mapping that should hold it.
    assert doc.where(("cluster", "islands", 1, "leaves")) == (7, 7)
    assert doc.where(("cluster", "nowhere", 3, "deeper")) == (4, 3)
    assert doc.where(("nowhere",)) == (1, 1)
    assert not doc.has(("nowhere",))
    assert doc.has(("cluster", "islands", 0))


def test_alias_values_are_located_where_the_alias_is_written() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.where(("jobs", 1)) == (12, 5)
    # Inside the aliased mapping, positions are those of the anchored original.
    assert doc.where(("jobs", 1, "gpus")) == (11, 11)


def test_merged_keys_are_located_in_the_merged_mapping() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.key_where(("job", "backoff")) == (15, 3)
    assert doc.key_where(("job", "retries")) == (18, 3)


def test_problem_helper_uses_positions() -> None:
    doc = load_yaml_document(SAMPLE, "x.yaml")
    assert doc.problem(("id",), "bad id; use another") == Problem(
        "x.yaml", 2, 5, "bad id; use another"
    )
    assert doc.problem(("id",), "m", at_key=True).col == 1


def test_yaml_12_choices_keep_clock_times_dates_and_equals_as_text() -> None:
    doc = load_yaml_document("at: 3:12\nday: 2024-01-01\nop: =\nn: 012\nf: 1_000.5\n", "x.yaml")
    assert doc.data == {"at": "3:12", "day": "2024-01-01", "op": "=", "n": 10, "f": 1000.5}


def test_quoted_keys_that_look_like_numbers_are_fine() -> None:
    assert load_yaml_document("'1': a\n\"on\": b\n", "x.yaml").data == {"1": "a", "on": "b"}


def test_explicit_core_tags_are_allowed() -> None:
    doc = load_yaml_document("a: !!str 5\nb: !!int '7'\nc: !!float 2\nd: !!map {x: 1}\n", "x")
    assert doc.data == {"a": "5", "b": 7, "c": 2.0, "d": {"x": 1}}


# Empty files and document count


@pytest.mark.parametrize("text", ["", "   \n\n", "# only a comment\n", "---\n", "--- \n...\n"])
def test_empty_file_is_one_problem_at_1_1(text: str) -> None:
    problem = only(text)
    assert (problem.line, problem.col) == (1, 1)
    assert problem.message == EMPTY_FILE_MESSAGE
    assert "schema: 2" in problem.message


def test_second_document_is_located_at_its_start() -> None:
    problem = only("a: 1\n---\nb: 2\n")
    assert (problem.line, problem.col) == (2, 1)
    assert "exactly one" in problem.message


def test_second_document_is_reported_with_other_problems() -> None:
    found = problems("a: 1\na: 2\n---\nb: 2\n")
    assert [(p.line, p.col) for p in found] == [(2, 1), (3, 1)]


# Duplicate and non-text keys


def test_duplicate_key_is_reported_at_the_second_naming_the_first_line() -> None:
    problem = only("a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n")
    assert (problem.line, problem.col) == (5, 3)
    assert "duplicate key 'c'" in problem.message
    assert "line 3" in problem.message


def test_duplicate_key_in_flow_mapping() -> None:
    problem = only("a: {x: 1, x: 2}\n")
    assert (problem.line, problem.col) == (1, 11)


@pytest.mark.parametrize(
    ("text", "col", "words"),
    [
        ("1: a\n", 1, "number"),
        ("x:\n  ~: a\n", 3, "null"),
        ("x:\n  on: a\n", 3, "true or false"),
        ("x:\n  ? [1, 2]\n  : a\n", 5, "not a list"),
        ("x:\n  ? {a: 1}\n  : a\n", 5, "not a mapping"),
        ("x:\n  ?\n  : a\n", 4, "empty key"),
    ],
)
def test_keys_must_be_text(text: str, col: int, words: str) -> None:
    problem = only(text)
    assert problem.col == col
    assert problem.line == (1 if text.startswith("1") else 2)
    assert words in problem.message
    assert "keys must be text" in problem.message or "key must be text" in problem.message


# Tags: safe semantics only


@pytest.mark.parametrize(
    "text",
    [
        "a: !!python/object/apply:builtins.open ['{path}', 'w']\n",
        "a: !!python/object/new:builtins.open ['{path}', 'w']\n",
        "a: !!python/name:os.system\n",
        "a: !!python/object:builtins.dict {{x: 1}}\n",
        "a: !!python/tuple [1, 2]\n",
    ],
)
def test_python_tags_are_reported_and_never_run(text: str, tmp_path: Path) -> None:
    target = tmp_path / "created"
    problem = only(text.format(path=target))
    assert (problem.line, problem.col) == (1, 4)
    assert "Python tag" in problem.message
    assert not target.exists()


@pytest.mark.parametrize(
    ("text", "col"),
    [
        ("a: !foo bar\n", 4),
        ("a: !foo [1]\n", 4),
        ("a: !!set {x, y}\n", 4),
        ("a: !!binary aGVsbG8=\n", 4),
        ("a: !!timestamp 2024-01-01\n", 4),
        ("a: !<tag:example.com,2000:thing> 1\n", 4),
        ("a: !!omap [x: 1]\n", 4),
    ],
)
def test_unknown_tags_are_located_at_the_tag(text: str, col: int) -> None:
    problem = only(text)
    assert (problem.line, problem.col) == (1, col)
    assert "not supported" in problem.message


def test_core_tag_on_the_wrong_kind_of_node() -> None:
    problem = only("a: !!map 5\n")
    assert "does not fit" in problem.message


@pytest.mark.parametrize("text", ["a: !!int abc\n", "a: !!bool maybe\n", "a: !!float x\n"])
def test_explicit_core_tag_with_wrong_text(text: str) -> None:
    problem = only(text)
    assert (problem.line, problem.col) == (1, 4)
    assert "'" in problem.message and "is not" in problem.message


# Syntax errors


@pytest.mark.parametrize(
    ("text", "line", "col", "hint"),
    [
        ("a: b: c\n", 1, 5, "indentation"),
        ("a:\n\t- b\n", 2, 1, "tabs"),
        ("a: 'abc\nb: 2\n", 1, 4, "not closed"),
        ("a: [1, 2\nb: 3\n", 1, 4, "[ is not closed"),
        ("a: 1\nsteps 120\nc: 2\n", 2, 1, "no ':'"),
        ("a: *nope\n", 1, 4, "anchor"),
        ("a: &x 1\nb: &x 2\n", 2, 4, "anchor"),
        ("a:\n  b: 1\n c: 2\n", 3, 2, "could not parse YAML"),
    ],
)
def test_syntax_errors_are_located_and_short(text: str, line: int, col: int, hint: str) -> None:
    problem = only(text)
    assert (problem.line, problem.col) == (line, col)
    assert problem.message.startswith("could not parse YAML")
    assert hint in problem.message
    assert "\n" not in problem.message


def test_control_character_is_located() -> None:
    problem = only("a: b\nc: d\x07\n")
    assert (problem.line, problem.col) == (2, 5)
    assert "#x0007" in problem.message


# Limits


def test_too_large_text_is_refused_before_parsing() -> None:
    problem = only("a: " + "x" * MAX_FILE_BYTES)
    assert (problem.line, problem.col) == (1, 1)
    assert "KiB" in problem.message


def test_too_large_counts_utf8_bytes() -> None:
    text = "a: '" + "\u00e9" * (MAX_FILE_BYTES // 2) + "'"
    assert "KiB" in only(text).message


def test_too_many_aliases() -> None:
    lines = ["base: &b 1"] + [f"k{i}: *b" for i in range(MAX_ALIASES + 1)]
    problem = only("\n".join(lines) + "\n")
    assert problem.line == MAX_ALIASES + 2
    assert "alias" in problem.message


def test_billion_laughs_is_refused_without_expanding() -> None:
    names = "abcdefghi"
    lines = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for prev, name in zip(names, names[1:], strict=False):
        refs = ", ".join([f"*{prev}"] * 9)
        lines.append(f"{name}: &{name} [{refs}]")
    started = time.perf_counter()
    problem = only("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 2.0
    assert "more than" in problem.message and "aliases" in problem.message


def test_recursive_alias_is_refused() -> None:
    problem = only("a: &a [1, *a]\n")
    assert (problem.line, problem.col) == (1, 11)
    assert "never end" in problem.message


def test_deep_flow_nesting_is_refused_early() -> None:
    depth = 5000
    problem = only("a: " + "[" * depth + "]" * depth + "\n")
    assert problem.line == 1
    assert f"{MAX_DEPTH} levels" in problem.message


def test_deep_block_nesting_is_refused() -> None:
    lines = [" " * (2 * level) + f"k{level}:" for level in range(MAX_DEPTH + 2)]
    problem = only("\n".join(lines) + " 1\n")
    assert f"{MAX_DEPTH} levels" in problem.message


def test_nesting_at_the_limit_is_fine() -> None:
    depth = MAX_DEPTH
    doc = load_yaml_document("[" * depth + "]" * depth, "x")
    assert doc.where((0,) * (depth - 1)) == (1, depth)


def test_depth_through_aliases_is_measured() -> None:
    lines = ["a0: &a0 [[[[[[[[[[1]]]]]]]]]]"]
    for i in range(1, 5):
        lines.append(f"a{i}: &a{i} [[[[[[[[[[*a{i - 1}]]]]]]]]]]")
    assert f"{MAX_DEPTH} levels" in only("\n".join(lines) + "\n").message


def test_long_strings_are_refused() -> None:
    problem = only("a: 1\nb: " + "x" * (MAX_STRING + 1) + "\n")
    assert (problem.line, problem.col) == (2, 4)
    assert str(MAX_STRING) in problem.message


def test_string_at_the_limit_is_fine() -> None:
    assert len(load_yaml_document("a: " + "x" * MAX_STRING, "x").data["a"]) == MAX_STRING


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (f"a: {MAX_INT + 1}\n", "too large"),
        (f"a: -{MAX_INT + 1}\n", "too large"),
        ("a: 0x" + "f" * 20 + "\n", "too large"),
        ("a: " + "9" * 5000 + "\n", "more than"),
        ("a: .inf\n", "finite"),
        ("a: -.inf\n", "finite"),
        ("a: .nan\n", "finite"),
        ("a: 1.0e+999\n", "finite"),
        ("a: 1.0e+13\n", "too large"),
    ],
)
def test_numbers_are_bounded(text: str, words: str) -> None:
    problem = only(text)
    assert (problem.line, problem.col) == (1, 4)
    assert words in problem.message


def test_number_at_the_limit_is_fine() -> None:
    assert load_yaml_document(f"a: {MAX_INT}\nb: -{MAX_INT}\n", "x").data["b"] == -MAX_INT


def test_lone_surrogate_escape_is_refused() -> None:
    assert "surrogate" in only('a: "\\ud800"\n').message


# Everything that can be found is reported, in order


def test_all_problems_are_reported_sorted() -> None:
    text = "b: !foo x\na: .nan\nc: 1\nc: 2\n1: x\n"
    found = problems(text)
    assert [(p.line, p.col) for p in found] == [(1, 4), (2, 4), (4, 1), (5, 1)]
    assert all(p.path == "x.yaml" for p in found)


def test_a_problem_inside_an_aliased_value_is_reported_once() -> None:
    found = problems("a: &a {x: .inf}\nb: *a\nc: *a\n")
    assert len(found) == 1


# Files


def test_load_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.yaml"
    path.write_text("id: x\n", encoding="utf-8")
    assert load_yaml_file(path).data == {"id": "x"}
    assert load_yaml_file(path, "shown.yaml").filename == "shown.yaml"


def test_load_file_with_utf8_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfid: x\n")
    assert load_yaml_file(path).data == {"id": "x"}


def file_problem(path: Path | str) -> Problem:
    with pytest.raises(IncidentError) as info:
        load_yaml_file(path)
    assert len(info.value.problems) == 1
    return info.value.problems[0]


def test_missing_file(tmp_path: Path) -> None:
    problem = file_problem(tmp_path / "nope.yaml")
    assert (problem.line, problem.col) == (1, 1)
    assert "file not found" in problem.message
    assert problem.path.endswith("nope.yaml")


def test_directory(tmp_path: Path) -> None:
    assert "directory" in file_problem(tmp_path).message


def test_invalid_utf8_is_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_bytes(
        "a: 1\nb: \u00e9\xff\n".encode("utf-8", errors="surrogateescape")[:-2] + b"\xff\n"
    )
    problem = file_problem(path)
    assert (problem.line, problem.col) == (2, 5)
    assert "UTF-8" in problem.message


def test_utf16_file(tmp_path: Path) -> None:
    path = tmp_path / "wide.yaml"
    path.write_bytes("a: 1\n".encode("utf-16"))
    assert "UTF-16" in file_problem(path).message


def test_too_large_file(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    assert "KiB" in file_problem(path).message


def test_file_problems_use_the_path(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    assert str(file_problem(path)).startswith(f"{path}:2:1: duplicate key 'a'")


# House rules


def test_incident_layer_never_imports_ui_or_torch() -> None:
    code = (
        "import sys\n"
        "import drill.incident.errors, drill.incident.yaml_source, drill.incident.pydantic_errors\n"
        "bad = [m for m in ('textual', 'rich', 'torch') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)

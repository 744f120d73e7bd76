"""The YAML loader's edges, pinned exactly: limits at and one past the line, where each problem
is reported, which file it names and what it says.

These came out of a mutation run over drill/incident/yaml_source.py (see README.md, "Mutation
testing"): each test kills mutants that the broader tests let live. Expected numbers are worked
out in the comments from the rules, not read back from the code.
"""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest
import yaml

from drill.incident import source_file, yaml_source
from drill.incident.errors import IncidentError, Problem
from drill.incident.yaml_source import (
    MAX_DEPTH,
    MAX_FILE_BYTES,
    MAX_NUMBER_TEXT,
    MAX_VALUES,
    LocatedDocument,
    load_yaml_document,
    load_yaml_file,
)

NAME = "night.yaml"


def problems(text: str) -> list[Problem]:
    with pytest.raises(IncidentError) as info:
        load_yaml_document(text, NAME)
    return info.value.problems


def only(text: str) -> Problem:
    (found,) = problems(text)
    assert found.path == NAME
    return found


def at(text: str) -> tuple[int, int, str]:
    problem = only(text)
    return problem.line, problem.col, problem.message


def file_problem(path: Path | str) -> Problem:
    with pytest.raises(IncidentError) as info:
        load_yaml_file(path)
    (problem,) = info.value.problems
    assert problem.path == str(path)
    return problem


# -- the value count ----------------------------------------------------------------------------
# Every node counts once: each key, each scalar, each list and mapping, the root too. An alias
# counts as the size of what it names, since building the data would copy it.


def sequence_then_key(zeros: int) -> str:
    # The root, key a, `zeros` scalars, the list, key b and its value: zeros + 5 values, counted
    # in that order except that the list and the root are counted once their items are.
    return "a: [" + ", ".join(["0"] * zeros) + "]\nb: 1\n"


def test_exactly_the_value_limit_loads():
    assert load_yaml_document(sequence_then_key(MAX_VALUES - 5), NAME).data["b"] == 1


def test_one_value_past_the_limit_is_refused_at_the_value_that_passed_it():
    # zeros + 5 = MAX + 1: the root, counted last, is the value past the limit.
    line, col, message = at(sequence_then_key(MAX_VALUES - 4))
    assert (line, col) == (1, 1)
    assert message == (
        f"the file holds more than {MAX_VALUES} values; an incident needs far fewer, so split it"
        " up or use fewer aliases"
    )
    # zeros + 5 = MAX + 2: the value of b is already past it, on line 2 at column 4.
    assert at(sequence_then_key(MAX_VALUES - 3))[:2] == (2, 4)


def aliased(uses: int) -> str:
    # key a (1) + the anchored list of 999 zeros (1000) + key b (1) = 1002 before the aliases;
    # each *x adds 1000, so the 49th alias takes the count to 50002.
    return "a: &x [" + ", ".join(["0"] * 999) + "]\nb: [" + ", ".join(["*x"] * uses) + "]\n"


def test_aliases_count_as_what_they_name_and_the_refusal_points_at_the_alias():
    assert len(load_yaml_document(aliased(48), NAME).data["b"]) == 48
    line, col, message = at(aliased(49))
    # "b: [" is 4 characters, then each "*x, " is 4 more: alias k starts at column 1 + 4k.
    assert (line, col) == (2, 1 + 4 * 49)
    assert "values once its aliases are expanded;" in message


# -- nesting ------------------------------------------------------------------------------------


def test_depth_is_counted_down_again_when_a_collection_closes():
    # Siblings do not add up: forty lists side by side at depth 3 are fine.
    text = "a:\n" + "".join(f"  k{i}: [1]\n" for i in range(40))
    assert len(load_yaml_document(text, NAME).data["a"]) == 40
    # Levels: the root 1, x 2, then b's lists 3 to 33; the 31st "[" opens level 33. It is
    # refused right there (line 3, column 6 + 30), even after the closed list of a.
    text = "x:\n  a: []\n  b: " + "[" * 31 + "]" * 31 + "\n"
    line, col, message = at(text)
    assert (line, col) == (3, 36)
    assert message == (
        f"values are nested more than {MAX_DEPTH} levels deep; an incident needs only a few"
        " levels, so flatten this part"
    )
    assert load_yaml_document("x:\n  a: []\n  b: " + "[" * 30 + "]" * 30 + "\n", NAME)


def test_a_scalar_adds_no_level():
    assert load_yaml_document("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH, NAME).data
    assert at("[" * (MAX_DEPTH + 1) + "1" + "]" * (MAX_DEPTH + 1))[:2] == (1, MAX_DEPTH + 1)


def test_depth_through_aliases_is_reported_where_the_deep_value_starts():
    # a0 is 10 lists around 1, so 10 levels tall; each a(i) wraps a(i-1) in 10 more, so a2 is
    # 30 tall. a3's lists are measured from the inside out: the 10th "[" holds 31 levels, the
    # 9th 32 and the 8th (column 9 + 7) 33, the first one over the limit.
    lines = ["a0: &a0 [[[[[[[[[[1]]]]]]]]]]"]
    for i in range(1, 4):
        lines.append(f"a{i}: &a{i} [[[[[[[[[[*a{i - 1}]]]]]]]]]]")
    line, col, message = at("\n".join(lines) + "\n")
    assert (line, col) == (4, 16)
    assert f"{MAX_DEPTH} levels" in message


# -- where values are ---------------------------------------------------------------------------


def test_an_aliased_mapping_value_is_located_at_the_alias():
    doc = load_yaml_document("base: &b {x: 1}\njob:\n  one: *b\n  two: *b\n", NAME)
    assert doc.where(("job", "one")) == (3, 8)
    assert doc.where(("job", "two")) == (4, 8)
    assert doc.where(("base",)) == (1, 7)


def test_a_document_without_positions_points_at_1_1():
    empty = LocatedDocument({}, NAME, {}, {})
    assert empty.where(("anything", 0)) == (1, 1)
    assert empty.key_where(("anything",)) == (1, 1)
    assert yaml_source._position(None) == (1, 1)


# -- merge keys and duplicates ------------------------------------------------------------------


def test_a_second_merge_key_is_a_duplicate_and_the_rest_still_loads():
    text = "b: &b {x: 1}\nc: &c {y: 2}\na:\n  <<: *b\n  <<: *c\n  z: 3\n  z: 4\n"
    found = problems(text)
    assert [str(p) for p in found] == [
        f"{NAME}:5:3: duplicate key '<<': it is already set on line 4; keep only one of them",
        f"{NAME}:7:3: duplicate key 'z': it is already set on line 6; keep only one of them",
    ]


def test_a_duplicate_names_the_line_of_the_first_key_not_of_its_value():
    assert at("a:\n  - 1\na: 2\n")[2] == (
        "duplicate key 'a': it is already set on line 1; keep only one of them"
    )


def test_keys_after_an_invalid_key_are_still_checked():
    found = problems("1: x\n2: y\nok: 1\nok: 2\n")
    assert [(p.line, p.col) for p in found] == [(1, 1), (2, 1), (4, 1)]


@pytest.mark.parametrize("value", ["[*b, 1]", "5", "''"])
def test_a_merge_key_needs_mappings(value: str):
    line, col, message = at(f"b: &b {{x: 1}}\na:\n  <<: {value}\n")
    assert (line, col) == (3, 7)
    assert message == (
        "a merge key '<<' needs a mapping or a list of mappings (usually *name);"
        " point it at a mapping anchored with &name"
    )


def test_an_empty_merge_list_merges_nothing():
    assert load_yaml_document("a:\n  <<: []\n  z: 1\n", NAME).data == {"a": {"z": 1}}


# -- keys ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x:\n  ?\n  : a\n", "an empty key; keys must be text, so write a name before the colon"),
        ("x:\n  ~: a\n", "key '~' reads as null; keys must be text, so put it in quotes"),
        (
            "x:\n  on: a\n",
            "key 'on' reads as true or false; keys must be text, so put it in quotes: 'on'",
        ),
        (
            "x:\n  12: a\n",
            "key '12' reads as a number; keys must be text, so put it in quotes: '12'",
        ),
    ],
)
def test_key_messages(text: str, message: str):
    assert at(text)[2] == message


# -- tags and scalars ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: !!map [1]\n", "tag !!map does not fit a list; remove the tag"),
        ("a: !!seq {b: 1}\n", "tag !!seq does not fit a mapping; remove the tag"),
        ("a: !!seq x\n", "tag !!seq does not fit a plain value; remove the tag"),
        (
            "a: !foo x\n",
            "tag !foo is not supported; incident files use plain YAML values without tags,"
            " so remove it",
        ),
        (
            "a: !!python/name:os.system x\n",
            "Python tag !!python/name:os.system is not allowed; incident files hold plain values"
            " only, so remove the tag",
        ),
    ],
)
def test_tag_messages(text: str, message: str):
    assert at(text) == (1, 4, message)


def test_a_long_tag_is_clipped_to_forty_characters():
    message = at("a: !" + "y" * 50 + " 1\n")[2]
    assert message.startswith("tag !" + "y" * 36 + "... is not supported")
    assert yaml_source._clip("z" * 40) == "z" * 40
    assert yaml_source._clip("z" * 41) == "z" * 37 + "..."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: !!int ''\n", "an integer"),
        ("a: !!int '-'\n", "an integer"),
        ("a: !!int '+'\n", "an integer"),
        ("a: !!int _\n", "an integer"),
        ("a: !!int '-_'\n", "an integer"),
        ("a: !!float '+'\n", "a number"),
        ("a: !!float _\n", "a number"),
        ("a: !!int abc\n", "an integer"),
        ("a: !!float x\n", "a number"),
        ("a: !!bool maybe\n", "true or false"),
        ("a: !!bool ''\n", "true or false"),
    ],
)
def test_text_an_explicit_tag_cannot_make_is_a_located_problem(text: str, expected: str):
    line, col, message = at(text)
    written = text.split(" ", 2)[2].strip().strip("'")
    assert (line, col) == (1, 4)
    assert message == f"'{written}' is not {expected}; write {expected} or drop the tag"


def test_signed_numbers_keep_their_sign():
    doc = load_yaml_document("a: -5\nb: +7\nc: !!int -5\nd: -2.5\ne: !!float -_1\n", NAME)
    assert doc.data == {"a": -5, "b": 7, "c": -5, "d": -2.5, "e": -1.0}


def test_a_number_written_with_exactly_the_limit_of_characters_is_judged_by_its_size():
    longest = "1" + "0" * (MAX_NUMBER_TEXT - 1)
    assert "too large" in at(f"a: {longest}\n")[2]
    assert f"more than {MAX_NUMBER_TEXT} characters" in at(f"a: {longest}0\n")[2]


def test_a_lone_surrogate_is_located_whatever_the_tag():
    assert at('x: 1\nb: "\\ud800"\n')[:2] == (2, 4)
    assert at('a: !!merge "\\ud800"\n')[:2] == (1, 4)
    found = problems('a: !foo "\\ud800"\n')
    assert [(p.line, p.col) for p in found] == [(1, 4), (1, 4)]
    assert "surrogate" in found[1].message or "surrogate" in found[0].message


# -- the implicit types (built once, when the module loads) -------------------------------------


def test_the_implicit_type_table_drops_timestamps_equals_and_base_60():
    table = yaml_source._implicit_resolvers()
    assert table == yaml_source.BoundedSafeLoader.yaml_implicit_resolvers
    tags = {tag for entries in table.values() for tag, _ in entries}
    assert yaml_source.TIMESTAMP_TAG not in tags and yaml_source.VALUE_TAG not in tags
    assert {yaml_source.INT_TAG, yaml_source.FLOAT_TAG, yaml_source.BOOL_TAG} <= tags
    for entries in table.values():
        for tag, regexp in entries:
            if tag == yaml_source.INT_TAG:
                assert regexp is yaml_source._INT_RE
            if tag == yaml_source.FLOAT_TAG:
                assert regexp is yaml_source._FLOAT_RE
    # Everything SafeLoader resolves besides those still resolves the same way.
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = [
            t for t, _ in entries if t not in (yaml_source.TIMESTAMP_TAG, yaml_source.VALUE_TAG)
        ]
        assert [t for t, _ in table[first]] == kept


# -- syntax errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        (
            "a: {x: 1, y\n",
            1,
            4,
            "this { is not closed (PyYAML noticed on line 2); close it with } after the last item",
        ),
        (
            "a: [1, 2\nb: 3\n",
            1,
            4,
            "this [ is not closed (PyYAML noticed on line 2); close it with ] after the last item",
        ),
        (
            'a: "abc\n\nb: 1\n',
            1,
            4,
            "this quote is not closed (PyYAML noticed on line 4); end the text with the same"
            " quote mark",
        ),
        (
            "a: 1\nsteps 120\nc: 2\n",
            2,
            1,
            "this key has no ':' after it; write 'key: value', and check the indentation against"
            " the line above (PyYAML noticed on line 3)",
        ),
        (
            "a: 1\nsteps",
            2,
            1,
            "this key has no ':' after it; write 'key: value', and check the indentation against"
            " the line above",
        ),
        (
            "a:\n  b: 1\n c: 2\n",
            3,
            2,
            "expected <block end>, but found '<block mapping start>' (while parsing a block"
            " mapping on line 1); line up items of the same list or mapping in the same column",
        ),
        (
            "- a\n- b: [\n",
            3,
            1,
            "expected the node content, but found '<stream end>'; check the indentation, colons"
            " and quotes near this line",
        ),
        (
            "a: [1, 2}\n",
            1,
            9,
            "expected ',' or ']', but got '}'; separate items with commas and close the list"
            " with ]",
        ),
    ],
)
def test_syntax_error_messages(text: str, line: int, col: int, message: str):
    assert at(text) == (line, col, f"could not parse YAML: {message}")


def test_a_control_character_is_located_on_its_own_line():
    assert at("a: 1\nb: 2\nc: x\x07\n")[:2] == (3, 5)
    assert at("\x07a: 1\n")[:2] == (1, 1)


def test_a_yaml_error_without_a_place_is_still_a_problem_in_the_file():
    problem = yaml_source._yaml_error_problem(yaml.YAMLError("odd"), "", NAME)
    assert problem == Problem(
        NAME, 1, 1, "could not parse YAML; check the indentation, colons and quotes"
    )


# -- size limits --------------------------------------------------------------------------------


def test_text_of_exactly_the_size_limit_loads_and_one_byte_more_does_not():
    # The limit is on UTF-8 bytes: a comment of e-acute (2 bytes each) fills it with fewer
    # characters than bytes, then one line of data.
    tail = "\nz: 1"
    fill = MAX_FILE_BYTES - len(tail) - 1  # the "#"
    exact = "#" + "\u00e9" * (fill // 2) + "x" * (fill % 2) + tail
    assert len(exact.encode()) == MAX_FILE_BYTES
    assert load_yaml_document(exact, NAME).data == {"z": 1}
    over = "#x" + exact[1:]
    assert len(over.encode()) == MAX_FILE_BYTES + 1
    assert at(over) == (
        1,
        1,
        f"the file is larger than 256 KiB ({MAX_FILE_BYTES + 1} bytes or more); an incident"
        " file should be a few KiB, so check that this is the right file",
    )
    # Counted in characters first, so a huge text is refused before it is even encoded.
    ascii_exact = "#" * (MAX_FILE_BYTES - len(tail)) + tail
    assert len(ascii_exact) == MAX_FILE_BYTES
    assert load_yaml_document(ascii_exact, NAME).data == {"z": 1}
    assert f"({MAX_FILE_BYTES + 1} bytes or more)" in at("#" + ascii_exact)[2]


def test_a_file_of_exactly_the_limit_is_read_to_its_last_byte(tmp_path: Path):
    path = tmp_path / "exact.yaml"
    tail = "\nz: 12345"
    path.write_bytes(b"#" * (MAX_FILE_BYTES - len(tail)) + tail.encode())
    assert path.stat().st_size == MAX_FILE_BYTES
    assert load_yaml_file(path).data == {"z": 12345}
    path.write_bytes(b"#" * (MAX_FILE_BYTES + 1))
    assert f"({MAX_FILE_BYTES + 1} bytes or more)" in file_problem(path).message


# -- files --------------------------------------------------------------------------------------


def test_every_file_problem_names_the_file(tmp_path: Path):
    cases = {
        "directory": (tmp_path, "this is a directory, not a file; give the path of a .yaml file"),
        "missing": (tmp_path / "nope.yaml", "file not found; check the path and the file name"),
    }
    (tmp_path / "wide.yaml").write_bytes("a: 1\n".encode("utf-16-le").join([b"\xff\xfe", b""]))
    (tmp_path / "wide-be.yaml").write_bytes(b"\xfe\xff" + "a: 1\n".encode("utf-16-be"))
    for name in ("wide.yaml", "wide-be.yaml"):
        cases[name] = (tmp_path / name, "the file is saved as UTF-16; save it as UTF-8")
    (tmp_path / "empty.yaml").write_bytes(b"")
    cases["empty"] = (tmp_path / "empty.yaml", yaml_source.EMPTY_FILE_MESSAGE)
    (tmp_path / "syntax.yaml").write_text("a: b: c\n")
    cases["syntax"] = (tmp_path / "syntax.yaml", "could not parse YAML: mapping values")
    (tmp_path / "deep.yaml").write_text("[" * 40 + "]" * 40)
    cases["deep"] = (tmp_path / "deep.yaml", "values are nested more than")
    for what, (path, message) in cases.items():
        problem = file_problem(path)
        assert problem.message.startswith(message), (what, problem)


def test_a_fifo_is_not_a_regular_file(tmp_path: Path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert file_problem(fifo).message == (
        "this is not a regular file; give the path of a .yaml file"
    )


def test_a_symlink_loop_says_what_the_system_said(tmp_path: Path):
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    assert file_problem(loop).message == (
        "could not read the file (Too many levels of symbolic links); check the path"
    )


def test_a_path_with_a_nul_byte_is_a_problem_not_a_crash():
    assert file_problem("bad\0name.yaml").message == (
        "could not read the file (ValueError); check the path"
    )


def test_permission_denied(tmp_path: Path, monkeypatch):
    # Tests run as root here, and root reads any file; the refusal the kernel would give a user
    # is handed to the loader's open() instead.
    path = tmp_path / "locked.yaml"
    path.write_text("a: 1\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(source_file, "open", refuse, raising=False)
    assert file_problem(path).message == (
        "permission denied when reading the file; check its permissions"
    )


def test_a_bad_byte_is_located_on_its_own_line(tmp_path: Path):
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"a: 1\nb: 2\nc: xy\xff\n")
    problem = file_problem(path)
    assert (problem.line, problem.col) == (3, 6)
    assert problem.message == "byte 0xff is not valid UTF-8; save the file as UTF-8"


# -- the words of the limits --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "base: &b 1\n" + "".join(f"k{i}: *b\n" for i in range(101)),
            "more than 100 alias uses (*name) in one file; write the values out or share fewer"
            " of them",
        ),
        (
            "a: &a [1, *a]\n",
            "alias *a is used inside the value its anchor names, which would never end; point it"
            " at a value defined earlier",
        ),
        (
            "a: " + "x" * 10_001,
            "this text is 10001 characters long; the limit is 10000, so shorten it",
        ),
        (
            'a: "\\ud800"\n',
            "this text holds a lone surrogate escape (like \\ud800); write the character itself"
            " or a full \\U escape",
        ),
        (
            "a: b\x07\n",
            "character #x0007 is a control character, which an incident never needs; remove it",
        ),
    ],
    ids=["aliases", "recursive-alias", "long-text", "surrogate", "control-character"],
)
def test_limit_messages(text: str, message: str):
    assert at(text)[2] == message


# -- a file that changes between the look and the read ------------------------------------------


def pretend_small_regular_file(monkeypatch, size: int = 10) -> None:
    """os.stat as it answered a moment before the file changed: a small regular file."""
    real = os.stat

    class Small:
        def __init__(self, info):
            self.st_mode = (info.st_mode & ~0o170000) | 0o100000
            self.st_size = size

    # Only the loader's view of os changes; everything else keeps the real one.
    shim = types.SimpleNamespace(**vars(os))
    shim.stat = lambda path: Small(real(path))
    monkeypatch.setattr(source_file, "os", shim)


def test_a_file_that_grew_after_the_size_check_is_still_refused(tmp_path: Path, monkeypatch):
    path = tmp_path / "grown.yaml"
    path.write_bytes(b"#" * (MAX_FILE_BYTES + 10))
    pretend_small_regular_file(monkeypatch)
    problem = file_problem(path)
    # It stops reading one byte past the limit, so that is the size it can vouch for.
    assert problem.message == (
        f"the file is larger than 256 KiB ({MAX_FILE_BYTES + 1} bytes or more); an incident"
        " file should be a few KiB, so check that this is the right file"
    )


def test_a_file_that_became_a_directory_is_a_located_problem(tmp_path: Path, monkeypatch):
    folder = tmp_path / "was-a-file.yaml"
    folder.mkdir()
    pretend_small_regular_file(monkeypatch)
    assert file_problem(folder).message == (
        "this is a directory, not a file; give the path of a .yaml file"
    )


# -- one document -------------------------------------------------------------------------------


def test_a_second_document_message():
    assert at("a: 1\n--- [\n") == (
        2,
        1,
        "a second YAML document starts here; an incident file holds exactly one, so remove this"
        " '---' and what follows or move it to its own file",
    )


def test_a_syntax_error_after_the_document_ends_is_located_in_the_file():
    assert at("a: 1\n... x\n") == (
        2,
        5,
        "could not parse YAML: expected '<document start>', but found '<scalar>'; check the"
        " indentation, colons and quotes near this line",
    )
    assert at("a: 1\n...\n\x07\n")[:2] == (3, 1)


def test_an_empty_first_document_and_a_second_one_are_both_reported_in_the_file():
    found = problems("---\n---\nb: 1\n")
    assert [(p.path, p.line, p.col) for p in found] == [(NAME, 1, 1), (NAME, 2, 1)]
    assert found[0].message == yaml_source.EMPTY_FILE_MESSAGE


def test_a_document_that_is_an_empty_string_is_not_an_empty_file():
    # Only a document with nothing in it is empty; '' is a value (the models then refuse it).
    assert load_yaml_document("''", NAME).data == ""

"""Pydantic errors turned into located, plain-English problems."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from drill.incident.errors import Problem
from drill.incident.pydantic_errors import allowed_keys_for, problems_from_validation_error
from drill.incident.yaml_source import load_yaml_document


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Color(Enum):
    red = "red"
    blue = "blue"


class Kill(Strict):
    kind: Literal["kill"]
    rank: int = 0


class Hang(Strict):
    kind: Literal["hang"]
    seconds: float = 1.0


class Target(Strict):
    job: str | None = None
    select: Literal["one", "all"] = "one"


def _positive(value: int) -> int:
    if value < 0:
        raise ValueError("steps must not be negative; use 0 or more")
    return value


class Job(Strict):
    name: str = Field(min_length=2, max_length=8)
    gpus: int = Field(gt=0, le=64)
    share: float = Field(0.5, ge=0, lt=1)
    yours: bool = False
    steps: Annotated[int, AfterValidator(_positive)] = 10
    pattern: str = Field("ok", pattern=r"^[a-z]+$")


class Doc(Strict):
    schema_version: int = Field(alias="schema")
    color: Color = Color.red
    level: Literal["easy", "medium", "hard"] = "easy"
    jobs: list[Job] = Field(default_factory=list, max_length=2)
    faults: list[Annotated[Kill | Hang, Field(discriminator="kind")]] = []
    target: Target | str = "none"
    replica: dict[str, int | float] = {}
    tags: list[str] = Field(default_factory=list, min_length=0)


def check(text: str, model: type[BaseModel] = Doc, *, keys: bool = True) -> list[Problem]:
    doc = load_yaml_document(text, "t.yaml")
    with pytest.raises(ValidationError) as info:
        model.model_validate(doc.data)
    allowed = allowed_keys_for(model) if keys else None
    return problems_from_validation_error(info.value, doc, "t.yaml", allowed)


def one(text: str, model: type[BaseModel] = Doc, *, keys: bool = True) -> Problem:
    found = check(text, model, keys=keys)
    assert len(found) == 1, found
    return found[0]


def at(problem: Problem) -> tuple[int, int]:
    return (problem.line, problem.col)


def test_missing_key_is_reported_at_the_parent_mapping() -> None:
    problem = one("schema: 2\njobs:\n  - name: ab\n")
    assert at(problem) == (3, 5)
    assert problem.message == "missing required key 'gpus'; add 'gpus: ...' to this mapping"


def test_missing_key_uses_the_alias_name() -> None:
    problem = one("level: easy\n")
    assert at(problem) == (1, 1)
    assert "missing required key 'schema'" in problem.message


def test_unknown_key_with_did_you_mean() -> None:
    problem = one("schema: 2\njobs:\n  - name: ab\n    gpus: 1\n    yuors: true\n")
    assert at(problem) == (5, 5)
    assert problem.message == "unknown key 'yuors'; did you mean 'yours'?"


def test_unknown_key_lists_allowed_keys_when_nothing_is_close() -> None:
    problem = one("schema: 2\ntarget: {zzz: 1}\n")
    assert at(problem) == (2, 10)
    assert problem.message == "unknown key 'zzz'; allowed keys here are job, select"


def test_unknown_key_without_a_callback() -> None:
    problem = one("schema: 2\nlevl: easy\n", keys=False)
    assert at(problem) == (2, 1)
    assert problem.message == "unknown key 'levl'; check the spelling or remove it"


def test_unknown_key_inside_a_tagged_union_uses_the_right_member() -> None:
    problem = one("schema: 2\nfaults:\n  - kind: hang\n    secnds: 3\n")
    assert at(problem) == (4, 5)
    assert problem.message == "unknown key 'secnds'; did you mean 'seconds'?"


@pytest.mark.parametrize(
    ("text", "position", "message"),
    [
        ("schema: abc\n", (1, 9), "expected an integer, got 'abc'"),
        ("schema: 1.5\n", (1, 9), "expected a whole number, got 1.5"),
        ("schema: [1]\n", (1, 9), "expected an integer, got a list"),
        ("schema:\n", (1, 8), "expected an integer, got nothing (an empty value)"),
        (
            "schema: 2\njobs: [{name: ab, gpus: 1, share: lots}]\n",
            (2, 35),
            "expected a number, got 'lots'",
        ),
        (
            "schema: 2\njobs: [{name: ab, gpus: 1, yours: maybe}]\n",
            (2, 35),
            "expected true or false, got 'maybe'",
        ),
        (
            "schema: 2\ntags: [a, 5]\n",
            (2, 11),
            "expected text, got 5; put it in quotes if it is meant as text",
        ),
        ("schema: 2\njobs: {a: 1}\n", (2, 7), "expected a list, got a mapping"),
        ("[1]\n", (1, 1), "expected a mapping (key: value lines), got a list"),
    ],
)
def test_type_errors_read_plainly(text: str, position: tuple[int, int], message: str) -> None:
    problem = one(text)
    assert at(problem) == position
    assert problem.message == message


def test_literal_lists_allowed_values_and_suggests() -> None:
    problem = one("schema: 2\nlevel: hardd\n")
    assert at(problem) == (2, 8)
    assert problem.message == (
        "expected 'easy', 'medium' or 'hard', got 'hardd'; did you mean 'hard'?"
    )


def test_enum_lists_allowed_values() -> None:
    problem = one("schema: 2\ncolor: green\n")
    assert problem.message == "expected 'red' or 'blue', got 'green'"


@pytest.mark.parametrize(
    ("job", "message"),
    [
        ("{name: ab, gpus: 0}", "expected a number greater than 0, got 0"),
        ("{name: ab, gpus: 65}", "expected a number of at most 64, got 65"),
        ("{name: ab, gpus: 1, share: -1}", "expected a number of at least 0, got -1"),
        ("{name: ab, gpus: 1, share: 1}", "expected a number less than 1, got 1"),
        ("{name: a, gpus: 1}", "this text is too short; use at least 2 characters"),
        (
            "{name: abcdefghij, gpus: 1}",
            "this text is 10 characters long; use at most 8 characters",
        ),
        ("{name: ab, gpus: 1, steps: -1}", "steps must not be negative; use 0 or more"),
        (
            "{name: ab, gpus: 1, pattern: A1}",
            "'A1' does not have the expected form; it must match the pattern ^[a-z]+$",
        ),
    ],
)
def test_constraints_read_plainly(job: str, message: str) -> None:
    assert one(f"schema: 2\njobs:\n  - {job}\n").message == message


def test_too_long_list() -> None:
    problem = one("schema: 2\njobs:\n" + "  - {name: ab, gpus: 1}\n" * 3)
    assert at(problem) == (3, 3)
    assert problem.message == "expected at most 2 items, got 3; remove some"


def test_too_short_list() -> None:
    class Needs(Strict):
        items: list[int] = Field(min_length=1)

    problem = one("items: []\n", Needs)
    assert problem.message == "expected at least 1 item, got 0; add more"


def test_unknown_discriminator_tag_is_located_at_the_tag_value() -> None:
    problem = one("schema: 2\nfaults:\n  - kind: hung\n    seconds: 3\n")
    assert at(problem) == (3, 11)
    assert problem.message == (
        "unknown kind 'hung'; expected one of 'kill', 'hang'; did you mean 'hang'?"
    )


def test_missing_discriminator_tag() -> None:
    problem = one("schema: 2\nfaults:\n  - seconds: 3\n")
    assert at(problem) == (3, 5)
    assert "missing key 'kind'" in problem.message


def test_union_noise_in_loc_is_skipped() -> None:
    problem = one("schema: 2\nfaults:\n  - kind: kill\n    rank: x\n")
    assert at(problem) == (4, 11)
    assert problem.message == "expected an integer, got 'x'"


def test_plain_union_keeps_the_member_whose_shape_fits() -> None:
    problem = one("schema: 2\ntarget:\n  job: a\n  selct: one\n")
    assert at(problem) == (4, 3)
    assert problem.message == "unknown key 'selct'; did you mean 'select'?"


def test_plain_union_of_scalars_combines_expectations() -> None:
    problem = one("schema: 2\nreplica:\n  lr: fast\n")
    assert at(problem) == (3, 7)
    assert problem.message == "expected an integer or a number, got 'fast'"


def test_union_of_mapping_and_text_combines_when_neither_fits() -> None:
    problem = one("schema: 2\ntarget: [1]\n")
    assert problem.message == "expected a mapping (key: value lines) or text, got a list"


def test_problems_are_sorted_and_unique() -> None:
    text = "schema: x\nlevel: nope\njobs:\n  - {name: ab, gpus: 0, gpuz: 1}\n"
    found = check(text)
    assert [at(p) for p in found] == sorted(at(p) for p in found)
    assert len(found) == len(set(found)) == 4
    assert all(p.path == "t.yaml" for p in found)


def test_missing_tuple_item() -> None:
    class Pair(Strict):
        pair: tuple[int, int]

    problem = one("pair: [1]\n", Pair)
    assert at(problem) == (1, 7)
    assert "item 2 is missing" in problem.message


def test_fallback_message_avoids_input_should_be() -> None:
    class Dated(Strict):
        when: Annotated[str, Field(json_schema_extra={})] = ""
        size: Annotated[int, Field(multiple_of=4)] = 4
        none: None = None

    found = check("when: x\nsize: 6\nnone: 1\n", Dated)
    messages = [p.message for p in found]
    assert messages == [
        "expected a multiple of 4, got 6",
        "expected nothing (an empty value), got 1",
    ]


def test_unknown_error_type_falls_back_to_a_plain_message() -> None:
    from pydantic import HttpUrl

    class Linked(Strict):
        url: HttpUrl

    problem = one("url: 5\n", Linked)
    assert problem.message == "URL input should be a string or URL, got 5"
    assert problem.message.endswith(", got 5")


def test_allowed_keys_for_walks_lists_dicts_unions_and_aliases() -> None:
    allowed = allowed_keys_for(Doc)
    assert allowed(()) == [
        "color",
        "faults",
        "jobs",
        "level",
        "replica",
        "schema",
        "tags",
        "target",
    ]
    assert allowed(("jobs", 0)) == ["gpus", "name", "pattern", "share", "steps", "yours"]
    assert allowed(("faults", 3, "hang")) == ["kind", "seconds"]
    assert allowed(("faults", 0, "Kill")) == ["kind", "rank"]
    assert allowed(("target", "Target")) == ["job", "select"]
    assert allowed(("target",)) == ["job", "select"]
    assert allowed(("replica", "x")) == []

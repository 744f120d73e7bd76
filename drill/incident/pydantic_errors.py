"""Pydantic validation errors as located, plain-English problems.

Pydantic reports where a value failed as a `loc` tuple of keys and indices, mixed with entries
that are not in the file at all: union branch labels ('int', 'Target',
'function-after[...]') and discriminator tags. Walking the loc against the real data tells the
two apart, so every problem lands on a line the instructor wrote. Messages avoid pydantic's
jargon and say what would be right.

For plain unions pydantic reports every branch's errors; only the branch that fits the input
best is kept, so an instructor sees one story instead of several contradicting ones.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from drill.incident.errors import Problem, sorted_unique
from drill.incident.yaml_source import LocatedDocument

AllowedKeys = Callable[[tuple[str | int, ...]], Sequence[str]]
PydanticLoc = tuple[str | int, ...]

# Show the allowed keys outright when there are this few and nothing is close.
_LIST_ALLOWED_UP_TO = 12


@dataclass
class _Entry:
    """One pydantic error with its place in the document worked out."""

    error: Mapping[str, Any]
    real: tuple[str | int, ...]
    # One _Branch for each loc entry that is not in the data, outermost first.
    branches: tuple[_Branch, ...]
    missing_key: str | int | None = None
    # Set when several union branches were merged into one message.
    message: str | None = None


@dataclass(frozen=True)
class _Branch:
    """A union branch label or tag in a loc: which union (site) and which member (label)."""

    site: PydanticLoc
    label: str | int
    depth: int  # how many real keys lead to the union


def problems_from_validation_error(
    exc: ValidationError,
    doc: LocatedDocument,
    filename: str,
    allowed_keys: AllowedKeys | None = None,
) -> list[Problem]:
    """Located problems for every error in `exc`, ordered by line and column, without repeats.

    `allowed_keys(loc)` gets the pydantic loc of a mapping that holds an unknown key (branch
    labels included, so it can tell union members apart) and returns the keys allowed there;
    it powers "did you mean". `allowed_keys_for(Model)` builds one from a model.
    """
    entries = [_entry(error, doc.data) for error in exc.errors(include_url=False)]
    return sorted_unique(
        _problem(entry, doc, filename, allowed_keys) for entry in _prune(entries, 0)
    )


def _entry(error: Mapping[str, Any], data: Any) -> _Entry:
    loc = tuple(error.get("loc", ()))
    missing = error.get("type") == "missing"
    real: list[str | int] = []
    branches: list[_Branch] = []
    missing_key: str | int | None = None
    current = data
    for index, part in enumerate(loc):
        if _has_child(current, part):
            real.append(part)
            current = current[part]
        elif missing and index == len(loc) - 1:
            missing_key = part
        else:
            branches.append(_Branch(loc[:index], part, len(real)))
    return _Entry(error, tuple(real), tuple(branches), missing_key)


def _has_child(value: Any, part: str | int) -> bool:
    """Whether `part` is a key of this mapping or an index of this list in the document."""
    if isinstance(value, dict):
        return isinstance(part, str) and part in value
    if isinstance(value, list):
        return isinstance(part, int) and not isinstance(part, bool) and 0 <= part < len(value)
    return False


def _prune(entries: list[_Entry], level: int) -> list[_Entry]:
    """Keep, at each union, only the branch that fits the input best."""
    kept = [entry for entry in entries if len(entry.branches) <= level]
    sites: dict[PydanticLoc, dict[str | int, list[_Entry]]] = {}
    for entry in entries:
        if len(entry.branches) > level:
            branch = entry.branches[level]
            sites.setdefault(branch.site, {}).setdefault(branch.label, []).append(entry)
    for members in sites.values():
        if len(members) == 1:
            kept.extend(_prune(next(iter(members.values())), level + 1))
            continue
        scores = {label: _branch_score(group, level) for label, group in members.items()}
        top = min(scores.values())
        best = [group for label, group in members.items() if scores[label] == top]
        combined = _combine(best)
        if combined is not None:
            kept.append(combined)
        else:
            kept.extend(_prune(best[0], level + 1))
    return kept


def _branch_score(group: list[_Entry], level: int) -> tuple[bool, int]:
    """Rank a union member: one whose shape fits the input comes first, then fewest errors.

    A member "does not fit" when it fails with a type error right at the union's value, such
    as `str` against a mapping; a member that fails deeper inside at least took the shape.
    """
    misfit = any(
        _expectation(entry.error) is not None and len(entry.real) == entry.branches[level].depth
        for entry in group
    )
    return (misfit, len(group))


def _combine(groups: list[list[_Entry]]) -> _Entry | None:
    """One "expected A or B" entry when every tied member fails with one type error."""
    singles = [group[0] for group in groups if len(group) == 1]
    if len(singles) != len(groups) or len(singles) < 2:
        return None
    expectations = [_expectation(entry.error) for entry in singles]
    if any(item is None for item in expectations) or len({e.real for e in singles}) != 1:
        return None
    unique = list(dict.fromkeys(item for item in expectations if item is not None))
    first = singles[0]
    got = _describe(first.error.get("input"))
    message = f"expected {_or_list(unique)}, got {got}{_quote_hint(unique, first)}"
    return _Entry(first.error, first.real, first.branches, first.missing_key, message)


def _problem(
    entry: _Entry,
    doc: LocatedDocument,
    filename: str,
    allowed_keys: AllowedKeys | None,
) -> Problem:
    error = entry.error
    kind = str(error.get("type", ""))
    loc = tuple(error.get("loc", ()))
    at_key = kind == "extra_forbidden" or "[key]" in loc
    target: tuple[str | int, ...] = entry.real
    if kind.startswith("union_tag"):
        tag_key = _unquote(str((error.get("ctx") or {}).get("discriminator", "")))
        if tag_key and doc.has((*entry.real, tag_key)):
            target = (*entry.real, tag_key)
    if kind == "located":
        # A model validator named the value it is about (models.located); where() falls back
        # to the nearest parent that is in the file if that value came from a default.
        at = (error.get("ctx") or {}).get("at", ())
        if isinstance(at, tuple):
            target = (*entry.real, *at)
    line, col = doc.key_where(target) if at_key else doc.where(target)
    message = entry.message or _message(entry, allowed_keys)
    return Problem(filename, line, col, message)


def _message(entry: _Entry, allowed_keys: AllowedKeys | None) -> str:
    error = entry.error
    kind = str(error.get("type", ""))
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    value = error.get("input")
    got = _describe(value)
    loc = tuple(error.get("loc", ()))

    if kind == "missing":
        key = entry.missing_key if entry.missing_key is not None else (loc[-1] if loc else "?")
        if isinstance(key, int):
            return f"this list is too short: item {key + 1} is missing; add the missing items"
        return f"missing required key '{key}'; add '{key}: ...' to this mapping"
    if kind == "extra_forbidden":
        key = str(entry.real[-1]) if entry.real else str(loc[-1] if loc else "?")
        allowed = list(allowed_keys(loc[:-1])) if allowed_keys is not None else []
        return _unknown_key_message(key, allowed)
    expected = _expectation(error)
    if kind in ("literal_error", "enum"):
        return _choice_message(str(ctx.get("expected", "")), value)
    if expected is not None:
        return f"expected {expected}, got {got}{_quote_hint([expected], entry)}"
    if kind in _BOUNDS:
        word, key = _BOUNDS[kind]
        return f"expected a number {word} {_number(ctx.get(key))}, got {got}"
    if kind == "multiple_of":
        return f"expected a multiple of {_number(ctx.get('multiple_of'))}, got {got}"
    if kind in ("too_short", "too_long"):
        return _length_message(kind, ctx)
    if kind == "string_too_short":
        limit = ctx.get("min_length")
        return f"this text is too short; use at least {limit} {_plural(limit, 'character')}"
    if kind == "string_too_long":
        limit = ctx.get("max_length")
        length = len(value) if isinstance(value, str) else "too many"
        return (
            f"this text is {length} characters long; use at most {limit}"
            f" {_plural(limit, 'character')}"
        )
    if kind == "string_pattern_mismatch":
        return (
            f"{got} does not have the expected form; it must match the pattern {ctx.get('pattern')}"
        )
    if kind == "union_tag_invalid":
        tag_key = _unquote(str(ctx.get("discriminator", "")))
        return _choice_message(str(ctx.get("expected_tags", "")), ctx.get("tag"), what=tag_key)
    if kind == "union_tag_not_found":
        tag_key = _unquote(str(ctx.get("discriminator", "")))
        return f"missing key '{tag_key}' that says which kind of entry this is; add it"
    if kind in ("value_error", "assertion_error", "located"):
        return _custom_message(str(error.get("msg", "")))
    return _fallback_message(str(error.get("msg", "")), value)


_BOUNDS: dict[str, tuple[str, str]] = {
    "greater_than": ("greater than", "gt"),
    "greater_than_equal": ("of at least", "ge"),
    "less_than": ("less than", "lt"),
    "less_than_equal": ("of at most", "le"),
}

_EXPECTATIONS: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_parsing_size": "an integer of a sensible size",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "decimal_type": "a number",
    "decimal_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text",
    "string_unicode": "text",
    "dict_type": "a mapping (key: value lines)",
    "model_type": "a mapping (key: value lines)",
    "model_attributes_type": "a mapping (key: value lines)",
    "list_type": "a list",
    "tuple_type": "a list",
    "set_type": "a list",
    "frozen_set_type": "a list",
    "iterable_type": "a list",
    "none_required": "nothing (an empty value)",
}


def _expectation(error: Mapping[str, Any]) -> str | None:
    """The plain "what would be right" for a type mismatch, or None for other errors."""
    kind = str(error.get("type", ""))
    if kind in ("literal_error", "enum"):
        expected = str((error.get("ctx") or {}).get("expected", ""))
        return expected or None
    return _EXPECTATIONS.get(kind)


def _quote_hint(expected: Sequence[str], entry: _Entry) -> str:
    value = entry.error.get("input")
    if "text" in expected and isinstance(value, bool | int | float) and value is not None:
        return "; put it in quotes if it is meant as text"
    return ""


def _unknown_key_message(key: str, allowed: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1, cutoff=0.6)
    if close:
        return f"unknown key '{key}'; did you mean '{close[0]}'?"
    if allowed and len(allowed) <= _LIST_ALLOWED_UP_TO:
        return f"unknown key '{key}'; allowed keys here are {', '.join(sorted(allowed))}"
    return f"unknown key '{key}'; check the spelling or remove it"


def _choice_message(expected: str, value: Any, what: str = "") -> str:
    options = _quoted_values(expected)
    subject = f"unknown {what} {_describe(value)}" if what else f"got {_describe(value)}"
    hint = ""
    if isinstance(value, str) and options:
        close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean '{close[0]}'?"
    if what:
        return f"{subject}; expected one of {expected}{hint}"
    return f"expected {expected}, {subject}{hint}"


def _quoted_values(expected: str) -> list[str]:
    return re.findall(r"'((?:[^'\\]|\\.)*)'", expected)


def _length_message(kind: str, ctx: Mapping[str, Any]) -> str:
    field_type = str(ctx.get("field_type", "Value")).lower()
    noun = "entry" if field_type == "dictionary" else "item"
    actual = ctx.get("actual_length")
    if kind == "too_short":
        limit = ctx.get("min_length")
        return f"expected at least {limit} {_plural(limit, noun)}, got {actual}; add more"
    limit = ctx.get("max_length")
    shown = f"got {actual}" if actual is not None else "got more"
    return f"expected at most {limit} {_plural(limit, noun)}, {shown}; remove some"


def _plural(count: Any, noun: str) -> str:
    if count == 1:
        return noun
    return noun[:-1] + "ies" if noun.endswith("y") else noun + "s"


def _custom_message(msg: str) -> str:
    """A custom validator's own words, without pydantic's "Value error, " prefix."""
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            return msg[len(prefix) :].strip() or "this value is not valid; check it"
    return msg or "this value is not valid; check it"


def _fallback_message(msg: str, value: Any) -> str:
    text = msg or "this value is not valid"
    if text.startswith("Input should be "):
        text = "expected " + text[len("Input should be ") :]
    elif text[1:2].islower():
        # Lower-case a leading capital so it reads after "path:line:col:", but keep "URL".
        text = text[:1].lower() + text[1:]
    return f"{text}, got {_describe(value)}"


def _describe(value: Any) -> str:
    """An input value as an instructor would recognise it in the file."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        if value == "":
            return "empty text"
        shown = value if len(value) <= 40 else value[:37] + "..."
        return repr(shown)
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return f"a {type(value).__name__}"


def _number(value: Any) -> Any:
    """A limit as written in a model: 0 rather than 0.0."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _or_list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " or " + items[-1]


def _unquote(text: str) -> str:
    return text.strip().strip("'\"")


# Allowed keys from the models, for "did you mean".


def allowed_keys_for(model: type[BaseModel]) -> AllowedKeys:
    """An `allowed_keys` callback that walks `model`'s fields along a pydantic loc.

    Union members are picked by the branch label or discriminator tag in the loc when there is
    one; loc entries that match nothing are skipped, like the noise they usually are.
    """

    def allowed(loc: tuple[str | int, ...]) -> list[str]:
        current: list[Any] = [model]
        for part in loc:
            candidates = _flatten(current)
            chosen = _pick_member(candidates, part)
            if chosen:
                current = chosen
                continue
            stepped = [step for item in candidates for step in _step(item, part)]
            current = stepped or candidates
        keys: set[str] = set()
        for item in _flatten(current):
            if _is_model(item):
                keys.update(_field_keys(item))
        return sorted(keys)

    return allowed


def _is_model(item: Any) -> bool:
    return isinstance(item, type) and issubclass(item, BaseModel)


def _flatten(items: Sequence[Any]) -> list[Any]:
    """Concrete types behind Annotated, Optional and unions."""
    flat: list[Any] = []
    pending = list(items)
    while pending:
        item = pending.pop(0)
        origin = typing.get_origin(item)
        if origin is typing.Annotated:
            pending.insert(0, typing.get_args(item)[0])
        elif origin is typing.Union or origin is types.UnionType:
            pending[0:0] = list(typing.get_args(item))
        elif item is not type(None):
            flat.append(item)
    return flat


def _pick_member(candidates: list[Any], part: str | int) -> list[Any]:
    """Union members named by a branch label (class name) or a discriminator tag value."""
    if not isinstance(part, str) or len(candidates) < 2:
        return []
    models = [item for item in candidates if _is_model(item)]
    by_name = [item for item in models if item.__name__ == part]
    if by_name:
        return by_name
    return [item for item in models if part in _literal_values(item)]


def _literal_values(model: type[BaseModel]) -> set[Any]:
    values: set[Any] = set()
    for info in model.model_fields.values():
        for item in _flatten([info.annotation]):
            if typing.get_origin(item) is typing.Literal:
                values.update(typing.get_args(item))
    return values


def _step(item: Any, part: str | int) -> list[Any]:
    if _is_model(item):
        if isinstance(part, str):
            for name, info in item.model_fields.items():
                if part in (name, info.alias, info.validation_alias):
                    return [info.annotation]
        return []
    origin = typing.get_origin(item)
    args = typing.get_args(item)
    if origin is tuple and isinstance(part, int) and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return [args[0]]
        return [args[part]] if 0 <= part < len(args) else []
    if origin in (list, set, frozenset) or (
        isinstance(origin, type) and issubclass(origin, Sequence) and origin is not str
    ):
        return [args[0]] if isinstance(part, int) and args else []
    is_mapping = origin is dict or (isinstance(origin, type) and issubclass(origin, Mapping))
    if is_mapping and isinstance(part, str) and len(args) == 2:
        return [args[1]]
    return []


def _field_keys(model: type[BaseModel]) -> list[str]:
    keys = []
    for name, info in model.model_fields.items():
        alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
        keys.append(alias or name)
    return keys

"""Safe, bounded YAML loading that remembers where every value came from.

Incident files are written by people and shared between people, so loading one must never run
code, never blow up memory, and every complaint must point at a line and column. This module
is the layer under the pydantic models:

- Safe: the loader subclasses `yaml.SafeLoader`, and builds plain data itself from the composed
  node tree instead of calling any constructor by tag, so a `!!python/...` tag is only ever a
  reported problem. Any tag outside plain YAML (str, int, float, bool, null, map, seq) is one too.
- Fast: a file is first composed from libyaml's events (about ten times faster than PyYAML's
  own parser, which keeps the picker quick as the library grows); anything short of a clean
  tree of plain values is composed again by PyYAML's parser, so every problem is worded and
  placed by the same parser as ever.
- Bounded: the file size is checked before parsing; alias uses, the expanded value count (an
  alias bomb is measured while composing, never expanded), nesting depth, string length and
  number magnitude all have limits, and breaking one is a located problem.
- Located: `LocatedDocument.where(loc)` answers "which line and column holds this value", which
  is what turns a pydantic error into `path:line:col: message`.

Two deliberate departures from YAML 1.1 (which PyYAML follows) towards YAML 1.2, because they
bite instructors: `3:12` stays the text "3:12" (1.1 reads it as the base-60 integer 192, which
would turn a clock time into seconds), and `2024-01-01` stays text instead of becoming a date
(the data must stay plain JSON-like values). A lone `=` is text too (1.1 gives it a tag no safe
loader can build).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent, StreamEndEvent
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode
from yaml.resolver import Resolver

from drill.errors import InternalError
from drill.incident.errors import IncidentError, Problem, sorted_unique
from drill.incident.source_file import (  # noqa: F401 (re-exported for the loader)
    MAX_FILE_BYTES,
    _fail,
    _size_message,
    decode_source,
    read_source_bytes,
)
from drill.text_safety import codepoint, first_unsafe

if yaml.__with_libyaml__:
    from yaml._yaml import CParser  # where yaml.cyaml takes it from

MAX_ALIASES = 100
MAX_VALUES = 50_000
MAX_DEPTH = 32
MAX_STRING = 10_000
MAX_INT = 10**12
# A number needs far fewer characters than this; the check keeps int() away from huge digit runs.
MAX_NUMBER_TEXT = 100

EMPTY_FILE_MESSAGE = (
    "the file is empty; an incident file is one YAML mapping that starts with lines like"
    " 'schema: 2', 'id: my-incident' and 'title: A rank dies at 3am'"
)

Loc = tuple[str | int, ...]
Position = tuple[int, int]

_TAG_PREFIX = "tag:yaml.org,2002:"
STR_TAG = _TAG_PREFIX + "str"
INT_TAG = _TAG_PREFIX + "int"
FLOAT_TAG = _TAG_PREFIX + "float"
BOOL_TAG = _TAG_PREFIX + "bool"
NULL_TAG = _TAG_PREFIX + "null"
MAP_TAG = _TAG_PREFIX + "map"
SEQ_TAG = _TAG_PREFIX + "seq"
MERGE_TAG = _TAG_PREFIX + "merge"
TIMESTAMP_TAG = _TAG_PREFIX + "timestamp"
VALUE_TAG = _TAG_PREFIX + "value"

# PyYAML's int and float patterns without the YAML 1.1 base-60 branches (see module docstring).
_INT_RE = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+)$""",
    re.X,
)
_FLOAT_RE = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)


def _implicit_resolvers() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """SafeLoader's plain-scalar rules, minus timestamps, `=` and base-60 numbers."""
    table: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept: list[tuple[str, re.Pattern[str]]] = []
        for tag, regexp in entries:
            if tag in (TIMESTAMP_TAG, VALUE_TAG):
                continue
            if tag == INT_TAG:
                regexp = _INT_RE
            elif tag == FLOAT_TAG:
                regexp = _FLOAT_RE
            kept.append((tag, regexp))
        table[first] = kept
    return table


class _Stop(Exception):
    """A limit broken while composing: stop at once, because going on is the danger."""

    def __init__(self, mark: Any, message: str) -> None:
        super().__init__(message)
        self.position = _position(mark)
        self.message = message


def _position(mark: Any) -> Position:
    """1-based (line, col) from a 0-based PyYAML mark; 1:1 when there is no mark."""
    if mark is None:
        return (1, 1)
    return (max(1, int(mark.line) + 1), max(1, int(mark.column) + 1))


def _show_tag(tag: str) -> str:
    return "!!" + tag[len(_TAG_PREFIX) :] if tag.startswith(_TAG_PREFIX) else tag


if TYPE_CHECKING:
    from yaml.parser import Parser

    class _Loader(Parser, Composer):
        """What the mixin below counts on from the loader it is mixed into: a parser's events,
        the composer's anchors and compose_node. At run time the loader's own classes give them.
        PyYAML's composer always returns a node from these two, though its stubs allow None."""

        def compose_node(self, parent: Node | None, index: Any) -> Node: ...
        def compose_document(self) -> Node: ...

else:
    _Loader = object


class _CountingComposer(_Loader):
    """Counts while it composes, so a hostile file is refused before it grows.

    Composition (events to nodes) is where aliases would be shared, not copied, so counting
    here is cheap: each node's expanded size and height are summed from its children, and an
    alias adds the size of what it points at without copying anything. Mixed into a loader
    whose parser gives the events: PyYAML's own, or libyaml's.
    """

    yaml_implicit_resolvers = _implicit_resolvers()

    def _start_counting(self) -> None:
        self.alias_uses = 0
        self._open = 0
        # Values in the document as if every alias were copied out: what building it would cost.
        self._expanded = 0
        self._size: dict[int, int] = {}
        self._height: dict[int, int] = {}
        # Where an alias was written, keyed by (id(parent node), index or id(key node)), so a
        # value that came in through `*name` is reported where `*name` is, not at its anchor.
        self.alias_marks: dict[tuple[int, int | str], Any] = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        if self.check_event(AliasEvent):
            return self._compose_alias(parent, index)
        event = self.peek_event()
        opens = isinstance(event, SequenceStartEvent | MappingStartEvent)
        if opens:
            self._open += 1
            if self._open > MAX_DEPTH:
                raise _Stop(event.start_mark, _depth_message())
        try:
            node = super().compose_node(parent, index)
        finally:
            if opens:
                self._open -= 1
        self._measure(node)
        return node

    def _compose_alias(self, parent: Node | None, index: Any) -> Node:
        event = self.peek_event()
        self.alias_uses += 1
        if self.alias_uses > MAX_ALIASES:
            raise _Stop(
                event.start_mark,
                f"more than {MAX_ALIASES} alias uses (*name) in one file; write the values out"
                " or share fewer of them",
            )
        target = self.anchors.get(event.anchor)
        if target is not None and id(target) not in self._size:
            raise _Stop(
                event.start_mark,
                f"alias *{event.anchor} is used inside the value its anchor names, which would"
                " never end; point it at a value defined earlier",
            )
        node = super().compose_node(parent, index)
        self._grow(self._size[id(node)], event.start_mark)
        if parent is not None:
            slot = index if isinstance(index, int) else id(index) if index is not None else "key"
            if slot != "key":
                self.alias_marks[(id(parent), slot)] = event.start_mark
        return node

    def _grow(self, count: int, mark: Any) -> None:
        self._expanded += count
        if self._expanded > MAX_VALUES:
            more = " once its aliases are expanded" if self.alias_uses else ""
            raise _Stop(
                mark,
                f"the file holds more than {MAX_VALUES} values{more}; an incident needs far"
                " fewer, so split it up or use fewer aliases",
            )

    def _measure(self, node: Node) -> None:
        self._grow(1, node.start_mark)
        if isinstance(node, ScalarNode):
            self._size[id(node)] = 1
            self._height[id(node)] = 0
            return
        if isinstance(node, SequenceNode):
            children: list[Node] = list(node.value)
        else:
            children = [part for pair in node.value for part in pair]
        size = 1 + sum(self._size[id(child)] for child in children)
        height = 1 + max((self._height[id(child)] for child in children), default=0)
        if height > MAX_DEPTH:
            raise _Stop(node.start_mark, _depth_message())
        self._size[id(node)] = size
        self._height[id(node)] = height


class BoundedSafeLoader(_CountingComposer, yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader, counting as it composes. Its error messages are the
    ones `_yaml_error_problem` knows how to turn into a located hint, so every file that does
    not load cleanly is read with this one."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._start_counting()


if yaml.__with_libyaml__:

    class _LibyamlBoundedLoader(_CountingComposer, CParser, Composer, SafeConstructor, Resolver):
        """The same composition on events from libyaml, about ten times faster to parse. Used
        first for every file; the first sign of trouble sends the file to BoundedSafeLoader,
        so problems are always worded by one parser (tests/incident/test_yaml_fast_path.py
        checks the two compose the same trees)."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._start_counting()

    # None where PyYAML was built without libyaml (and in the tests that play such a machine).
    FastBoundedLoader: type[_LibyamlBoundedLoader] | None = _LibyamlBoundedLoader

else:  # pragma: no cover - PyYAML built without libyaml
    FastBoundedLoader = None


def _field_name(path: Loc | None) -> str:
    """`hints[2].text` for a value's key path; a key itself has no path here."""
    if path is None:
        return "this key"
    name = ""
    for part in path:
        name += f"[{part}]" if isinstance(part, int) else f".{part}" if name else str(part)
    return name or "this text"


def _depth_message() -> str:
    return (
        f"values are nested more than {MAX_DEPTH} levels deep; an incident needs only a few"
        " levels, so flatten this part"
    )


class LocatedDocument:
    """Plain data from one YAML document plus the position of every key and value in it."""

    __slots__ = ("data", "filename", "_keys", "_values")

    def __init__(
        self,
        data: Any,
        filename: str,
        values: dict[Loc, Position],
        keys: dict[Loc, Position],
    ) -> None:
        self.data = data
        self.filename = filename
        self._values = values
        self._keys = keys

    def has(self, loc: Sequence[str | int]) -> bool:
        """Whether this key path names a value that is really in the document."""
        return tuple(loc) in self._values

    def where(self, loc: Sequence[str | int]) -> Position:
        """Line and column of the value at `loc`, or of its nearest existing parent.

        A missing key therefore lands on the mapping that should hold it.
        """
        path = tuple(loc)
        for end in range(len(path), -1, -1):
            found = self._values.get(path[:end])
            if found is not None:
                return found
        return (1, 1)

    def key_where(self, loc: Sequence[str | int]) -> Position:
        """Line and column of the key that names `loc`; for list items and the root, the value."""
        found = self._keys.get(tuple(loc))
        return found if found is not None else self.where(loc)

    def migrated(self, data: Any, renames: dict[Loc, Loc]) -> LocatedDocument:
        """The same positions over migrated data: a renamed key keeps the place it was written,
        so a problem under it still points at the file's own line."""

        def moved(table: dict[Loc, Position]) -> dict[Loc, Position]:
            out = dict(table)
            for old, new in renames.items():
                for loc, position in table.items():
                    if loc[: len(old)] == old:
                        out.setdefault(new + loc[len(old) :], position)
            return out

        return LocatedDocument(data, self.filename, moved(self._values), moved(self._keys))

    def problem(self, loc: Sequence[str | int], message: str, *, at_key: bool = False) -> Problem:
        """A Problem located at `loc`, for checks that run after the models (cross-references)."""
        line, col = self.key_where(loc) if at_key else self.where(loc)
        return Problem(self.filename, line, col, message)


def load_yaml_document(text: str, filename: str) -> LocatedDocument:
    """Parse one incident document from text; raise IncidentError listing what is wrong.

    Anything else that goes wrong is a bug in drill (or in PyYAML), not in the file, so it is
    raised as InternalError, never dressed up as a problem at 1:1 that sends the author hunting
    for a mistake their file does not have.
    """
    try:
        return _load(text, filename)
    except IncidentError:
        raise
    except yaml.YAMLError as exc:
        raise IncidentError([_yaml_error_problem(exc, text, filename)]) from None
    except _Stop as exc:
        line, col = exc.position
        raise IncidentError([Problem(filename, line, col, exc.message)]) from None
    except Exception as exc:
        raise InternalError(f"reading {filename}", exc) from exc


def load_yaml_file(path: str | os.PathLike[str], filename: str | None = None) -> LocatedDocument:
    """Read and parse an incident file; every failure, even a missing file, is an IncidentError.

    `filename` is the name used in problems; it defaults to the path as given.
    """
    shown = filename if filename is not None else os.fspath(path)
    raw = read_source_bytes(path, shown)
    return load_yaml_document(decode_source(raw, shown), shown)


def _compose(text: str, filename: str) -> tuple[BoundedSafeLoader, Node, list[Problem]]:
    """Compose with PyYAML's parser, wording every problem it meets."""
    loader = BoundedSafeLoader(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(StreamEndEvent):
            raise _fail(filename, EMPTY_FILE_MESSAGE)
        root = loader.compose_document()
        problems: list[Problem] = []
        try:
            if not loader.check_event(StreamEndEvent):
                line, col = _position(loader.peek_event().start_mark)
                problems.append(
                    Problem(
                        filename,
                        line,
                        col,
                        "a second YAML document starts here; an incident file holds exactly one,"
                        " so remove this '---' and what follows or move it to its own file",
                    )
                )
        except yaml.YAMLError as exc:
            problems.append(_yaml_error_problem(exc, text, filename))
    finally:
        loader.dispose()

    if isinstance(root, ScalarNode) and root.tag == NULL_TAG and root.value == "":
        # Only comments or a bare '---'; a later document, if any, is reported as well.
        raise IncidentError([Problem(filename, 1, 1, EMPTY_FILE_MESSAGE), *problems])

    return loader, root, problems


def _compose_clean(text: str) -> tuple[Any, Node] | None:
    """The tree libyaml composes for a file that loads cleanly; None for anything else (a
    character YAML does not allow, a syntax error, a broken limit, an empty file, a second
    document), which `_compose` then reads again so that its problems are worded as always."""
    if FastBoundedLoader is None or _NOT_ALLOWED.search(text) or _PARSERS_DIFFER.search(text):
        return None
    try:
        text.encode("utf-8")
    except UnicodeError:
        return None  # a lone surrogate: only a string built in code, never a file, holds one
    loader = FastBoundedLoader(text)
    try:
        loader.get_event()  # stream start
        if loader.check_event(StreamEndEvent):
            return None
        root = loader.compose_document()
        if not loader.check_event(StreamEndEvent):
            return None
    except (yaml.YAMLError, _Stop):
        return None
    finally:
        loader.dispose()
    if not _plain_all_through(root):
        return None
    return loader, root


_FAST_TAGS = frozenset(
    (STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG, MAP_TAG, SEQ_TAG, MERGE_TAG)
)


def _plain_all_through(root: Node) -> bool:
    """Whether the tree holds only what both parsers read alike: plain tags, values written
    out, and no `?` inside a plain value in [...] or {...}. The two parsers place an empty value
    (`key:` with nothing after it) at different marks, resolve odd tags differently, and only
    libyaml takes `a?b` inside a flow collection, so such a file goes to PyYAML."""
    stack = [(root, False)]
    while stack:
        node, in_flow = stack.pop()
        if node.tag not in _FAST_TAGS:
            return False
        if isinstance(node, ScalarNode):
            quoted = node.style in ("'", '"')
            if node.value == "" and not quoted:
                return False
            if in_flow and not quoted and "?" in node.value:
                return False
            continue
        in_flow = in_flow or bool(cast(CollectionNode, node).flow_style)  # not a scalar
        if isinstance(node, SequenceNode):
            stack += ((child, in_flow) for child in node.value)
        else:
            for key, value in node.value:
                stack += ((key, in_flow), (value, in_flow))
    return True


# The characters PyYAML's reader refuses; libyaml's list differs, so a file holding one is
# left to PyYAML, whose refusal `_yaml_error_problem` words.
_NOT_ALLOWED = yaml.reader.Reader.NON_PRINTABLE
# Where libyaml and PyYAML part ways on the same text: libyaml takes a tab inside a plain value
# that PyYAML refuses, and counts a byte-order mark inside the text into no column.
_PARSERS_DIFFER = re.compile("[\t\ufeff]")


def _load(text: str, filename: str) -> LocatedDocument:
    if len(text) > MAX_FILE_BYTES:
        raise _fail(filename, _size_message(len(text)))
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_FILE_BYTES:
        raise _fail(filename, _size_message(size))

    fast = _compose_clean(text)
    if fast is not None:
        loader, root = fast
        problems: list[Problem] = []
    else:
        loader, root, problems = _compose(text, filename)

    builder = _Builder(loader, filename)
    data = builder.build(root, (), _position(root.start_mark))
    problems.extend(builder.problems)
    if problems:
        raise IncidentError(sorted_unique(problems))
    return LocatedDocument(data, filename, builder.values, builder.keys)


_INVALID = object()


class _Builder:
    """Turns the composed node tree into plain data, recording positions and problems.

    It keeps going after a problem so one run reports everything it can.
    """

    def __init__(self, loader: BoundedSafeLoader, filename: str) -> None:
        self.loader = loader
        self.filename = filename
        self.values: dict[Loc, Position] = {}
        self.keys: dict[Loc, Position] = {}
        self.problems: list[Problem] = []

    def report(self, mark: Any, message: str) -> None:
        line, col = _position(mark)
        self.problems.append(Problem(self.filename, line, col, message))

    def _alias_position(self, parent: Node, slot: int | Node, node: Node) -> Position:
        key = slot if isinstance(slot, int) else id(slot)
        mark = self.loader.alias_marks.get((id(parent), key))
        return _position(mark if mark is not None else node.start_mark)

    def build(self, node: Node, path: Loc, position: Position) -> Any:
        self.values[path] = position
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if isinstance(node, SequenceNode):
            if node.tag != SEQ_TAG:
                self.report(node.start_mark, _tag_message(node.tag, "a list"))
            return [
                self.build(item, (*path, index), self._alias_position(node, index, item))
                for index, item in enumerate(node.value)
            ]
        if isinstance(node, MappingNode):
            if node.tag != MAP_TAG:
                self.report(node.start_mark, _tag_message(node.tag, "a mapping"))
            result: dict[str, Any] = {}
            for key, key_node, value_node, parent in self.pairs(node):
                self.keys[(*path, key)] = _position(key_node.start_mark)
                where = self._alias_position(parent, key_node, value_node)
                result[key] = self.build(value_node, (*path, key), where)
            return result
        self.report(node.start_mark, "this YAML node kind is not supported; use plain values")
        return None

    def pairs(self, node: MappingNode) -> list[tuple[str, Node, Node, MappingNode]]:
        """The mapping's entries after `<<` merges, explicit keys winning, as PyYAML does."""
        explicit: dict[str, tuple[Node, Node, MappingNode]] = {}
        merged: dict[str, tuple[Node, Node, MappingNode]] = {}
        merge_seen: Node | None = None
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode) and key_node.tag == MERGE_TAG:
                if merge_seen is not None:
                    self.report(key_node.start_mark, _duplicate_message("<<", merge_seen))
                    continue
                merge_seen = key_node
                for source in reversed(self.merge_sources(value_node)):
                    for key, k_node, v_node, parent in self.pairs(source):
                        merged[key] = (k_node, v_node, parent)
                continue
            key = self.key(key_node)
            if key is _INVALID:
                continue
            first = explicit.get(key)
            if first is not None:
                self.report(key_node.start_mark, _duplicate_message(key, first[0]))
                continue
            explicit[key] = (key_node, value_node, node)
        combined = {**merged, **explicit}
        return [(key, k, v, parent) for key, (k, v, parent) in combined.items()]

    def merge_sources(self, value_node: Node) -> list[MappingNode]:
        if isinstance(value_node, MappingNode):
            return [value_node]
        if isinstance(value_node, SequenceNode) and all(
            isinstance(item, MappingNode) for item in value_node.value
        ):
            return list(value_node.value)
        self.report(
            value_node.start_mark,
            "a merge key '<<' needs a mapping or a list of mappings (usually *name);"
            " point it at a mapping anchored with &name",
        )
        return []

    def key(self, node: Node) -> Any:
        """The key as text, or _INVALID after reporting why it cannot be a key."""
        if not isinstance(node, ScalarNode):
            kind = "a list" if isinstance(node, SequenceNode) else "a mapping"
            self.report(node.start_mark, f"a key must be text, not {kind}; write a plain name")
            return _INVALID
        value = self.scalar(node)
        if value is _INVALID or isinstance(value, str):
            return value
        written = node.value
        if value is None:
            what = "an empty key" if written == "" else f"key '{written}' reads as null"
            fix = "write a name before the colon" if written == "" else "put it in quotes"
            self.report(node.start_mark, f"{what}; keys must be text, so {fix}")
        else:
            kind = "true or false" if isinstance(value, bool) else "a number"
            self.report(
                node.start_mark,
                f"key '{written}' reads as {kind}; keys must be text, so put it in quotes:"
                f" '{written}'",
            )
        return _INVALID

    def scalar(self, node: ScalarNode, path: Loc | None = None) -> Any:
        tag = node.tag
        text = node.value
        if len(text) > MAX_STRING:
            self.report(
                node.start_mark,
                f"this text is {len(text)} characters long; the limit is {MAX_STRING},"
                " so shorten it",
            )
            return _INVALID
        if tag == STR_TAG:
            return self.text(node, text, path)
        if tag == NULL_TAG:
            return None
        if tag == BOOL_TAG:
            return self.convert(node, self.loader.construct_yaml_bool, "true or false")
        if tag == INT_TAG:
            return self.number(node, self.loader.construct_yaml_int, "an integer")
        if tag == FLOAT_TAG:
            return self.number(node, self.loader.construct_yaml_float, "a number")
        if tag == MERGE_TAG:
            # `<<` in a value position is just text; it only merges when it is a key.
            return self.text(node, text, path)
        self.report(node.start_mark, _tag_message(tag, "a plain value"))
        return self.text(node, text, path)

    def text(self, node: ScalarNode, text: str, path: Loc | None = None) -> Any:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            self.report(
                node.start_mark,
                "this text holds a lone surrogate escape (like \\ud800); write the character"
                " itself or a full \\U escape",
            )
            return _INVALID
        bad = first_unsafe(text)
        if bad is not None:
            # Written as an escape ("\e[2J"): every text here reaches a terminal, which would
            # obey it (drill/text_safety.py).
            self.report(
                node.start_mark,
                f"control character {codepoint(bad)} in {_field_name(path)}; remove it",
            )
            return _INVALID
        return text

    def convert(self, node: ScalarNode, construct: Any, expected: str) -> Any:
        """PyYAML's own constructor for a scalar whose tag says bool, int or float.

        Text an explicit tag forces onto the wrong type reaches here: PyYAML answers ValueError
        (`!!int abc`) or KeyError (`!!bool maybe`, a lookup in its table of words). For text
        with no digits once `_` and one sign are dropped (`!!int ''`, `!!float -`) it would
        index an empty string, so that case is refused before the call. Any other exception is
        a bug and is not caught.
        """
        if not _unsigned(node.value.replace("_", "")):
            return self._not(node, expected)
        try:
            return construct(node)
        except (ValueError, KeyError):
            return self._not(node, expected)

    def _not(self, node: ScalarNode, expected: str) -> Any:
        self.report(
            node.start_mark,
            f"'{_clip(node.value)}' is not {expected}; write {expected} or drop the tag",
        )
        return _INVALID

    def number(self, node: ScalarNode, construct: Any, expected: str) -> Any:
        if len(node.value) > MAX_NUMBER_TEXT:
            self.report(
                node.start_mark,
                f"this number is written with more than {MAX_NUMBER_TEXT} characters;"
                f" use one between -{MAX_INT} and {MAX_INT}",
            )
            return _INVALID
        value = self.convert(node, construct, expected)
        if isinstance(value, float) and not math.isfinite(value):
            self.report(
                node.start_mark,
                f"'{_clip(node.value)}' is not a finite number; write an ordinary number",
            )
            return _INVALID
        if isinstance(value, int | float) and abs(value) > MAX_INT:
            self.report(
                node.start_mark,
                f"{_clip(node.value)} is too large; use a number between -{MAX_INT} and {MAX_INT}",
            )
            return _INVALID
        return value


def _unsigned(text: str) -> str:
    return text[1:] if text[:1] in ("+", "-") else text


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _tag_message(tag: str, kind: str) -> str:
    shown = _clip(_show_tag(tag))
    if tag.startswith(_TAG_PREFIX + "python/"):
        return (
            f"Python tag {shown} is not allowed; incident files hold plain values only,"
            " so remove the tag"
        )
    if tag in (MAP_TAG, SEQ_TAG, STR_TAG, INT_TAG, FLOAT_TAG, BOOL_TAG, NULL_TAG):
        return f"tag {shown} does not fit {kind}; remove the tag"
    return (
        f"tag {shown} is not supported; incident files use plain YAML values without tags,"
        " so remove it"
    )


def _duplicate_message(key: str, first: Node) -> str:
    line = first.start_mark.line + 1
    return f"duplicate key '{_clip(key)}': it is already set on line {line}; keep only one of them"


_SYNTAX_HINTS: tuple[tuple[str, str], ...] = (
    ("mapping values are not allowed", "check the indentation, and quote text that holds ': '"),
    ("cannot start any token", "use spaces, not tabs, and quote text that starts with @ or `"),
    (
        "could not find expected ':'",
        "each key needs a colon after it; check this line and the one above",
    ),
    ("undefined alias", "define the anchor with &name before using *name"),
    ("duplicate anchor", "give each anchor (&name) its own name"),
    ("end of stream", "a quote or bracket is not closed"),
    ("expected <block end>", "line up items of the same list or mapping in the same column"),
    ("did not find expected key", "line up keys of the same mapping in the same column"),
    ("did not find expected '-'", "line up the items of this list in the same column"),
    ("expected ',' or ']'", "separate items with commas and close the list with ]"),
    ("expected ',' or '}'", "separate entries with commas and close the mapping with }"),
)


def _yaml_error_problem(exc: yaml.YAMLError, text: str, filename: str) -> Problem:
    """A PyYAML error as a short located message with a hint at the usual fix."""
    if isinstance(exc, yaml.reader.ReaderError):
        line, col = _offset_position(text, int(exc.position))
        code = exc.character if isinstance(exc.character, int) else 0
        if first_unsafe(chr(code)) is not None:
            # A control character is refused as an escape too, so an escape is no fix.
            fix = "is a control character, which an incident never needs; remove it"
        else:
            fix = (
                "is not allowed in YAML; remove it, or inside double quotes write it as an"
                " escape like \\uFFFE"
            )
        return Problem(filename, line, col, f"character #x{code:04x} {fix}")
    if isinstance(exc, yaml.MarkedYAMLError):
        opened = _never_closed(exc)
        if opened is not None:
            return Problem(filename, *_position(exc.context_mark), opened)
        what = exc.problem or exc.context or "the YAML is not valid"
        mark = exc.problem_mark or exc.context_mark
        line, col = _position(mark)
        detail = ""
        if exc.context and exc.problem and exc.context_mark is not None:
            context_line = exc.context_mark.line + 1
            if context_line != line:
                detail = f" ({exc.context} on line {context_line})"
        hint = next(
            (fix for needle, fix in _SYNTAX_HINTS if needle in f"{exc.problem} {exc.context}"),
            "check the indentation, colons and quotes near this line",
        )
        return Problem(filename, line, col, f"could not parse YAML: {what}{detail}; {hint}")
    return Problem(filename, 1, 1, "could not parse YAML; check the indentation, colons and quotes")


def _never_closed(exc: yaml.MarkedYAMLError) -> str | None:
    """A message for errors whose cause is where something opened, not where PyYAML noticed.

    A key without its colon, a quote or bracket that is never closed: PyYAML stops on a later
    line (often the next key), but the line to fix is the one that opened it, so the problem
    goes there, the way compilers report an unclosed bracket at the bracket.
    """
    context, problem = exc.context or "", exc.problem or ""
    start, found = exc.context_mark, exc.problem_mark
    if start is None or found is None:
        return None
    later = f" (PyYAML noticed on line {found.line + 1})" if found.line != start.line else ""
    if context == "while scanning a simple key" and "could not find expected ':'" in problem:
        return (
            "could not parse YAML: this key has no ':' after it; write 'key: value', and"
            f" check the indentation against the line above{later}"
        )
    if found.line == start.line:
        return None
    if context == "while scanning a quoted scalar" and "end of stream" in problem:
        return f"could not parse YAML: this quote is not closed{later}; end the text with the same quote mark"
    for kind, closer in (("sequence", "]"), ("mapping", "}")):
        if context == f"while parsing a flow {kind}" and problem.endswith(
            ("but got ':'", "but got '<stream end>'")
        ):
            opener = "[" if closer == "]" else "{"
            return (
                f"could not parse YAML: this {opener} is not closed{later}; close it with"
                f" {closer} after the last item"
            )
    return None


def _offset_position(text: str, offset: int) -> Position:
    before = text[: max(0, offset)]
    line = before.count("\n") + 1
    col = offset - (before.rfind("\n") + 1) + 1
    return (line, max(1, col))

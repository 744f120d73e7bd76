"""libyaml composes clean files, PyYAML's parser everything else: the two must agree.

The loader tries libyaml first (ten times faster, which is what keeps the picker's first frame
quick as the library grows) and hands any file it cannot compose cleanly to PyYAML's own
parser, whose messages the located errors are written for. That is only sound if, whenever
libyaml accepts a file, PyYAML composes the same tree with the same positions and no problems.
These properties check it on valid samples, on mutations of them, and on every shipped file.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from test_yaml_fuzz import FUZZ, VALID, YAML_BITS
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from drill.incident import yaml_source
from drill.incident.errors import IncidentError
from drill.incident.library import shipped_incident_files
from drill.incident.yaml_source import _compose, _compose_clean, load_yaml_document

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")


def shape(node) -> tuple:
    """Everything the builder reads from a node: kind, tag, value, position, and children."""
    where = (node.start_mark.line, node.start_mark.column)
    if isinstance(node, ScalarNode):
        return ("scalar", node.tag, node.value, node.style in ("'", '"', "|", ">"), where)
    if isinstance(node, SequenceNode):
        return ("seq", node.tag, where, tuple(shape(child) for child in node.value))
    assert isinstance(node, MappingNode)
    pairs = tuple((shape(k), shape(v)) for k, v in node.value)
    return ("map", node.tag, where, pairs)


def load_the_slow_way(text: str):
    fast_loader = yaml_source.FastBoundedLoader
    yaml_source.FastBoundedLoader = None
    try:
        return load_yaml_document(text, "agree.yaml")
    finally:
        yaml_source.FastBoundedLoader = fast_loader


def assert_the_parsers_agree(text: str) -> None:
    fast = _compose_clean(text)
    if fast is None:
        return  # left to PyYAML, which words whatever it finds
    _, fast_root = fast
    _, slow_root, problems = _compose(text, "agree.yaml")
    assert problems == [], f"libyaml accepted what PyYAML refuses: {problems}"
    assert shape(fast_root) == shape(slow_root)
    # The built document too: values, and the positions of every value and key (an alias's
    # value is placed where `*name` is written, from marks the composer keeps).
    try:
        fast_doc = load_yaml_document(text, "agree.yaml")
    except IncidentError as fast_error:
        with pytest.raises(IncidentError) as slow_error:
            load_the_slow_way(text)
        assert str(fast_error) == str(slow_error.value)
        return
    slow_doc = load_the_slow_way(text)
    assert fast_doc.data == slow_doc.data
    assert fast_doc._values == slow_doc._values and fast_doc._keys == slow_doc._keys


def test_a_valid_sample_goes_the_fast_way_and_agrees():
    assert _compose_clean(VALID) is not None
    assert_the_parsers_agree(VALID)


@pytest.mark.parametrize("path", shipped_incident_files(), ids=lambda p: p.stem)
def test_every_shipped_incident_goes_the_fast_way_and_agrees(path):
    text = path.read_text(encoding="utf-8")
    assert _compose_clean(text) is not None, "a shipped file should load the fast way"
    assert_the_parsers_agree(text)


SAMPLES = [VALID] + [path.read_text(encoding="utf-8") for path in shipped_incident_files()]


@FUZZ
@given(
    st.sampled_from(SAMPLES),
    st.lists(
        st.tuples(
            st.floats(0, 1),
            st.integers(0, 6),
            st.one_of(YAML_BITS, st.text(max_size=4)),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_mutations_compose_the_same_either_way(
    text: str, edits: list[tuple[float, int, str]]
) -> None:
    for where, cut, insert in edits:
        start = int(where * len(text))
        text = text[:start] + insert + text[start + cut :]
    assert_the_parsers_agree(text)


@FUZZ
@given(st.lists(st.one_of(YAML_BITS, st.text(max_size=5)), max_size=60).map("".join))
def test_yaml_flavoured_text_composes_the_same_either_way(text: str) -> None:
    assert_the_parsers_agree(text)


def test_a_file_libyaml_cannot_read_is_worded_by_pyyaml(monkeypatch):
    """The located message for a broken file is PyYAML's, hint and all, on either path."""
    text = "schema: 1\nid: [unclosed\ntitle: x\n"
    assert _compose_clean(text) is None
    with pytest.raises(Exception) as fast_way:
        load_yaml_document(text, "broken.yaml")
    monkeypatch.setattr(yaml_source, "FastBoundedLoader", None)
    with pytest.raises(Exception) as slow_way:
        load_yaml_document(text, "broken.yaml")
    assert str(fast_way.value) == str(slow_way.value)
    assert "not closed" in str(fast_way.value)

"""The picker's header read (drill/incident/header.py) never shows anything the full load
would not: for a file that loads, the header is the loaded incident's or None (then the picker
loads the file fully before drawing)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from drill.incident.errors import IncidentError
from drill.incident.header import Header, read_header
from drill.incident.library import shipped_incident_files, shipped_path
from drill.incident.loader import load_incident


def test_every_shipped_header_is_what_the_full_load_reads():
    for path in shipped_incident_files():
        assert read_header(path) == Header.of(load_incident(path)), path


FIELDS = ["id", "title", "difficulty", "order", "estimated_minutes", "schema", "seeds", "briefing"]
VALUES = st.one_of(
    st.text(max_size=30),
    st.lists(st.one_of(st.integers(-2, 2**32 + 1), st.booleans(), st.text(max_size=3)), max_size=3),
    st.integers(-3, 200),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["tutorial", "easy", "medium", "hard", "dead-rank", "2", "1"]),
)
# Written unquoted: plain scalars that YAML 1.1 (libyaml's safe loader, the header read) and
# the loader's own resolvers may type differently.
PLAIN = st.sampled_from(
    ["yes", "no", "on", "1_0", "0o10", "010", "0x1f", "1e3", "1.0", "2026-12-03", "~", ".inf", "+2"]
)


@settings(max_examples=120, deadline=None)
@given(field=st.sampled_from(FIELDS), value=st.one_of(VALUES, PLAIN.map(lambda p: (p,))))
def test_an_edited_header_reads_as_the_full_load_or_not_at_all(tmp_path_factory, field, value):
    text = shipped_path("dead-rank").read_text(encoding="utf-8")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field}:"))
    # JSON is YAML: any value, quoted as needed; a 1-tuple is a plain scalar, as typed.
    shown = value[0] if isinstance(value, tuple) else json.dumps(value)
    lines[at] = f"{field}: {shown}"
    path = tmp_path_factory.mktemp("header") / "edited.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    header = read_header(path)
    try:
        loaded = load_incident(path)
    except IncidentError:
        return  # the picker's full check moves it to the "Not listed" line
    assert header is None or header == Header.of(loaded)


def test_a_header_with_a_python_tag_builds_nothing_and_gives_up(tmp_path):
    """The picker's quick read is a safe load: a tag that would build an object is refused
    (the full load then says what is wrong), and nothing runs."""
    from drill.incident.header import read_header

    marker = tmp_path / "ran"
    evil = tmp_path / "evil.yaml"
    evil.write_text(
        "schema: 2\nid: !!python/object/apply:os.system"
        f' ["touch {marker}"]\ntitle: t\ndifficulty: easy\norder: 1\nestimated_minutes: 5\n'
    )
    assert read_header(evil) is None
    assert not marker.exists()


def test_the_briefing_and_seeds_read_as_the_full_load_reads_them(tmp_path):
    loaded = load_incident(shipped_path("dead-rank"))
    header = read_header(shipped_path("dead-rank"))
    assert header.briefing == loaded.incident.briefing
    assert header.seeds == tuple(loaded.incident.seeds)


def test_no_seeds_line_is_the_models_default(tmp_path):
    text = shipped_path("dead-rank").read_text(encoding="utf-8")
    path = tmp_path / "no-seeds.yaml"
    path.write_text(
        "\n".join(line for line in text.splitlines() if not line.startswith("seeds:")) + "\n"
    )
    assert read_header(path).seeds == tuple(load_incident(path).incident.seeds)


def edited(tmp_path, *extra: str):
    text = shipped_path("dead-rank").read_text(encoding="utf-8")
    path = tmp_path / "edited.yaml"
    path.write_text(text + "".join(line + "\n" for line in extra), encoding="utf-8")
    return read_header(path)


def test_a_key_twice_a_merge_key_or_a_control_character_is_not_a_plain_header(tmp_path):
    assert edited(tmp_path) is not None
    assert edited(tmp_path, "title: Another title") is None
    assert edited(tmp_path, "<<: {title: Merged}") is None
    plain = "schema: 2\nid: x\ntitle: t\ndifficulty: easy\norder: 1\nestimated_minutes: 5\n"
    path = tmp_path / "short.yaml"
    path.write_text(plain + 'briefing: "Read the page."\n', encoding="utf-8")
    assert read_header(path) is not None
    path.write_text(plain + 'briefing: "Read the \\e[2J page."\n', encoding="utf-8")
    assert read_header(path) is None

"""A fuzzer over damaged saves: whatever happened to the file (a crash, a disk, an editor, an
attacker), `drill replay --verify` exits 2 with one located line, or verifies it correctly:
exit 0 only when nothing the game decided was changed, exit 1 only when something was. Never a
traceback. The picker's best scores never fail either."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.cli import main
from drill.saves import SaveError, best_scores, read_save
from tests.saves.savekit import play_night

# Fields that say where a save came from or how it is written, not what happened in it: verify
# does not compare them (a format-1 save still reads and verifies). The engine and drill
# versions are compared: a save from another version is not verified.
PROVENANCE = {"incident_path", "origin", "ranks", "format"}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("fuzz")
    save, _ = play_night(folder)
    with open(save, "a", encoding="utf-8") as handle:  # the debrief's words come after the score
        handle.write(json.dumps({"type": "text", "key": "runbook.health", "value": "look"}) + "\n")
    assert main(["replay", str(save), "--verify"]) == 0  # also fills the par cache
    return save.read_bytes()


@st.composite
def damage(draw, raw: bytes) -> bytes:
    lines = raw.split(b"\n")[:-1]
    how = draw(
        st.sampled_from(
            ["truncate", "byte", "drop", "repeat", "swap", "insert", "nonewline", "nest"]
            + ["value"] * 4  # most damage worth finding is one changed field
        )
    )
    if how == "truncate":
        return raw[: draw(st.integers(0, len(raw) - 1))]
    if how == "byte":
        at = draw(st.integers(0, len(raw) - 1))
        return raw[:at] + bytes([draw(st.integers(0, 255))]) + raw[at + 1 :]
    if how == "nonewline":
        return raw.rstrip(b"\n")
    if how == "nest":
        at = draw(st.integers(0, len(lines)))
        depth = draw(st.integers(1, 5000))
        return b"\n".join(lines[:at] + [b"[" * depth + b"]" * depth] + lines[at:]) + b"\n"
    if how == "insert":
        at = draw(st.integers(0, len(lines)))
        return b"\n".join(lines[:at] + [draw(st.binary(max_size=40))] + lines[at:]) + b"\n"
    at = draw(st.sampled_from(range(len(lines))))  # every line as likely as the header
    if how == "drop":
        del lines[at]
    elif how == "repeat":
        lines.insert(at, lines[at])
    elif how == "swap":
        other = draw(st.integers(0, len(lines) - 1))
        lines[at], lines[other] = lines[other], lines[at]
    else:
        record = json.loads(lines[at])
        target, key = record, draw(st.sampled_from(sorted(record)))
        while isinstance(target[key], dict) and target[key] and draw(st.booleans()):
            target, key = target[key], draw(st.sampled_from(sorted(target[key])))
        value = target[key]
        if key == "backend":
            # Another real backend would train the replica here: too slow for a fuzzer.
            target[key] = draw(st.sampled_from(["sim", "cuda", "", None, 1]))
        elif draw(st.booleans()):
            target[key] = draw(JSON)
        elif isinstance(value, bool):
            target[key] = not value
        elif isinstance(value, int | float):  # a plausible edit, inside every range
            target[key] = value + draw(st.sampled_from([-60, -1, -0.001, 0.001, 1, 60]))
        elif isinstance(value, str) and value:
            pos = draw(st.sampled_from(range(len(value))))
            target[key] = value[:pos] + draw(st.characters()) + value[pos + 1 :]
        else:
            target[key] = draw(JSON)
        lines[at] = json.dumps(record, allow_nan=True).encode()
    return b"\n".join(lines) + b"\n"


def decided(raw: bytes) -> list:
    """What the game decided, as the save says it: every line but the learner's own words and
    the header's provenance."""
    kept = []
    # A save's lines end at "\n" only, as the reader splits them: a "\r" inside a line is JSON
    # white space, not a line break (str.splitlines would break there).
    for line in filter(None, raw.decode("utf-8").split("\n")):
        record = json.loads(line)
        if record.get("type") == "text":
            continue
        if record.get("type") == "header":
            record = {k: v for k, v in record.items() if k not in PROVENANCE}
        text = record.get("text")
        if record.get("type") == "action" and isinstance(text, str) and text.startswith("note "):
            # A note's words are the learner's own, like the text lines: replaying the save
            # plays whatever words it holds, and no decision of the game depends on them, except
            # whether they can be typed at all: a line that is not printable is refused.
            record = {**record, "text": f"note printable={text.isprintable()}"}
        kept.append(record)
    return kept


def verify(path: Path) -> tuple[int, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = main(["replay", str(path), "--verify"])
    return code, err.getvalue()


@settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_a_damaged_save_is_located_or_verified_correctly(original, tmp_path, data):
    damaged = data.draw(damage(original))
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(damaged)
    try:
        read_save(path)
    except SaveError as exc:
        assert exc.path == str(path) and exc.line >= 1
    code, err = verify(path)
    assert "Traceback" not in err
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert re.match(rf"drill: {re.escape(str(path))}:\d+: \S", lines[0]), err
        return
    assert code in (0, 1), (code, err)
    try:
        same = decided(damaged) == decided(original)
    except (UnicodeDecodeError, ValueError):
        same = False  # a line that is not JSON cannot have verified as the original
    if code == 0:
        assert same, "verified a save whose decisions were changed"
    else:
        assert not same, f"a save with the original decisions did not verify: {err}"


@settings(
    max_examples=30,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_best_scores_skip_any_damaged_save(original, tmp_path, data):
    folder = tmp_path / "folder"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(data.draw(damage(original)))
    (folder / "b.jsonl").write_bytes(original)
    scores = best_scores(folder)
    assert set(scores) == {"dead-rank"}

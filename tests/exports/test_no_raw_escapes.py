"""Text from a save never drives the terminal: `drill replay`, `drill runbook` and `drill
report` print a save whose note and answers hold escape sequences with no raw ESC byte, the
sequences shown as visible signs instead (drill/text_safety.py)."""

from __future__ import annotations

import pytest

from drill.text_safety import visible
from tests.clikit import run_drill
from tests.escapekit import CLEAR, EVIL, tampered_save


@pytest.fixture(scope="module")
def save(tmp_path_factory):
    return tampered_save(tmp_path_factory.mktemp("evil"))


def assert_no_raw_controls(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert visible(text) == text


@pytest.mark.parametrize(
    "command",
    [["replay"], ["replay", "--verify"], ["runbook"], ["report"], ["replay", "--json"]],
    ids=["replay", "replay-verify", "runbook", "report", "replay-json"],
)
def test_no_raw_escape_reaches_stdout_or_stderr(save, command):
    done = run_drill(*command, str(save))
    assert done.returncode in (0, 1), done.stderr  # --verify: the tampered note differs
    assert_no_raw_controls(done.stdout)
    assert_no_raw_controls(done.stderr)
    if command != ["replay", "--json"]:
        shown = done.stdout + done.stderr
        assert visible(CLEAR) in shown  # shown as a sign, not dropped


@pytest.mark.parametrize("command", ["runbook", "report"])
def test_the_written_files_hold_no_raw_escape(save, tmp_path, command):
    out = tmp_path / f"out.{command}"
    done = run_drill(command, str(save), "-o", str(out))
    assert done.returncode == 0, done.stderr
    written = out.read_text(encoding="utf-8")
    assert_no_raw_controls(written)
    assert visible(EVIL) in written


@pytest.mark.parametrize("command", ["validate", "list"])  # its own printing; drill's error line
def test_an_error_that_quotes_a_file_name_is_shown_not_obeyed(tmp_path, command):
    # A folder of incidents from someone else: a file's own name can carry a sequence, and
    # every problem line starts with that name.
    folder = tmp_path / "sent"
    folder.mkdir()
    (folder / f"x{CLEAR}.yaml").write_text("title: [\n", encoding="utf-8")
    done = run_drill(command, str(folder))
    assert done.returncode == 2
    assert_no_raw_controls(done.stderr)
    assert f"x{visible(CLEAR)}.yaml:" in done.stderr


def test_visible_keeps_length_newlines_and_tabs():
    text = f"a\tb\n{EVIL}\x7f\x85\u2066"
    shown = visible(text)
    assert len(shown) == len(text)
    assert shown.startswith("a\tb\n")
    assert shown[4] == "\u241b"  # ESC as the Control Pictures sign
    assert visible(shown) == shown

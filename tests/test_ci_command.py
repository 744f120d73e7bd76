"""The README's test command is the one CI runs, so a person at a terminal runs what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _readme_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"^    (python3 -m venv \.venv && .*pytest.*)$", text, re.M)
    assert len(found) == 1, f"README.md should show one install-and-test command, found {found}"
    return found[0]


def test_ci_runs_the_readme_test_command_verbatim():
    command = _readme_command()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"({command})" in ci, f".ci/run does not run the README's command: {command}"


def test_the_tiers_the_readme_lists_run_on_every_core_like_ci():
    # The quick part and everything: both with the workers CI uses, so their times compare.
    command = _readme_command()
    workers = re.search(r"-m pytest( .*)?$", command).group(1) or ""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert f'.venv/bin/python -m pytest{workers} -m "not slow"' in text

"""A save never makes drill import code. A header naming `module:factory` is refused by replay,
report, runbook and both resumes, one located line and exit 2, until the person at the command
line repeats it with --replica; then its source must still be the one the save recorded. A
header naming a replica that is not installed says which entry point to install.

Before the fix, a header's `"replica": "plant:make"` made `drill replay` import plant.py from
the current folder."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from tests.security.conftest import one_line

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "dead-rank--reference.jsonl"


def tampered(folder: Path, *, finished: bool = True, **header) -> Path:
    """A real save (the golden dead-rank reference, made on the inprocess backend, so a replay
    trains the replica) with its header changed as someone else could change it."""
    lines = GOLDEN.read_text().splitlines(keepends=True)
    record = json.loads(lines[0])
    record.update(header)
    lines[0] = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
    if not finished:
        lines = [
            line for line in lines if '"type": "score"' not in line and '"type": "text"' not in line
        ]
    path = folder / ("night.jsonl" if finished else "unfinished.jsonl")
    path.write_text("".join(lines))
    return path


def refusals(path: Path, unfinished: Path) -> list[list[str]]:
    return [
        ["replay", str(path)],
        ["replay", str(path), "--verify"],
        ["report", str(path), "-o", str(path.with_suffix(".html"))],
        ["runbook", str(path), "-o", str(path.with_suffix(".md"))],
        ["run", "--resume", str(unfinished)],
    ]


def test_a_save_naming_code_is_refused_everywhere_and_nothing_is_imported(planted, cli) -> None:
    path = tampered(planted.folder, replica="plant:make")
    unfinished = tampered(planted.folder, replica="plant:make", finished=False)
    for argv in refusals(path, unfinished):
        code, out, err = cli(*argv)
        said = one_line(err)
        assert code == 2 and out == "", (argv, said)
        assert said.startswith(f"drill: {unfinished if '--resume' in argv else path}:1: "), said
        assert "pass --replica plant:make on the command line" in said, said
    assert not planted.ran.exists(), "the save's code ran"
    assert "plant" not in sys.modules


def test_play_and_serve_refuse_it_before_the_screen_opens(planted) -> None:
    from drill.commands.play import app_options
    from drill.errors import UserError

    unfinished = tampered(planted.folder, replica="plant:make", finished=False)
    args = argparse.Namespace(incident=None, resume=str(unfinished))
    with pytest.raises(
        (UserError, ValueError), match=r"unfinished.jsonl:1: .*pass --replica plant:make"
    ):
        app_options(args)
    assert not planted.ran.exists() and "plant" not in sys.modules


def test_repeating_it_on_the_command_line_is_the_consent(planted, cli) -> None:
    path = tampered(planted.folder, replica="plant:make", replica_sha256=planted.fingerprint())
    code, _, err = cli("replay", str(path), "--replica", "plant:make")
    # The person chose to run it: it is imported (and refused, for it is no replica).
    assert code == 2 and "replica plant:make is missing" in one_line(err), err
    assert planted.ran.exists()


def test_a_changed_source_is_refused_before_it_is_imported(planted, cli) -> None:
    path = tampered(planted.folder, replica="plant:make", replica_sha256=planted.fingerprint())
    plant = planted.folder / "plant.py"
    plant.write_text(plant.read_text() + "# edited since the night\n")
    for argv in (["replay", str(path)], ["report", str(path)]):
        code, _, err = cli(*argv, "--replica", "plant:make")
        said = one_line(err)
        assert code == 2 and f"{path}:1: the source of replica plant:make changed" in said, said
    assert not planted.ran.exists() and "plant" not in sys.modules


@pytest.mark.parametrize("other", ["addition-gpt", "spiral-mlp", "tests.x:y"])
def test_another_replica_on_the_command_line_is_refused(planted, cli, other) -> None:
    path = tampered(planted.folder, replica="plant:make")
    code, _, err = cli("replay", str(path), "--replica", other)
    assert code == 2 and "pass --replica plant:make" in one_line(err)
    assert not planted.ran.exists()


def test_a_save_naming_a_replica_not_installed_says_which_to_install(planted, cli) -> None:
    path = tampered(planted.folder, replica="my-week3")
    code, _, err = cli("replay", str(path))
    said = one_line(err)
    assert code == 2 and f"{path}:1: this night ran replica my-week3" in said, said
    assert "install the package that declares the drill.replicas entry point 'my-week3'" in said


@pytest.mark.parametrize(
    "replica", ["os.system", "plant:make; rm", "../plant:make", "a" * 201, 3, ""]
)
def test_a_header_replica_that_is_neither_a_name_nor_a_factory_is_refused(
    planted, cli, replica
) -> None:
    path = tampered(planted.folder, replica=replica)
    code, _, err = cli("replay", str(path))
    said = one_line(err)
    assert code == 2 and f"{path}:1: the header's `replica`" in said, said


def test_a_default_save_header_is_as_it_was() -> None:
    # The shipped default leaves `replica` (and its fingerprint) out, so tests/golden holds.
    header = json.loads(GOLDEN.read_text().splitlines()[0])
    assert "replica" not in header and "replica_sha256" not in header

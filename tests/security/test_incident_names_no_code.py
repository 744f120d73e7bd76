"""An incident never names code: a learner job's `replica_factory` that is a module path
(`subprocess:run`, `os:system`, or a module planted beside the incident) is refused at its line
by `drill validate` and `drill run`, exit 2, and nothing of it runs.

Before the fix, `replica_factory: subprocess:run` with a `replica:` block whose keys are a
command passed validate, and `drill run` ran the command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.security.conftest import one_line

REPO = Path(__file__).resolve().parents[2]
SOURCE = (REPO / "incidents" / "dead-rank.yaml").read_text()
LINE = SOURCE.splitlines().index("    yours: true") + 2  # the line replica_factory goes on


def incident(folder: Path, factory: str) -> Path:
    """dead-rank with the learner job naming `factory`; for subprocess:run, its settings are
    the command `touch RAN` (a dict's keys are what subprocess.run would iterate)."""
    touch = shutil.which("touch") or "/usr/bin/touch"
    block = (
        f'    replica_factory: "{factory}"\n    replica: {{"{touch}": 1, "{folder / "RAN"}": 1}}\n'
    )
    assert "    yours: true\n" in SOURCE
    path = folder / "planted.yaml"
    path.write_text(SOURCE.replace("    yours: true\n", "    yours: true\n" + block, 1))
    return path


@pytest.mark.parametrize("factory", ["subprocess:run", "os:system", "plant:make"])
def test_an_incident_naming_code_is_refused_at_its_line_and_nothing_runs(
    planted, cli, factory
) -> None:
    path = incident(planted.folder, factory)
    for argv in (
        ["validate", str(path)],
        ["run", str(path), "--save", str(planted.folder / "night.jsonl")],
    ):
        code, out, err = cli(*argv)
        said = one_line(out + err)
        assert code == 2, said
        assert f"planted.yaml:{LINE}:" in said and "incident cannot name code" in said, said
        assert "--replica module:factory" in said, said  # how to choose a replica instead
    assert not planted.ran.exists(), "the incident's code ran"
    assert "plant" not in sys.modules
    assert not (planted.folder / "night.jsonl").exists()


def test_the_real_command_line_refuses_it_too(planted) -> None:
    # One sample through a real process, as a learner would run a downloaded incident.
    path = incident(planted.folder, "subprocess:run")
    done = subprocess.run(
        [sys.executable, "-m", "drill", "run", str(path)],
        cwd=planted.folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    said = one_line(done.stderr)
    assert done.returncode == 2 and f"planted.yaml:{LINE}:" in said, done.stderr
    assert not planted.ran.exists(), "the incident ran a command"


def test_validation_imports_nothing_for_a_name_and_refuses_one_not_installed(planted, cli):
    # A plain name is looked up in installed packages' metadata, never imported.
    path = incident(planted.folder, "plant")
    code, out, err = cli("validate", str(path))
    said = one_line(out + err)
    assert code == 2 and f"planted.yaml:{LINE}:" in said, said
    assert "no replica named 'plant' is installed" in said, said
    assert not planted.ran.exists() and "plant" not in sys.modules

"""The planted code the security tests offer to drill, and the real command line in process.

`planted` is a folder (the current one for the test) holding `plant.py`, a module that writes
the file RAN beside itself the moment it is imported. Every test offers it to drill through a
file someone else could have written, and then checks that RAN never appears.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PLANT = '''"""Planted by a test: importing this module is the attack."""
from pathlib import Path

Path(__file__).with_name("RAN").write_text("imported\\n")


def make(settings):
    return None
'''


@dataclass
class Planted:
    folder: Path

    @property
    def ran(self) -> Path:
        return self.folder / "RAN"

    def fingerprint(self) -> str:
        """What a save records for `plant:make`, computed here from the file's name and bytes
        alone (so the same source gives the same fingerprint on any machine)."""
        data = (self.folder / "plant.py").read_bytes()
        return hashlib.sha256(b"plant.py\0" + hashlib.sha256(data).digest()).hexdigest()


@pytest.fixture
def planted(tmp_path, monkeypatch) -> Planted:
    (tmp_path / "plant.py").write_text(PLANT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # drill may append the cwd; undo it
    yield Planted(tmp_path)
    sys.modules.pop("plant", None)


@pytest.fixture
def cli(capsys):
    """drill's real command line, in this process: (exit status, stdout, stderr)."""
    from drill.cli import main

    def run(*argv: str) -> tuple[int, str, str]:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


def one_line(err: str) -> str:
    """The single line drill says on standard error, with no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]

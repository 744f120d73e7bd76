"""Suite-wide setup: saves and caches go to a temporary folder, never into the repo's saves/,
and the game's config folder (key bindings, theme, command history) is a temporary one too, so
no test reads or writes the person's own ~/.config.

Set in the environment so that subprocesses (the real CLI) inherit it. The saves folder is
shared by the whole run on purpose, so the replica baseline and par/floor caches are paid for
once: with pytest-xdist every worker is its own session with its own temp folder, so the
workers share one beside theirs (the run's temp folder, which pytest removes with the run's).
Sharing is safe: a par/floor entry is written whole by a rename (drill/atomic_file.py), so two
workers at worst compute the same one twice, and the replica's baseline is trained under a file
lock (replica/baseline.py), so once.
"""

from __future__ import annotations

import os

import pytest


def shared_saves_folder(tmp_path_factory) -> os.PathLike:
    """One saves folder for the whole run, whichever xdist worker (or none) asks."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return tmp_path_factory.mktemp("saves")
    # A worker's temp folder is popen-gwN inside the run's: the run's is the same for all.
    folder = tmp_path_factory.getbasetemp().parent / "saves"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(autouse=True, scope="session")
def _saves_in_a_temp_folder(tmp_path_factory):
    folder = shared_saves_folder(tmp_path_factory)
    old = os.environ.get("DRILL_SAVES_DIR")
    os.environ["DRILL_SAVES_DIR"] = str(folder)
    old_config = os.environ.get("DRILL_CONFIG_DIR")
    os.environ["DRILL_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    yield folder
    for name, value in (("DRILL_SAVES_DIR", old), ("DRILL_CONFIG_DIR", old_config)):
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def _no_saves_folder_left_from_another_test():
    """`drill ... --saves-dir X` run in process sets the saves folder for the whole process
    (drill/saves_dir.py): a test that calls drill.cli.main directly would otherwise leave the
    next test in this worker reading par and baselines from its own temp folder (a leftover
    folder made two background-par tests in the TUI find par already measured, or unwritable)."""
    from drill import saves_dir

    saves_dir.set_saves_dir(None)
    yield
    saves_dir.set_saves_dir(None)

"""Suite-wide setup: saves and caches go to a temporary folder, never into the repo's saves/,
and the game's config folder (key bindings, theme, command history) is a temporary one too, so
no test reads or writes the person's own ~/.config.

Set in the environment so that subprocesses (the real CLI) inherit it. The folder is shared by
the whole session on purpose: the replica baseline and par/floor caches are paid for once.
"""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _saves_in_a_temp_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("saves")
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

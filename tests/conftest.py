"""Suite-wide setup: saves and caches go to a temporary folder, never into the repo's saves/.

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
    yield folder
    if old is None:
        os.environ.pop("DRILL_SAVES_DIR", None)
    else:
        os.environ["DRILL_SAVES_DIR"] = old

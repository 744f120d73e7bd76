"""An unusable saves/cache never costs the night (issue 20): a dangling link, a plain file where
the folder should be, or a disk that takes no more bytes gave a traceback and exit 1 after the
whole night, with no score line. Now the cache is best-effort: one warning line, and the score
is computed, saved and verifies. The real CLI, in process."""

from __future__ import annotations

import os
import resource

import pytest

from drill.cli import main
from drill.saves import read_save

ACTIONS = "03:26 status llm-pretrain\n+30s logs llm-pretrain\n"


def break_cache(how: str, saves) -> None:
    saves.mkdir()
    cache = saves / "cache"
    if how == "dangling-link":
        os.symlink(saves / "gone", cache)
    elif how == "plain-file":
        cache.write_text("not a folder")


@pytest.mark.parametrize("how", ["dangling-link", "plain-file", "no-space"])
def test_a_night_with_an_unusable_cache_is_scored_and_saved(how, tmp_path, capsys):
    saves = tmp_path / "saves"
    break_cache(how, saves)
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    save = tmp_path / "night.jsonl"
    argv = ["run", "dead-rank", "--backend", "sim", "--actions", str(actions)]
    argv += ["--saves-dir", str(saves), "--save", str(save)]
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if how == "no-space":
        # A file size limit between the save (about 3.5 kB) and the par cache (about 7.5 kB):
        # the disk takes the save and refuses the cache, as a nearly full one would.
        saves.mkdir(exist_ok=True)
        resource.setrlimit(resource.RLIMIT_FSIZE, (5_000, hard))
    try:
        code = main(argv)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Traceback" not in err
    warnings = [line for line in err.splitlines() if line.startswith("drill: warning:")]
    assert len(warnings) == 1, err
    assert "cannot write to the cache" in warnings[0] and "the night goes on" in warnings[0]
    loaded = read_save(save)
    assert loaded.finished and len(loaded.actions) == 2
    assert save.stat().st_size < 5_000  # the limit above was set where it refuses only the cache

    assert main(["replay", str(save), "--verify", "--saves-dir", str(saves)]) == 0
    assert "Verified" in capsys.readouterr().out

"""A config never names code. `[tool.drill] replica` in ./pyproject.toml takes an installed
replica's name only: a module path there is one line naming the file and the key, exit 2, and
nothing is imported. The game's own config.toml has no replica setting at all.

Before the fix, `[tool.drill] replica = "plant:make"` in the folder drill ran from made
`drill run` import plant.py."""

from __future__ import annotations

import sys

import pytest

from tests.security.conftest import one_line


@pytest.mark.parametrize("value", ["plant:make", "os:system", "subprocess:run", "plant.make"])
def test_a_project_config_naming_code_is_refused_and_nothing_runs(planted, cli, value) -> None:
    (planted.folder / "pyproject.toml").write_text(f'[tool.drill]\nreplica = "{value}"\n')
    for argv in (
        ["run", "dead-rank", "--save", str(planted.folder / "night.jsonl")],
        ["run", "dead-rank", "--backend", "sim", "--save", str(planted.folder / "n2.jsonl")],
    ):
        code, out, err = cli(*argv)
        said = one_line(err)
        assert code == 2 and out == "", said
        assert f"{planted.folder / 'pyproject.toml'}: [tool.drill] replica is '{value}'" in said
        assert "a file cannot name code" in said and "--replica module:factory" in said, said
    assert not planted.ran.exists(), "the config's code ran"
    assert "plant" not in sys.modules
    assert not list(planted.folder.glob("*.jsonl"))


def test_play_refuses_it_before_the_screen_opens(planted) -> None:
    import argparse

    from drill.commands.play import app_options

    (planted.folder / "pyproject.toml").write_text('[tool.drill]\nreplica = "plant:make"\n')
    with pytest.raises(ValueError, match=r"pyproject.toml: \[tool.drill\] replica is 'plant:make'"):
        app_options(argparse.Namespace(incident="dead-rank"))
    assert not planted.ran.exists()


def test_the_command_line_may_still_name_code(planted, cli) -> None:
    # The person typing it chose it: the same module is imported (and refused: it is no replica).
    code, _, err = cli("run", "dead-rank", "--replica", "plant:make", "--save", "n.jsonl")
    assert code == 2 and "replica plant:make is missing" in one_line(err), err
    assert planted.ran.exists()


def test_the_game_config_has_no_replica_setting(planted, tmp_path) -> None:
    from drill.tui.config import load_config

    (tmp_path / "config.toml").write_text('replica = "plant:make"\n')
    config = load_config(tmp_path)
    assert any("unknown setting `replica`" in p for p in config.problems), config.problems
    assert not planted.ran.exists() and "plant" not in sys.modules

"""Typos on the command line, in process through drill.cli.main: each is refused by the
command it was typed to, with what was meant, exit 2, and a name is never reported as a file
at line 1, column 1."""

from __future__ import annotations

import pytest

from drill.cli import main


@pytest.mark.parametrize("command", ["play", "run"])
def test_a_misspelt_incident_id_is_a_name_not_a_file(capsys, command) -> None:
    assert main([command, "dead-rnak", "--backend", "sim"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "drill: no incident named 'dead-rnak' (and no file by that name); did you mean"
        " `dead-rank`? `drill list` shows them all\n"
    )
    assert main([command, "zzzzqq", "--backend", "sim"]) == 2
    assert ":1:1" not in capsys.readouterr().err


def test_a_misspelt_path_still_names_the_file(capsys) -> None:
    assert main(["run", "nope/dead-rnak.yaml", "--backend", "sim"]) == 2
    assert capsys.readouterr().err.startswith("drill: nope/dead-rnak.yaml:1:1: file not found")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["play", "dead-rank", "--sped", "30"], "--sped 30; did you mean --speed?"),
        (["run", "dead-rank", "--refrence"], "--refrence; did you mean --reference?"),
        (["play", "dead-rank", "--seeed=2"], "--seeed=2; did you mean --seed?"),
        (
            ["play", "tutorial", "dead-rank"],
            "dead-rank; `drill play` takes one incident and already has 'tutorial'",
        ),
    ],
)
def test_an_unknown_word_is_refused_by_its_own_command(capsys, argv, said) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"usage: drill {argv[0]} " in err, err  # the command's usage, not drill's list
    assert "{run,play,serve" not in err
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith(f"drill {argv[0]}: error: unrecognized arguments: {said}")
    ), err

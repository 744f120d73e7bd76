"""Whatever a learner's replica raises is one line naming it (module:factory), exit 2.

In process through drill.cli.main, as the command line runs it: the factory raising something
other than a settings error, an attribute that raises when read, a method that raises while
the baseline warms up. A shipped replica that raises is a bug in drill and is not dressed up
as the learner's mistake."""

from __future__ import annotations

import pytest

from drill.cli import main
from replica.errors import ReplicaRefused
from replica.interface import LoadedReplica
from tests.replica.learner_replicas import BreaksLater

BAD = "tests.replica.learner_replicas"


@pytest.mark.parametrize(
    ("factory", "said"),
    [
        ("raiser", "its factory raised RuntimeError: my factory is broken: no GPU found"),
        ("bad_numbers", "reading its attributes raised RuntimeError: ranks are decided"),
        ("breaks_later", "batch(10, 0, 16) raised KeyError: 'shard 7 is missing'"),
    ],
)
def test_what_a_learners_replica_raises_is_one_line(tmp_path, capsys, factory, said) -> None:
    save = tmp_path / "night.jsonl"
    code = main(
        ["run", "dead-rank", "--reference", "--json", "--replica", f"{BAD}:{factory}",
         "--save", str(save), "--saves-dir", str(tmp_path / "saves")]
    )  # fmt: skip
    out = capsys.readouterr()
    assert code == 2, out.err
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith(f"drill: replica {BAD}:{factory}: "), lines[0]
    assert said in lines[0] and "fix" in lines[0], lines[0]
    assert "Traceback" not in out.err and "\u2014" not in out.err


def test_a_shipped_replica_that_raises_is_not_blamed_on_the_learner() -> None:
    loaded = LoadedReplica("addition-gpt", {}, BreaksLater({}))
    with pytest.raises(KeyError):
        loaded.batch(10, 0, 16)
    with pytest.raises(ReplicaRefused, match="fix batch"):
        LoadedReplica(f"{BAD}:breaks_later", {}, BreaksLater({})).batch(10, 0, 16)

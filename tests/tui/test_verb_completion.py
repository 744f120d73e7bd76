"""Completion and the command palette read the verbs' declarations: their typed arguments, their
options, and whose jobs they may touch. A verb added by its declaration completes and shows in
the palette without touching either module."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from drill.engine.actions.catalog import VERBS
from drill.engine.storage_view import storage_view
from drill.tui.completion import Names, complete, usage_line
from drill.tui.palette import _pools, named_entries
from tests.engine.test_verbs import PING, night

NAMES = Names(
    nodes=("gpu-a-1", "gpu-b-1"),
    jobs=("train", "eval"),
    own_jobs=("train",),
    volumes=("scratch",),
    alerts=("P1",),
    steps=("40", "20"),
)


@pytest.mark.parametrize(
    ("typed", "line", "choices"),
    [
        ("cancel ", "cancel train ", []),  # refused on another team's job: only yours
        ("status ", "status ", ["train", "eval"]),
        ("hold ", "hold train ", []),  # refused on another team's job: only yours
        ("restart ", "restart train ", []),
        ("ckpt prune train ", "ckpt prune train --keep ", []),
        ("restart train --include ", "restart train --include gpu-", ["gpu-a-1", "gpu-b-1"]),
        ("restart train --from ", "restart train --from ", ["40", "20", "latest", "scratch"]),
        ("quota ", "quota scratch ", []),
        ("wait ", "wait ", ["1m", "5m", "10m", "30m", "--until"]),  # a duration, or until
        ("wait --until ", "wait --until page ", []),
        ("wait 30m ", "wait 30m --until ", []),
        ("help ck", "help ckpt ", []),
        ("help ckpt ", "help ckpt ", ["list", "prune", "rm", "verify"]),
        ("note restart ", "note restart ", []),  # free text completes nothing
        ("kil", "kill ", []),  # kill a process on a node by its pid
        ("kill gpu-a", "kill gpu-a-1 ", []),
        ("kill gpu-a-1 ", "kill gpu-a-1 ", []),  # a pid is read off `gpus`, not guessed
        ("dmes", "dmesg ", []),
        ("systemctl gpu-a-1 nvidia-f", "systemctl gpu-a-1 nvidia-fabricmanager ", []),
        ("systemctl gpu-a-1 s", "systemctl gpu-a-1 slurmd ", []),
    ],
)
def test_completion_follows_each_verbs_declared_arguments(typed, line, choices):
    assert complete(typed, NAMES) == (line, choices)


def test_the_usage_hint_gives_both_forms_of_wait():
    assert usage_line("wait --u") == (
        "wait [DURATION] [--until page]: let the night run, like `wait 5m`, or until the next"
        " page with `--until page` (the time it runs)"
    )


def test_the_usage_hint_for_kill_names_the_node_and_pid():
    assert usage_line("kill g").startswith("kill NODE PID: kill a process on the node by its pid")


def test_a_declared_verb_completes_with_no_change_to_completion(monkeypatch):
    monkeypatch.setitem(VERBS, "ping", PING)
    assert complete("pi", NAMES) == ("ping ", [])
    assert complete("ping gpu-b", NAMES) == ("ping gpu-b-1 ", [])
    assert usage_line("ping gp") == "ping NODE: check that a node answers (5s)"


def _palette_lines(d) -> dict[str, list[str]]:
    frame = SimpleNamespace(snapshot=d.snapshot(), storage=storage_view(d))
    pools = _pools(frame)
    return {name: [line for _, _, line in named_entries(v, pools)] for name, v in VERBS.items()}


def test_the_palette_offers_each_verb_on_what_it_may_take():
    d = night(300)  # `later` is not submitted until 03:30
    lines = _palette_lines(d)
    assert lines["cancel"] == ["cancel train"]  # another team's job is theirs to cancel
    assert lines["restart"] == ["restart train"]  # not another team's job
    assert lines["priority"] == ["priority train "]  # still needs its class
    assert lines["ckpt prune"] == ["ckpt prune train "]  # still needs --keep
    assert "health gpu-a-1" in lines["health"]
    assert lines["df"] == ["df scratch"]
    assert lines["ack"] == ["ack P1"]
    assert not any("later" in line for found in lines.values() for line in found)
    assert lines["wait"] == [] and lines["note"] == []


def test_a_declared_verb_shows_in_the_palette(monkeypatch):
    monkeypatch.setitem(VERBS, "ping", PING)
    assert "ping gpu-a-1" in _palette_lines(night(300))["ping"]

"""The TUI's pure parts: pacing, completion, plan costs, the map's layout."""

from __future__ import annotations

import pytest

from drill.engine.drill import Drill
from drill.incident.library import resolve_incident
from drill.tui.completion import Names, complete, usage_line
from drill.tui.pacing import Pacing, parse_speed
from drill.tui.screens.plan import costs, defaults, plan_lines
from drill.tui.widgets.cluster_map import map_lines, rollup_lines

NAMES = Names(
    nodes=("gpu-a-1", "gpu-a-2", "gpu-b-1"),
    jobs=("llm-pretrain", "rl-007"),
    own_jobs=("llm-pretrain",),
    volumes=("scratch",),
    leaves=("leaf-a1", "leaf-b1"),
    alerts=("P1", "P2"),
    steps=("150", "100", "50"),
)


@pytest.mark.parametrize(
    ("typed", "line", "choices"),
    [
        ("dr", "drain", ["drain", "drain-leaf"]),
        ("drain-", "drain-leaf ", []),
        ("cordon-leaf leaf-b", "cordon-leaf leaf-b1 ", []),
        ("c", "c", ["cancel", "ckpt", "cordon", "cordon-leaf"]),
        ("ckpt v", "ckpt verify ", []),
        ("ckpt verify ", "ckpt verify llm-pretrain ", []),
        ("ckpt verify llm-pretrain 1", "ckpt verify llm-pretrain 1", ["150", "100"]),
        ("health gpu-b", "health gpu-b-1 ", []),
        ("restart llm-pretrain --f", "restart llm-pretrain --from ", []),
        ("restart llm-pretrain --from l", "restart llm-pretrain --from latest ", []),
        ("ack ", "ack ", ["P1", "P2", "all"]),
        ("set llm-pretrain ckpt-on", "set llm-pretrain ckpt-on-sigterm ", []),
        ("set llm-pretrain ckpt-on-sigterm ", "set llm-pretrain ckpt-on-sigterm ", ["yes", "no"]),
        ("priority rl-007 u", "priority rl-007 urgent ", []),
        ("df s", "df scratch ", []),
        ("spe", "speed ", []),
        ("note some words", "note some words", []),
        ("zzz", "zzz", []),
    ],
)
def test_tab_completes_verbs_and_names(typed, line, choices):
    assert complete(typed, NAMES) == (line, choices)


def test_usage_line_follows_the_verb_being_typed():
    assert usage_line("health gp").startswith("health NODE: run the node health check")
    assert usage_line("ckpt verify x").startswith("ckpt verify JOB STEP")
    assert usage_line("pause").startswith("pause:")
    assert usage_line("nonsense") == ""


def test_pacing_holds_and_speeds():
    pacing = Pacing(speed=60)
    assert pacing.sim_seconds(0.1) == pytest.approx(6.0)
    pacing.typing = True
    assert pacing.sim_seconds(0.1) == 0.0
    pacing.typing = False
    pacing.critical_page()
    assert not pacing.running
    pacing.acted()
    assert pacing.running
    pacing.faster()
    assert pacing.speed == 120
    pacing.slower()
    pacing.slower()
    assert pacing.speed == 30
    hard = Pacing(hard=True)
    hard.typing = True
    hard.critical_page()
    assert hard.running and not hard.page_hold
    with pytest.raises(ValueError):
        parse_speed("0")
    assert parse_speed("600x") == 600


def test_plan_costs_are_the_incidents_own_arithmetic():
    incident = resolve_incident("full-disk").incident
    values = defaults(incident)
    assert values == {"ckpt-every": 50, "ckpt-keep": 3}
    text = "\n".join(costs(incident, {"ckpt-every": 25, "ckpt-keep": 2}))
    assert "980.0GB (70B parameters x 14 bytes each)" in text
    assert "2 x 980.0GB = 2.0TB" in text
    assert "one every 5m, 12.0 an hour" in text
    assert plan_lines(incident, {"ckpt-every": 25, "ckpt-keep": 2}) == [
        "set llm-pretrain ckpt-every 25",
        "set llm-pretrain ckpt-keep 2",
    ]


def test_the_map_shows_a_dead_gpu_and_a_rollup_lists_unhealthy_nodes():
    drill = Drill(resolve_incident("dead-rank").incident, 1)
    drill.advance(31 * 60)
    cells = "\n".join(
        "".join(s.text for s in line) for line in map_lines(drill.snapshot(), 120, 40)
    )
    assert "X" not in cells.split("gpu-a-2", 1)[1].split("gpu-a-3")[0], "silence first"
    drill.act("health gpu-a-2")  # the look that shows the Xid: the map marks it from now
    drill.act("drain gpu-a-2")
    snapshot = drill.snapshot()
    text = "\n".join("".join(s.text for s in line) for line in map_lines(snapshot, 120, 40))
    assert "X" in text.split("gpu-a-2", 1)[1].split("gpu-a-3")[0]
    rollup = "\n".join("".join(s.text for s in line) for line in rollup_lines(snapshot, 120))
    assert "island a" in rollup and "island b" in rollup
    assert "Unhealthy nodes (1)" in rollup and "draining" in rollup


def test_no_em_dash_in_the_tui():
    from pathlib import Path

    import drill.tui

    root = Path(drill.tui.__file__).parent
    for path in [*root.rglob("*.py"), *root.rglob("*.tcss")]:
        assert "\u2014" not in path.read_text(encoding="utf-8"), path


def test_drill_play_refuses_bad_input_before_the_screen_opens(tmp_path, capsys):
    from drill.cli import main

    assert main(["play", "no-such-incident", "--backend", "sim"]) == 2
    assert "no-such-incident" in capsys.readouterr().err
    taken = tmp_path / "taken.jsonl"
    taken.write_text('{"type": "header"}\n')
    assert main(["play", "tutorial", "--backend", "sim", "--save", str(taken)]) == 2
    assert "a save already exists here" in capsys.readouterr().err
    done = tmp_path / "done.jsonl"
    assert main(["run", "tutorial", "--reference", "--backend", "sim", "--save", str(done)]) == 0
    capsys.readouterr()
    assert main(["play", "--resume", str(done)]) == 2
    assert "this night is finished" in capsys.readouterr().err


def test_small_losses_are_not_rounded_to_zero():
    """Audit defect 24: "loss 0.000 baseline 0.000" for a tiny CNN whose loss had fallen."""
    from drill.tui.widgets.loss_chart import LossChart, plot

    chart = LossChart()
    chart.update_data(losses=((3, 0.000412),), baseline=(0.9, 0.05, 0.000398), steps=10)
    summary = chart.summary().plain
    assert "loss 0.000412" in summary and "baseline 0.000398" in summary, summary
    rows = plot([(1, 0.0004), (2, 0.0003)], [], 30, 4, 2)
    labels = [row.plain[:7] for row in rows]
    assert "0.00" not in labels[0] and all(len(row.plain) == 30 for row in rows), labels
    chart.update_data(losses=((3, 2.3456),))
    assert "loss 2.346" in chart.summary().plain  # ordinary losses read as before

"""The season's figures: deterministic per seed, adding up, moved by the policies, and bad input
located with exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.cli import main
from drill.incident.loader import load_incident
from drill.incident.season import Policies
from drill.season.figures import play_season, play_season_world
from drill.sim.invariants import broken_rules

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SMALL = HERE / "small-fleet.yaml"


@pytest.fixture(scope="module")
def small():
    return load_incident(SMALL).incident


def shorter(incident, days: float):
    season = incident.season.model_copy(update={"length": days * 86400.0})
    return incident.model_copy(update={"season": season})


def test_same_seed_same_figures_other_seed_other_figures(small):
    first = play_season(small, 5).to_json()
    assert play_season(small, 5).to_json() == first
    assert play_season(small, 6).to_json() != first


def check_adds_up(figures) -> None:
    total = sum(seconds for _, seconds in figures.account())
    assert total == pytest.approx(figures.length, abs=1e-6)
    for name, seconds in figures.account():
        if name != "other":
            assert seconds >= 0, name
    # What no row names stays small: slow steps behind a flap, writes cut short.
    assert abs(figures.other) <= 0.01 * figures.length
    assert sum(row.interruptions for row in figures.causes) == len(figures.interruptions)
    for item in figures.interruptions:
        assert item.down >= -1e-6 and item.lost_work >= 0, item
    for row in figures.causes:
        mine = [i for i in figures.interruptions if i.cause == row.cause]
        assert row.lost == pytest.approx(sum(i.lost for i in mine))
    assert figures.storage_written == figures.checkpoint_writes * figures.checkpoint_size
    assert figures.storage_peak <= figures.policies["keep"] * figures.checkpoint_size
    assert figures.storage_mean <= figures.storage_peak
    times = [t for t, _ in figures.curve]
    assert times == sorted(times) and times[-1] == figures.length
    assert figures.curve[-1][1] == figures.effective


def test_the_figures_add_up_to_the_season(small):
    figures = play_season(small, 1)
    assert figures.interruptions, "the small fleet's season should see failures"
    check_adds_up(figures)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    auto_drain=st.booleans(),
    auto_restart=st.booleans(),
    health_check=st.booleans(),
    spares=st.integers(0, 3),
    every=st.integers(1, 60),
    keep=st.integers(1, 5),
)
def test_any_policies_keep_the_world_and_the_account_whole(
    small, seed, auto_drain, auto_restart, health_check, spares, every, keep
):
    policies = Policies(
        spares=spares,
        auto_drain=auto_drain,
        auto_restart=auto_restart,
        health_check=health_check,
        checkpoint_every=every,
        keep=keep,
    )
    world, figures = play_season_world(shorter(small, 1.5), seed, policies)
    assert broken_rules(world) == []
    check_adds_up(figures)


@pytest.mark.slow
def test_draining_and_checking_before_restart_cut_the_hardware_downtime(small):
    longer = shorter(small, 12)
    bare = Policies(auto_drain=False, health_check=False)
    careful = Policies(auto_drain=True, health_check=True)

    def hardware_down(policies):
        figures = play_season(longer, 3, policies)
        hits = [i for i in figures.interruptions if i.cause in ("gpu", "gpu_memory")]
        assert len(hits) >= 3
        return sum(i.down for i in hits) / len(hits)

    # Without them a restart lands on the broken GPU, crash-loops through its retries and
    # waits for a person.
    assert hardware_down(careful) < 0.6 * hardware_down(bare)


def test_cadence_is_a_storage_decision(small):
    often = play_season(small, 2, Policies(checkpoint_every=5, keep=4))
    rarely = play_season(small, 2, Policies(checkpoint_every=40, keep=1))
    assert often.storage_written > 4 * rarely.storage_written
    assert often.storage_peak == 4 * often.checkpoint_size
    assert rarely.storage_peak == rarely.checkpoint_size
    assert often.checkpoint_time > rarely.checkpoint_time


def run_cli(*args: str, capsys) -> tuple[int, str, str]:
    code = main(["season", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_deterministic_and_says_the_policies(capsys):
    code, out, _ = run_cli(str(SMALL), "--seed", "4", "--json", "--set", "keep=1", capsys=capsys)
    assert code == 0
    figures = json.loads(out)
    assert figures["policies"]["keep"] == 1 and figures["seed"] == 4
    assert sum(row["seconds"] for row in figures["account"]) == pytest.approx(
        figures["length"], abs=0.01
    )
    again = run_cli(str(SMALL), "--seed", "4", "--json", "--set", "keep=1", capsys=capsys)
    assert again[1] == out


def test_text_names_every_cause_and_the_storage(capsys):
    code, out, _ = run_cli(str(SMALL), capsys=capsys)
    assert code == 0
    for words in ("Effective training time", "GPU fell off the bus", "leaf switch or cable flap",
                  "checkpoint writes", "held at most"):  # fmt: skip
        assert words in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--set", "nonsense=1"], "--set nonsense=1: unknown policy"),
        (["--set", "auto_drain=maybe"], "auto_drain is yes or no"),
        (["--set", "spares=17"], "spares is a whole number from 0 to 16"),
        (["--set", "keep"], "--set keep: unknown policy"),
    ],
)
def test_bad_policies_are_one_line_and_exit_2(args, says, capsys):
    code, out, err = run_cli(str(SMALL), *args, capsys=capsys)
    assert code == 2 and out == ""
    assert says in err and len(err.strip().splitlines()) == 1


def test_an_incident_without_a_season_is_located(capsys):
    code, _, err = run_cli("dead-rank", capsys=capsys)
    assert code == 2
    assert "dead-rank.yaml:" in err and "no `season:` section" in err


def test_a_bad_season_section_is_located(tmp_path, capsys):
    text = SMALL.read_text(encoding="utf-8").replace(
        "  length: 3d\n", "  length: 3d\n  causes:\n    - {cause: gpu, share: 0.5}\n"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    code, _, err = run_cli(str(bad), capsys=capsys)
    assert code == 2
    line = text.splitlines().index("  causes:") + 1
    # At the list, the line under `causes:`.
    assert f"bad.yaml:{line + 1}:" in err and "add up to 0.5" in err


def test_a_season_past_its_bound_is_located(tmp_path, capsys):
    text = SMALL.read_text(encoding="utf-8").replace("  length: 3d\n", "  length: 91d\n")
    bad = tmp_path / "long.yaml"
    bad.write_text(text, encoding="utf-8")
    code, _, err = run_cli(str(bad), capsys=capsys)
    assert code == 2
    line = text.splitlines().index("  length: 91d") + 1
    assert f"long.yaml:{line}:" in err and "from a day to 90 days" in err


@pytest.mark.slow
def test_the_shipped_fleet_season_runs_from_the_command_line():
    done = subprocess.run(
        [sys.executable, "-m", "drill", "season", "fleet-season", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert figures["length"] == 28 * 86400
    assert len(figures["interruptions"]) >= 10
    assert 0.5 < figures["effective_share"] < 1.0


def test_a_season_is_the_same_in_another_process_with_another_hash_seed():
    import os

    outs = []
    for hash_seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-m", "drill", "season", str(SMALL), "--seed", "9", "--json"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout)
    assert outs[0] == outs[1]

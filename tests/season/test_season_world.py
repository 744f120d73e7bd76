"""The season's world is validated again with the season's bounds: its length is held to 1d to
90d (not the night's 12 h), and a policy that breaks a rule of the incident (spares past the
node cap) is an error located at the season field that set it, at load time and for `--set`."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.cli import main
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.incident.models import check_season_world, season_world
from drill.incident.season import Policies

HERE = Path(__file__).resolve().parent
SMALL = HERE / "small-fleet.yaml"

# 8,192 nodes without spares: the cap (spares included), so any spare breaks it.
AT_THE_CAP = """\
schema: 2
id: at-the-cap
title: A fleet at the node cap
briefing: Eight islands of 1,024 nodes.
night: {start: "00:00", length: 2h}
cluster:
  gpus_per_node: 8
  islands:
    - {name: a, leaves: 64, nodes_per_leaf: 16}
    - {name: b, leaves: 64, nodes_per_leaf: 16}
    - {name: c, leaves: 64, nodes_per_leaf: 16}
    - {name: d, leaves: 64, nodes_per_leaf: 16}
    - {name: e, leaves: 64, nodes_per_leaf: 16}
    - {name: f, leaves: 64, nodes_per_leaf: 16}
    - {name: g, leaves: 64, nodes_per_leaf: 16}
    - {name: h, leaves: 64, nodes_per_leaf: 16}
  mtbf: 100h
storage:
  - {name: ckpt, capacity: 100TB, read_bandwidth: 20GB/s, write_bandwidth: 10GB/s}
jobs:
  - name: run
    yours: true
    gpus: 32
    steps: 100
    step_time: 60s
    model_params: 7B
    checkpoint: {every: 10, keep: 2, volume: ckpt}
background: {utilization: 0.1, arrivals_per_hour: 1, sizes: [8]}
season:
  length: 3d
  policies:
    spares: SPARES
reference:
  - "00:01 status run"
"""


def write(tmp_path: Path, spares: int) -> Path:
    path = tmp_path / "at-the-cap.yaml"
    path.write_text(AT_THE_CAP.replace("SPARES", str(spares)))
    return path


def test_a_policy_that_breaks_the_node_cap_is_located_at_the_policy(tmp_path):
    with pytest.raises(IncidentError) as caught:
        load_incident(write(tmp_path, 1))
    text = str(caught.value)
    line = AT_THE_CAP.splitlines().index("    spares: SPARES") + 1
    assert f"at-the-cap.yaml:{line}:" in text, text
    assert "season's world" in text and "8200 nodes" in text, text


def test_the_same_fleet_without_spares_loads(tmp_path):
    incident = load_incident(write(tmp_path, 0)).incident
    assert check_season_world(season_world(incident, incident.season.policies)) is None


def test_the_season_length_is_held_to_the_season_bound_not_the_night_bound():
    incident = load_incident(SMALL).incident
    world = season_world(incident, incident.season.policies)
    assert world.night.length == 3 * 86400.0 and check_season_world(world) is None
    night = world.night.model_copy(update={"length": 91 * 86400.0})
    message, where = check_season_world(world.model_copy(update={"night": night}))
    assert where == ("season", "length") and "1d and 90d" in message


def test_set_on_the_command_line_is_checked_too(tmp_path, capsys):
    path = write(tmp_path, 0)
    code = main(["season", str(path), "--set", "spares=2"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.count("\n") == 1 and "season.policies.spares" in err and "8208 nodes" in err, err


def test_a_policy_within_the_rules_passes():
    incident = load_incident(SMALL).incident
    assert check_season_world(season_world(incident, Policies(spares=16, keep=1))) is None

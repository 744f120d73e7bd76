"""The season's own causes: a NIC that goes down is one node, not its leaf; silent data corruption
fails nothing, and when the loss shows it the job goes back to a checkpoint from before it."""

from __future__ import annotations

from pathlib import Path

import pytest

from drill.incident.loader import load_incident
from drill.incident.season import Policies
from drill.season.figures import play_season
from drill.season.play import SeasonWorld, prepared
from drill.season.progress import training

SMALL = Path(__file__).resolve().parent / "small-fleet.yaml"


def quiet_world(season_update: dict | None = None, policies: Policies | None = None):
    """The small fleet with no random strikes (the test strikes by hand), and a 3-node job, so
    its leaf of 4 has a node that is not the job's."""
    incident = load_incident(SMALL).incident
    season = incident.season.model_copy(update={"mtbf": 100_000 * 3600.0, **(season_update or {})})
    jobs = [j.model_copy(update={"gpus": 24}) if j.yours else j for j in incident.jobs]
    incident = incident.model_copy(update={"season": season, "jobs": jobs})
    policies = policies or season.policies
    world = SeasonWorld(prepared(incident, policies), 1, season, policies)
    world.env.run(until=3 * 3600)
    assert training(world.mine)
    return world


def test_a_nic_fails_its_own_node_and_not_its_leaf():
    world = quiet_world()
    job = world.mine
    mine = set(job.nodes)
    leaf = world.cluster.nodes[job.nodes[0]].leaf
    neighbours = [n for n in world.cluster.leaves[leaf][1] if n not in mine]
    assert neighbours, "the test needs a node behind the job's leaf that is not the job's"
    attempt = job.current
    world._strike(world.cluster.nodes[neighbours[0]], "nic", 0, 1)
    world.env.run(until=world.now + 120)
    assert job.current is attempt and training(job), "a neighbour's NIC is not the job's"
    assert world.strikes[-1].hit is False
    world._strike(world.cluster.nodes[job.nodes[0]], "nic", 0, 2)
    world.env.run(until=world.now + 120)
    assert attempt.crashed or attempt.ended
    assert world.strikes[-1].hit is True
    said = "\n".join(line.text for line in job.log.lines)
    assert "NET/IB" in said and "transport retry counter exceeded" in said


def test_a_restart_onto_a_dead_port_fails_until_the_health_check_takes_it_out():
    world = quiet_world(policies=Policies(health_check=True))
    job = world.mine
    node = job.nodes[0]
    world._strike(world.cluster.nodes[node], "nic", 0, 1)
    world.env.run(until=world.now + 3600)
    assert node in world.under_repair
    assert node not in job.nodes and training(job)


@pytest.mark.parametrize("keep", [1, 5])
def test_silent_corruption_fails_nothing_until_the_loss_shows_it(keep):
    world = quiet_world({"sdc_found_after": 1800.0}, Policies(keep=keep, checkpoint_every=10))
    job = world.mine
    attempt = job.current
    struck_at_step = job.step
    world._strike(world.cluster.nodes[job.nodes[0]], "sdc", 0, 1)
    world.env.run(until=world.now + 1700)
    assert job.current is attempt and training(job) and not world.strikes
    world.env.run(until=world.now + 200)
    strike = world.strikes[-1]
    assert strike.cause == "sdc" and strike.hit
    # Every checkpoint written after the corruption is gone; the job goes back before it.
    assert all(r.step <= struck_at_step for r in job.checkpoints.live())
    lost = strike.kept_before - strike.kept_after
    assert lost >= 1800.0 - job.step_time * 2  # at least the half hour it went unseen
    if keep == 1:
        # Retention kept only checkpoints written after it: back to step 0.
        assert strike.kept_after == 0.0
    else:
        assert strike.kept_after > 0.0


def test_retention_shorter_than_the_time_sdc_goes_unseen_costs_the_run():
    """The season's lesson about SDC: keep a checkpoint older than the corruption can hide."""
    incident = load_incident(SMALL).incident
    data = incident.season.model_dump()
    data.update(causes=[{"cause": "sdc", "share": 1.0}], sdc_found_after=3600.0)
    season = type(incident.season).model_validate(data)
    incident = incident.model_copy(update={"season": season})
    short = play_season(incident, 3, Policies(keep=1, checkpoint_every=10))
    long = play_season(incident, 3, Policies(keep=12, checkpoint_every=10))
    sdc_short = next(row for row in short.causes if row.cause == "sdc")
    sdc_long = next(row for row in long.causes if row.cause == "sdc")
    assert sdc_short.interruptions >= 1
    assert sdc_short.lost_work > 2 * sdc_long.lost_work

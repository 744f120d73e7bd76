"""fleet-season against the published account it is set from: Meta's Llama 3 report (54 days,
16,384 H100 GPUs), 419 unexpected interruptions on 2,048 nodes (drill/values/failure_account.py).

The rate and the mix are measured on the season's own engine run (seed 1, 28 days, about 217
interruptions expected), not read back from the file. The tolerance comes from the number of
events: a count of N events is Poisson, so the measured count must lie within 3 standard
deviations (3 sqrt(expected)) of the expected count, about 20% at 217 events; each cause's share
is binomial, so it must lie within 3 sqrt(q(1-q)/N) of its published share q, about 8 points for
GPU memory. A one-in-a-few-hundred draw would fail at random, but the run is seeded, so the test
is stable; it fails when the rate or the mix is set back (500h per node, GPU memory at 30%).
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from drill.incident.library import resolve_incident
from drill.season.figures import play_season_world
from drill.values import failure_account as account

HOUR = 3600.0


@pytest.fixture(scope="module")
def season_run():
    incident = resolve_incident("fleet-season").incident
    world, figures = play_season_world(incident, 1)
    return incident, world, figures


def test_the_season_is_set_from_the_account():
    """The file's numbers are the account's: the per-node MTBF, and a fleet that with its scale
    counts as many nodes as the account's, so it fails as often as that fleet did."""
    incident = resolve_incident("fleet-season").incident
    season = incident.season
    nodes = sum(i.leaves * i.nodes_per_leaf for i in incident.cluster.islands)
    assert season.mtbf / HOUR == pytest.approx(account.NODE_MTBF_HOURS, rel=0.01)
    assert nodes * season.scale == account.NODES
    assert {c.cause: c.share for c in season.causes} == dict(account.published_mix())


def test_the_measured_rate_is_the_published_rate(season_run):
    incident, world, figures = season_run
    nodes = sum(i.leaves * i.nodes_per_leaf for i in incident.cluster.islands)
    published_per_hour = account.INTERRUPTIONS / account.HOURS  # the whole 2,048-node fleet
    expected = published_per_hour * (nodes * incident.season.scale / account.NODES)
    expected *= figures.length / HOUR
    measured = len(world.strikes)
    assert abs(measured - expected) <= 3 * math.sqrt(expected), (measured, expected)


def test_the_measured_mix_is_the_published_mix(season_run):
    _, world, _ = season_run
    counts = Counter(strike.cause for strike in world.strikes)
    total = sum(counts.values())
    assert set(counts) <= set(account.PUBLISHED)
    for cause in account.PUBLISHED:
        share = account.published_share(cause)
        tolerance = 3 * math.sqrt(share * (1 - share) / total)
        measured = counts[cause] / total
        assert abs(measured - share) <= tolerance, (cause, measured, share, tolerance)


def test_gpu_faults_outnumber_storage_and_network_together(season_run):
    """What the account says in one line: GPUs and their memory are most of it."""
    _, world, _ = season_run
    counts = Counter(strike.cause for strike in world.strikes)
    gpu = counts["gpu"] + counts["gpu_memory"]
    assert gpu > 0.5 * len(world.strikes)
    assert gpu > counts["network"] + counts["nic"] + counts["node"]


def test_the_season_says_its_fleet_is_scaled(season_run):
    from drill.season.text import render

    text = render(season_run[2])
    assert "Failure rate: one per node every 6,335 h, each node standing for 32" in text

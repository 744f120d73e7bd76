"""The bad data shard night, pinned at two seeds: the reference recovers, doing nothing does
not, and each graded runbook lands strictly between them and loses the most in the component
its `loses_in` names. Its lesson is the damage bad data leaves in the weights, which only the
replica measures, so the graded runbooks run there (slow); the sim pins the reference and
doing nothing, which it can count.

Written out here rather than read from `drill test`'s own checks, as in test_nights_a.py.
"""

from __future__ import annotations

import re

import pytest

from drill.engine.drill import Drill
from drill.incident.library import resolve_incident
from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

NAME = "bad-data-shard"
SEEDS = (1, 2)
# runbook name -> (recovered, components it may lose most in)
BOOKS = {
    "restart-from-latest": (True, {"progress"}),
    "rewind-without-skip": (True, {"progress"}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_reference_recovers_and_nothing_does_not_on_the_sim(seed):
    check_night(NAME, seed, "sim", BOOKS, graded=False)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_night_on_the_replica(seed):
    check_night(NAME, seed, "inprocess", BOOKS)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({NAME: SEEDS})


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_the_hints_and_takeaways_say_what_the_loss_shows(seed, tmp_path):
    """The texts agree with the loss rank 0 prints on the replica (audit row 39): fine at 110,
    high from 120 to 140, down again from 150. None of them says the jump never comes back
    down; the lesson is that the weights keep the damage after the loss does."""
    incident = resolve_incident(NAME).incident
    d = Drill.create(incident, seed, "inprocess", cache_dir=tmp_path)
    try:
        d.advance(34 * 60)  # 03:34: step 150 printed, before the OOM kill (03:37 at the earliest)
        log = d.act("logs llm-pretrain --rank 0").output
    finally:
        d.close()
    loss = {int(s): float(v) for s, v in re.findall(r"step (\d+) loss ([\d.]+)", log)}
    assert {110, 120, 130, 140, 150} <= set(loss), log
    assert min(loss[120], loss[130], loss[140]) > loss[110] + 0.05, loss
    assert loss[150] < min(loss[120], loss[130], loss[140]) - 0.05, loss
    texts = [h.text for h in incident.hints] + [str(t) for t in incident.debrief.takeaways]
    said = " ".join(texts).lower()
    assert "does not come back down" not in said and "stays high" not in said, texts
    assert "down again at 150" in said

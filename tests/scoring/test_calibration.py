"""The calibration suite: every class of worse practice lands in its band, on every shipped
incident where the class applies, at three seeds.

The runbooks are made from each incident's own reference by drill/engine/worse_runbooks.py (drop
the informing looks, throw the checkpoint away, leave the broken node schedulable, skip extra
data), so a new incident is calibrated the day it ships. Each must score below its class's
ceiling and at least its margin below the reference. On the sim backend for every night; on the
real replica (slow) for the nights whose lesson is in the weights.
"""

from __future__ import annotations

import pytest

from drill.engine.scoring.par import measured_run, par_and_floor, score_against
from drill.engine.worse_runbooks import CLASSES, worse_runbooks
from drill.incident.library import incident_files
from drill.incident.loader import load_incident
from drill.saves_dir import cache_dir

SEEDS = (1, 2, 3)
# The nights whose lesson is in the weights: their classes are also played on the replica.
WEIGHTS_NIGHTS = ("bad-data-shard", "corrupt-checkpoint", "silent-gpu-corruption")


def _shipped() -> dict[str, object]:
    out = {}
    for path in incident_files([]):
        incident = load_incident(path).incident
        out[incident.id] = incident
    return out


SHIPPED = _shipped()
CASES = [
    (name, book.kind.name)
    for name, incident in sorted(SHIPPED.items())
    for book in worse_runbooks(list(incident.reference))
]


def _band(name: str, kind: str, seed: int, backend: str) -> tuple[float, float, str]:
    incident = SHIPPED[name]
    book = next(b for b in worse_runbooks(list(incident.reference)) if b.kind.name == kind)
    par, floor = par_and_floor(incident, seed, backend, cache_dir=cache_dir())
    reference = score_against(incident, par, par, floor)
    mine = measured_run(incident, seed, backend, list(book.lines), book.name, cache_dir=cache_dir())
    score = score_against(incident, mine, par, floor)
    lost = {
        c.name: round(reference.component(c.name).points - c.points, 1)
        for c in score.components
        if reference.component(c.name).points != c.points
    }
    shown = f"{name} {book.name} seed {seed} on {backend}: {score.total} against {reference.total}; lost {lost}"
    return score.total, reference.total, shown


def test_every_class_applies_somewhere():
    """A class no shipped incident exercises is a class nobody checks."""
    seen = {kind for _, kind in CASES}
    assert seen == set(CLASSES), f"classes with no shipped incident: {set(CLASSES) - seen}"


@pytest.mark.parametrize("name,kind", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_worse_class_lands_in_its_band_on_sim(name, kind):
    _lands_in_band(name, kind, "sim")


def _lands_in_band(name: str, kind: str, backend: str) -> None:
    band = CLASSES[kind]
    for seed in SEEDS:
        total, reference, shown = _band(name, kind, seed, backend)
        assert total < band.ceiling, f"{shown}; the band is below {band.ceiling}"
        assert total <= reference - band.margin, f"{shown}; must be {band.margin} below"


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,kind",
    [case for case in CASES if case[0] in WEIGHTS_NIGHTS],
    ids=[f"{n}-{k}" for n, k in CASES if n in WEIGHTS_NIGHTS],
)
def test_worse_class_lands_in_its_band_on_the_replica(name, kind):
    _lands_in_band(name, kind, "inprocess")

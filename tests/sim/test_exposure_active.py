"""Exposure keeps the records still active apart, so a season's ticks read only the nodes still
broken since their evidence (drill/sim/exposure.py). A node fixed drops out; broken again, it
counts only from new evidence; and the ticks stop once nothing seen is broken."""

from __future__ import annotations

from drill.sim.exposure import TICK
from drill.sim.invariants import broken_rules
from tests.drillkit import build, drill, job_spec


def _night():
    incident = build(jobs=[job_spec("train", yours=True, steps=5000)])
    d = drill(incident)
    d.advance(600)
    return d, d.world


def test_a_node_seen_broken_then_fixed_drops_out_and_counts_again_only_from_new_evidence():
    d, world = _night()
    exposure = world.exposure
    node = next(n for n in world.cluster.nodes.values() if n.name not in world.jobs["train"].nodes)
    node.gpus[0].broken = True
    exposure.saw(node, "a look showed it")
    assert list(exposure._active) == [node.name] and not broken_rules(world)
    d.advance(3 * TICK)
    assert exposure.nodes[node.name].seconds > 0  # offered to others broken, tick by tick

    node.gpus[0].broken = False  # fixed (as a reset would): noticed within a tick
    d.advance(2 * TICK)
    assert not exposure.nodes[node.name].active and not exposure._active
    offered = exposure.nodes[node.name].seconds
    assert not broken_rules(world)
    assert not exposure._ticking  # nothing seen is broken: no more ticks

    node.gpus[0].broken = True  # broken again, and nobody has looked since
    d.advance(3 * TICK)
    assert exposure.nodes[node.name].seconds == offered  # no evidence, no exposure
    exposure.saw(node, "a page named it")
    assert list(exposure._active) == [node.name] and not broken_rules(world)
    d.advance(3 * TICK)
    assert exposure.nodes[node.name].seconds > offered

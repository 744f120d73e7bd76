"""The dead NIC night, pinned at two seeds: the reference (exclude the one node whose port
flaps) recovers, doing nothing does not, and each graded runbook lands strictly between them and
loses the most in the component its `loses_in` names. Its lesson is placement, so the sim
carries it.

Written out here rather than read from `drill test`'s own checks, as in test_nights_a.py.
"""

from __future__ import annotations

import pytest

from drill.incident.library import resolve_incident
from tests.library.pins import assert_seeds_are_the_incidents_own, check_night

NAME = "dead-nic"
SEEDS = (1, 2)
# runbook name -> (recovered, components it may lose most in)
BOOKS = {
    "restart-in-place": (False, {"progress", "recovered"}),
    "reboot-the-node": (False, {"progress", "recovered"}),
    "exclude-the-whole-leaf": (False, {"progress", "recovered"}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_night_on_the_sim(seed):
    check_night(NAME, seed, "sim", BOOKS)


def test_the_pinned_seeds_are_the_incidents_own():
    assert_seeds_are_the_incidents_own({NAME: SEEDS})


def test_the_fix_is_one_node_not_its_leaf():
    incident = resolve_incident(NAME).incident
    fault = incident.faults[0]
    assert (fault.kind, fault.target.job, fault.target.rank) == ("port_flap", "llm-pretrain", 11)
    acts = [line.split(" ", 1)[1] for line in incident.reference]
    assert "cordon gpu-a-2" in acts
    assert "restart llm-pretrain --from latest --exclude gpu-a-2" in acts
    assert not any("cordon-leaf" in a or "drain-leaf" in a for a in acts)
    assert incident.order == 9


def test_flapping_leaf_blames_the_switch_not_an_uplink():
    # Audit row 12: an uplink cannot fail a gang whose two nodes sit behind the same leaf; the
    # night's fault is the leaf switch resetting, and its texts and reference say so.
    incident = resolve_incident("flapping-leaf").incident
    shown = [h.text for h in incident.hints] + list(incident.debrief.takeaways)
    shown += [book.why for book in incident.runbooks]
    assert not any("uplink" in text for text in shown), shown
    assert any("ibstat" in line for line in incident.reference)
    assert {f.kind for f in incident.faults} == {"link_flap"}

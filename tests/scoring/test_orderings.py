"""Orderings a senior on-call engineer would sign, on every shipped incident, on the sim backend
and the real replica, at two seeds:

    reference > the reference 30 minutes late > a blind restart >= doing nothing (where a blind
    restart runs into the same fault again: dead-rank, full-disk; elsewhere a blind restart can
    work and a late one can find the cluster full, so only reference > both >= doing nothing).
    A blind restart may fall below doing nothing by its expected harm to others alone: on
    dead-rank it frees the broken node for whichever team's job comes next (the ensemble's
    collateral), which doing nothing never does.
    three hints > deleting the newest good checkpoint
    30 minutes late > rebooting the nodes other teams' jobs run on
"""

from __future__ import annotations

import pytest

from drill.engine.scoring.par import reference_actions
from drill.saves_dir import cache_dir
from tests.scoring.nights import (
    facts,
    incident,
    late,
    reference_score,
    score_of,
    state_after,
)
from tests.scoring.test_worse_practice import dead_rank_runbooks

SHIPPED = ["tutorial", "dead-rank", "full-disk", "preempted-job"]
BLIND_RESTART_FAILS = {"dead-rank", "full-disk"}


def concrete_reference(name: str, seed: int, backend: str) -> list[str]:
    """The reference as a learner would type it at this seed: its real times and names."""
    return [
        f"{a['clock']} {a['text']}"
        for a in reference_actions(incident(name), seed, backend, cache_dir=cache_dir())
    ]


def reference_late(name: str, seed: int, backend: str, minutes: float = 30) -> list[str]:
    """Every line of the reference `minutes` later, except a pre-shift plan at the start."""
    lines = concrete_reference(name, seed, backend)
    start = incident(name).night.start
    plan = [line for line in lines if line.startswith(f"{start} set ")]
    rest = [line for line in lines if line not in plan]
    shifted = [late([line], minutes)[0] for line in rest]
    return plan + shifted


def blind_restart(name: str, seed: int) -> list[str]:
    f = facts(name, seed)
    job = incident(name).learner_job.name
    return [f"{f.at(f.first_page + 60)} restart {job} --from latest"]


def _orderings(name: str, seed: int, backend: str) -> None:
    ref = reference_score(name, seed, backend).total
    slow = score_of(name, seed, backend, reference_late(name, seed, backend)).total
    blind_score = score_of(name, seed, backend, blind_restart(name, seed))
    nothing_score = score_of(name, seed, backend, [])
    blind, nothing = blind_score.total, nothing_score.total
    # What the blind restart's expected harm to other teams cost beyond doing nothing's, in
    # points of the total (out of the weights this night scores).
    possible = sum(c.weight for c in blind_score.components)
    lost = nothing_score.component("collateral").points - blind_score.component("collateral").points
    harm = max(0.0, 100.0 * lost / possible)
    shown = f"reference {ref}, 30 minutes late {slow}, blind restart {blind}, nothing {nothing}"
    # Totals are rounded to a tenth.
    assert ref > slow >= nothing and ref > blind and blind + harm >= nothing - 0.1, (
        f"{name} seed {seed} on {backend}: {shown}"
    )
    if name in BLIND_RESTART_FAILS:
        assert slow > blind, f"{name} seed {seed} on {backend}: {shown}"


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", SHIPPED)
def test_reference_beats_late_beats_blind_restart_on_sim(name, seed):
    _orderings(name, seed, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", SHIPPED)
def test_reference_beats_late_beats_blind_restart_on_the_replica(name, seed):
    _orderings(name, seed, "inprocess")


def _with_hints(lines: list[str], count: int) -> list[str]:
    first, *rest = lines
    return [first, *(["+0s hint"] * count), *rest]


def _newest_good_deleted(name: str, seed: int, lines: list[str]) -> list[str]:
    after = [*lines, "+5m ckpt list " + incident(name).learner_job.name]
    d = state_after(name, seed, after)
    newest = max(r.step for r in d.learner_job.checkpoints.live() if r.condition == "ok")
    return [*after, f"+0s ckpt rm {incident(name).learner_job.name} {newest}"]


def _hints_and_harms(seed: int, backend: str) -> None:
    fix = dead_rank_runbooks(seed)
    base = [line for line in concrete_reference("dead-rank", seed, backend)]
    hints = score_of("dead-rank", seed, backend, _with_hints(base, 3)).total
    deleted = score_of(
        "dead-rank", seed, backend, _newest_good_deleted("dead-rank", seed, base)
    ).total
    assert hints > deleted, f"three hints {hints}, deleting the newest good checkpoint {deleted}"
    slow = score_of("dead-rank", seed, backend, reference_late("dead-rank", seed, backend)).total
    harmed = score_of("dead-rank", seed, backend, fix["reboot the nodes other teams run on"]).total
    assert slow > harmed, f"30 minutes late {slow}, rebooting other teams' nodes {harmed}"


@pytest.mark.parametrize("seed", [1, 2])
def test_hints_beat_deleting_a_checkpoint_and_late_beats_harming_others_on_sim(seed):
    _hints_and_harms(seed, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_hints_beat_deleting_a_checkpoint_and_late_beats_harming_others_on_the_replica(seed):
    _hints_and_harms(seed, "inprocess")


def _faster(seed: int, backend: str) -> None:
    """Acting sooner than the reference is not punished: pages that the fix itself caused, or
    that arrive after the last action, are each measured from their own arrival."""
    fix = dead_rank_runbooks(seed)["blind restart at the first page"]
    f = facts("dead-rank", seed)
    node = f.node
    fast = [
        f"{f.at(f.first_page + 30)} ack all",
        "+0s status llm-pretrain",
        f"+0s health {node}",
        f"+0s drain {node}",
        f"+0s restart llm-pretrain --from latest --exclude {node}",
        f"+0s swap {node}",
        "+0s note fell off the bus; drained, restarted without it, spare in",
    ]
    assert fix  # the first page is known at this seed
    faster = score_of("dead-rank", seed, backend, fast)
    ref = reference_score("dead-rank", seed, backend)
    assert faster.total >= ref.total - 0.5, (faster.total, ref.total)
    assert faster.component("discipline").points == faster.component("discipline").weight


@pytest.mark.parametrize("seed", [1, 2])
def test_acting_sooner_than_the_reference_costs_nothing_on_sim(seed):
    _faster(seed, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_acting_sooner_than_the_reference_costs_nothing_on_the_replica(seed):
    _faster(seed, "inprocess")

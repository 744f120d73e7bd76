"""Worse practice scores well below the better one, on the sim backend and on the real replica,
at two seeds: every runbook here is one a senior on-call engineer would call wrong, and each
must score at least 10 points below its incident's reference.

They were found by trying to game the score: hold, demote or resize another team's urgent job;
cancel it (refused now, so it does nothing); a pre-shift plan that keeps one checkpoint; dodging a fault by restarting just before
it; looking hours before the fault; `status` standing in for a look at the job; putting a node
with a dead GPU back in service; deleting the newest good checkpoint; pruning and restarting
without looking; rebooting the nodes other teams' jobs run on; an idle night with a restart from scratch near
the end; a blind restart.
"""

from __future__ import annotations

import pytest

from tests.scoring.nights import facts, reference_score, score_of, state_after

MARGIN = 10.0


def _dead_rank_fix(seed: int, delay: float = 330.0) -> list[str]:
    f = facts("dead-rank", seed)
    node = f.node
    return [
        f"{f.at(f.fault_time + delay)} ack all",
        "+0s status llm-pretrain",
        f"+0s health {node}",
        f"+0s drain {node}",
        f"+0s restart llm-pretrain --from latest --exclude {node}",
        f"+0s swap {node}",
        "+0s note GPU fell off the bus; drained, restarted without it, spare swapped in",
    ]


def _newest_good(name: str, seed: int, lines: list[str]) -> int:
    d = state_after(name, seed, lines)
    return max(r.step for r in d.learner_job.checkpoints.live() if r.condition == "ok")


def _their_nodes(name: str, seed: int, lines: list[str], count: int) -> list[str]:
    """Nodes that run other teams' work and none of the learner's at that moment."""
    d = state_after(name, seed, lines)
    nodes = [
        n.name
        for n in d.world.cluster.nodes.values()
        if n.allocations and not any(d.world.jobs[j].yours for j in n.allocations)
    ]
    assert len(nodes) >= min(count, 2), f"only {len(nodes)} nodes run other teams' work then"
    return sorted(nodes)[:count]


def dead_rank_runbooks(seed: int) -> dict[str, list[str]]:
    f = facts("dead-rank", seed)
    node, fix = f.node, _dead_rank_fix(seed)
    after = [*fix, "+5m ckpt list llm-pretrain"]
    newest = _newest_good("dead-rank", seed, after)
    theirs = _their_nodes("dead-rank", seed, [*fix, "+20m nodes"], 4)
    return {
        "restart seconds before the fault": [
            f"{f.at(f.fault_time - 5)} restart llm-pretrain --from latest"
        ],
        "a look before the fault covers the surgery": [
            f"03:00 health {node}",
            f"{f.at(f.fault_time + 330)} ack all",
            f"+0s drain {node}",
            f"+0s restart llm-pretrain --from latest --exclude {node}",
            f"+0s swap {node}",
            "+0s note drained and swapped",
        ],
        "status with no job stands in for a look": [
            f"{f.at(f.fault_time + 330)} ack all",
            "+0s status",
            f"+0s drain {node}",
            f"+0s restart llm-pretrain --from latest --exclude {node}",
            f"+0s swap {node}",
            "+0s note drained and swapped",
        ],
        "uncordon the node with the dead GPU": [*fix[:5], f"+2m uncordon {node}", "+0s note back"],
        "delete the newest good checkpoint": [*after, f"+0s ckpt rm llm-pretrain {newest}"],
        # Cancelling their jobs is refused now (tests/scoring/test_risk_left_behind.py); a
        # reboot of the nodes their work runs on is still an operator's call, and costs it.
        "reboot the nodes other teams run on": [
            *fix,
            "+20m nodes",
            *(f"+0s reboot {node}" for node in theirs),
        ],
        "idle night, restart from scratch at 04:50": ["04:50 restart llm-pretrain --from scratch"],
        "blind restart at the first page": [
            f"{f.at(f.first_page + 60)} restart llm-pretrain --from latest"
        ],
    }


def preempted_job_runbooks(seed: int) -> dict[str, list[str]]:
    return {
        "hold the urgent job before it is submitted": ["03:00 hold eval-urgent"],
        "demote another team's urgent job": ["03:27 priority eval-urgent low"],
        "resize another team's urgent job": ["03:27 restart eval-urgent --world 8"],
        "cancel another team's urgent job": ["03:27 queue", "+0s cancel eval-urgent"],
        "jump the queue by raising your own job": [
            "03:27 ack all",
            "+0s queue",
            "+0s priority llm-pretrain urgent",
            "+0s note raised to urgent",
        ],
    }


def full_disk_runbooks(seed: int) -> dict[str, list[str]]:
    return {
        "keep one checkpoint, written in place": ["03:00 set llm-pretrain ckpt-keep 1"],
        "prune and restart without looking": [
            "03:56 ack all",
            "+0s ckpt prune llm-pretrain --keep 1",
            "+0s restart llm-pretrain --from latest",
            "+0s note pruned",
        ],
        "restart from latest without looking": [
            "03:56 ack all",
            "+0s restart llm-pretrain --from latest",
        ],
    }


def tutorial_runbooks(seed: int) -> dict[str, list[str]]:
    f = facts("tutorial", seed)
    return {
        "restart without looking": [f"{f.at(f.first_page + 60)} restart tiny-train --from latest"],
    }


BUILDERS = {
    "dead-rank": dead_rank_runbooks,
    "preempted-job": preempted_job_runbooks,
    "full-disk": full_disk_runbooks,
    "tutorial": tutorial_runbooks,
}
CASES = [(incident, name) for incident, build in BUILDERS.items() for name in build(1)]


def _check(incident: str, name: str, seed: int, backend: str) -> None:
    lines = BUILDERS[incident](seed)[name]
    mine = score_of(incident, seed, backend, lines)
    ref = reference_score(incident, seed, backend)
    shown = ", ".join(f"{c.name} {c.points:+.1f}" for c in mine.components if c.weight)
    assert mine.total <= ref.total - MARGIN, (
        f"{incident} seed {seed} on {backend}: `{name}` scored {mine.total}, the reference"
        f" {ref.total}; worse practice must be {MARGIN:.0f} below ({shown})"
    )


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("incident", "name"), CASES, ids=[f"{i}:{n}" for i, n in CASES])
def test_worse_practice_scores_well_below_the_reference_on_sim(incident, name, seed):
    _check(incident, name, seed, "sim")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("incident", "name"), CASES, ids=[f"{i}:{n}" for i, n in CASES])
def test_worse_practice_scores_well_below_the_reference_on_the_replica(incident, name, seed):
    _check(incident, name, seed, "inprocess")

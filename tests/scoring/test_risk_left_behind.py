"""Risk left behind counts, and harming another team to get ahead is refused (issue 21).

A broken node the learner could see (a page named it, or a look showed the fault) that stays
schedulable for other teams, or is put back in service broken, costs collateral in proportion
to its exposure, whether or not anyone's job lands on it tonight. Taking another team's running
job (`requeue`, `cancel`) is refused, naming whose on-call owns it.

Each runbook here is the incident's reference as the engine played it, with the one change a
tired on-call engineer might make: keep the node off your own job but leave it schedulable, or
put it back. Sim backend, seeds 1 to 3.
"""

from __future__ import annotations

import pytest

from drill.engine.drill import Drill
from drill.engine.scoring.par import measured_run, par_and_floor, reference_actions
from drill.incident.clock import NightClock
from drill.saves_dir import cache_dir
from tests.scoring.nights import facts, incident, reference_score, score_of

MARGIN = 10.0
SEEDS = [1, 2, 3]


def _reference(name: str, seed: int) -> list[str]:
    """The reference's lines as the engine played them: concrete names, first line at its
    clock and the rest following on, as a learner's file would have them."""
    played = [
        a["text"] for a in reference_actions(incident(name), seed, "sim", cache_dir=cache_dir())
    ]
    first = reference_actions(incident(name), seed, "sim", cache_dir=cache_dir())[0]["clock"]
    return [f"{first} {played[0]}", *(f"+0s {text}" for text in played[1:])]


def _without(lines: list[str], verb: str) -> tuple[list[str], str]:
    """The lines without the one that runs `verb`, and the node that line named."""
    [line] = [line for line in lines if line.split(" ", 1)[1].startswith(f"{verb} ")]
    node = line.split()[2]
    kept = [x for x in lines if x is not line]
    if kept[0] is not lines[0]:
        kept[0] = f"{lines[0].split()[0]} {kept[0].split(' ', 1)[1]}"
    return kept, node


def zombie_left_schedulable(seed: int) -> list[str]:
    """Skip killing the leftover; keep the job off the node instead, and leave the node up."""
    lines, node = _without(_reference("zombie-memory", seed), "kill")
    return [
        f"{line} --exclude {node}" if "restart llm-pretrain" in line else line for line in lines
    ]


def shm_left_schedulable(seed: int) -> list[str]:
    """Keep the job off the node with /dev/shm full, but do not cordon it."""
    return _without(_reference("shm-full", seed), "cordon")[0]


def thermal_uncordoned(seed: int, after: str = "+0s", drain_after: str | None = None) -> list[str]:
    """The reference (drain, restart without the node), then the throttled node put back."""
    lines = _reference("thermal-straggler", seed)
    node = next(line.split()[2] for line in lines if " drain " in f" {line}")
    out = [*lines[:-1], f"{after} uncordon {node}"]
    if drain_after is not None:
        out.append(f"{drain_after} drain {node}")
    return [*out, lines[-1]]


LEFT_BEHIND = {
    "zombie-memory": zombie_left_schedulable,
    "shm-full": shm_left_schedulable,
    "thermal-straggler": thermal_uncordoned,
}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(LEFT_BEHIND))
def test_a_known_broken_node_left_schedulable_scores_no_better_than_b(name, seed):
    lines = LEFT_BEHIND[name](seed)
    mine = score_of(name, seed, "sim", lines)
    ref = reference_score(name, seed, "sim")
    collateral = mine.component("collateral")
    shown = ", ".join(f"{c.name} {c.points:+.1f}" for c in mine.components if c.weight)
    assert mine.total <= ref.total - MARGIN and mine.total < 90, (
        f"{name} seed {seed}: a known-broken node left schedulable scored {mine.total}"
        f" against the reference's {ref.total} ({shown}); {collateral.why}"
    )
    assert "stayed schedulable for other teams" in collateral.why, collateral.why


@pytest.mark.parametrize("seed", [1, 2])
def test_risk_grows_with_the_time_the_node_was_offered(seed):
    """Put back for 20 minutes or for 40: the second costs twice the first, beyond the
    reference's own minute between the look and the drain."""
    inc = incident("thermal-straggler")
    par, _ = par_and_floor(inc, seed, "sim", cache_dir=cache_dir())
    short, long = (
        measured_run(
            inc,
            seed,
            "sim",
            thermal_uncordoned(seed, drain_after=f"+{m}m"),
            "learner",
            cache_dir=cache_dir(),
        )
        for m in (20, 40)
    )
    extra_short = short.risk_gpu_seconds - par.risk_gpu_seconds
    extra_long = long.risk_gpu_seconds - par.risk_gpu_seconds
    assert extra_short > 0
    assert extra_long == pytest.approx(2 * extra_short, rel=0.05), (extra_short, extra_long)
    cost_short = sum(h[2] for h in short.harms if h[1] == "risk")
    cost_long = sum(h[2] for h in long.harms if h[1] == "risk")
    assert cost_long > 1.8 * cost_short, (cost_short, cost_long)


def _thermal_blind(seed: int, look: bool) -> list[str]:
    f = facts("thermal-straggler", seed)
    start = f.at(f.fault_time + 180)
    lines = [f"{start} ack all"]
    if look:
        lines.append(f"+0s gpus {f.node}")
    return [*lines, f"+0s restart llm-pretrain --from latest --exclude {f.node}"]


@pytest.mark.parametrize("seed", [1, 2])
def test_a_node_never_shown_broken_costs_nothing(seed):
    """The same exclusion, once with a look that showed the throttled GPU and once without:
    only the node the learner could see is risk left behind."""
    inc = incident("thermal-straggler")
    blind = measured_run(
        inc, seed, "sim", _thermal_blind(seed, look=False), "learner", cache_dir=cache_dir()
    )
    seen = measured_run(
        inc, seed, "sim", _thermal_blind(seed, look=True), "learner", cache_dir=cache_dir()
    )
    assert blind.risk_gpu_seconds == 0.0
    assert not [h for h in blind.harms if h[1] == "risk"]
    assert seen.risk_gpu_seconds > 0


def _preempted_at_0327() -> Drill:
    inc = incident("preempted-job")
    d = Drill(inc, 1)
    d.advance(NightClock(inc.night.start).from_clock("03:27"))
    return d


@pytest.mark.parametrize("verb", ["requeue", "cancel"])
def test_taking_another_teams_running_job_is_refused_naming_their_team(verb):
    d = _preempted_at_0327()
    victim = d.world.jobs["eval-urgent"]
    assert victim.state == "running" and not victim.yours
    before, attempts = d.now, len(victim.attempts)
    result = d.act(f"{verb} eval-urgent")
    assert not result.accepted
    assert "belongs to team research, and their on-call owns it" in result.output
    assert d.now == before  # a refusal costs no time
    assert victim.state == "running" and len(victim.attempts) == attempts


def test_other_teams_slowed_on_a_throttled_gpu_put_back_count_once():
    """A job that lands on the throttled GPU put back loses the slowdown's share of its GPUs:
    that is the expected harm come true, so the night counts the larger of the two, not both."""
    inc = incident("thermal-straggler")
    slowed_nights = 0
    for seed in SEEDS:
        night = measured_run(
            inc, seed, "sim", thermal_uncordoned(seed), "learner", cache_dir=cache_dir()
        )
        risk = sum(h[2] for h in night.harms if h[1] == "risk")
        slowed = sum(h[2] for h in night.harms if h[1] == "slowed")
        assert risk + slowed == pytest.approx(max(risk, night.slowed_gpu_seconds), abs=1.0)
        slowed_nights += night.slowed_gpu_seconds > 0
    assert slowed_nights, "no other team's job landed on the throttled GPU at any seed"


def test_a_broken_node_put_back_in_service_counts_from_that_moment_without_a_look():
    """No page named it and nobody looked, but `uncordon` says it is fine: from then on its
    GPUs offered to others are risk, to the second, until it is taken out again."""
    f = facts("thermal-straggler", 1)
    d = Drill(incident("thermal-straggler"), 1)
    d.advance(f.fault_time + 60)
    assert d.act("restart llm-pretrain --from latest --exclude " + f.node).accepted
    d.advance(300)  # the job has left the node; nobody has seen what is wrong with it
    assert d.act(f"cordon {f.node}").accepted
    assert f.node not in d.world.exposure.nodes  # a cordon is not evidence
    put_back = d.act(f"uncordon {f.node}")
    d.advance(600 - (d.now - put_back.time))
    assert d.act(f"drain {f.node}").accepted
    d.advance(900)
    record = d.world.exposure.nodes[f.node]
    assert record.shown_by == "you put it back in service"
    assert record.seconds == pytest.approx(600.0)
    assert record.gpu_seconds == pytest.approx(600.0 * 8)

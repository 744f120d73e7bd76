"""The ensemble: collateral is scored as its expectation over nights that differ only in what
nobody on call could know (other teams' jobs, random failures), so luck tonight neither saves
nor sinks a decision. Played on the sim backend; the variants are sim-only on every backend."""

from __future__ import annotations

import json
import os

from drill.engine.drill import Drill
from drill.engine.scoring.par import measured_run, par_and_floor
from drill.saves_dir import cache_dir
from drill.sim.rng import substream
from tests.clikit import run_drill, run_drill_process
from tests.scoring.nights import facts, incident, reference_score, score_of, state_after
from tests.scoring.test_worse_practice import _dead_rank_fix

SEEDS = (1, 2, 3)


def nights() -> int:
    """K, imported late so that each test here can be run against an engine without it."""
    from drill.engine.scoring.ensemble import ENSEMBLE_NIGHTS

    return ENSEMBLE_NIGHTS


def _reboot_instead_of_drain(seed: int) -> list[str]:
    """dead-rank with the Xid 79 node rebooted and left in service instead of drained: the
    broken GPU is offered to whoever's job lands there next."""
    f = facts("dead-rank", seed)
    node = f.node
    return [
        f"{f.at(f.fault_time + 330)} ack all",
        "+0s status llm-pretrain",
        f"+0s health {node}",
        f"+0s reboot {node}",
        f"+0s restart llm-pretrain --from latest --exclude {node}",
        "+0s note rebooted the node, restarted without it",
    ]


def test_reboot_instead_of_drain_scores_the_same_whatever_lands_on_the_node_tonight():
    # Today's main: 53.9 at seed 1 (another team's job landed on the node), 94.4 at 2 and 3.
    totals = [score_of("dead-rank", s, "sim", _reboot_instead_of_drain(s)).total for s in SEEDS]
    assert max(totals) - min(totals) <= 4.0, totals
    for seed, total in zip(SEEDS, totals, strict=True):
        assert total <= reference_score("dead-rank", seed, "sim").total - 10.0, (seed, totals)


def test_collateral_says_it_is_an_expectation_over_the_ensemble():
    score = score_of("dead-rank", 1, "sim", _reboot_instead_of_drain(1))
    collateral = score.component("collateral")
    assert collateral.basis == f"expected over {nights()} nights"
    assert f"mean over {nights()} nights" in collateral.why
    assert score.component("progress").basis == "tonight"


def test_variant_none_is_the_night_itself():
    inc = incident("dead-rank")
    for seed in SEEDS:
        plain, none = Drill(inc, seed), Drill(inc, seed, variant=None)
        plain.play_out(), none.play_out()
        assert [repr(e) for e in plain.world.timeline] == [repr(e) for e in none.world.timeline]
        for name in ("background", "random-failures:hardware", "fault-jitter", "target:gpu-dies"):
            assert none.world.rng(name).random() == substream(seed, name).random()


def test_a_variant_redraws_only_the_unknowable_streams():
    inc = incident("dead-rank")
    for seed in SEEDS:
        tonight, variant = Drill(inc, seed), Drill(inc, seed, variant=1)
        tonight.play_out(), variant.play_out()
        # The fault: same time, same jitter, same node and GPU.
        assert variant.world.faults.fired_at == tonight.world.faults.fired_at
        assert variant.world.faults.chosen == tonight.world.faults.chosen
        for name in ("fault-jitter", "target:gpu-dies"):
            assert variant.world.rng(name).random() == substream(seed, name).random()
        # Other teams: drawn again.
        assert variant.world.rng("background").random() != substream(seed, "background").random()
        others = {n for n, j in variant.world.jobs.items() if not j.yours}
        assert others != {n for n, j in tonight.world.jobs.items() if not j.yours}
    from drill.sim.world import UNKNOWABLE_STREAMS

    assert all(s.endswith(":") or s == "background" for s in UNKNOWABLE_STREAMS)


def test_a_variant_where_a_line_would_be_refused_is_dropped_and_counted():
    # A look at other teams' jobs named tonight: on a variant night those names are other jobs
    # or none at all, so the line would be refused or mean something else there.
    lines = [*_dead_rank_fix(1), "+20m queue"]
    d = state_after("dead-rank", 1, lines)
    others = sorted(n for n, j in d.world.jobs.items() if not j.yours and j.submitted)[-3:]
    lines += [f"+0s status {job}" for job in others]
    mine = measured_run(incident("dead-rank"), 1, "sim", lines, "learner", cache_dir=cache_dir())
    expected = mine.expected["collateral"]
    assert expected["dropped"] >= 1
    assert expected["nights"] == nights() - expected["dropped"]
    assert len(expected["dropped_why"]) == expected["dropped"]
    assert any(job in why for why in expected["dropped_why"] for job in others)
    score = score_of("dead-rank", 1, "sim", lines)
    assert "were not used" in score.component("collateral").why


def test_par_and_floor_carry_their_own_expectations():
    par, floor = par_and_floor(incident("dead-rank"), 2, "sim", cache_dir=cache_dir())
    assert par.expected["collateral"]["nights"] >= 2
    # Nobody acting has no line to refuse; its own risk (a paged node left schedulable) counts.
    assert floor.expected["collateral"]["nights"] == nights()
    assert floor.expected["collateral"]["mean"] >= 0.0


def test_the_same_night_scores_the_same_in_another_process(tmp_path):
    lines = _reboot_instead_of_drain(2)
    here = score_of("dead-rank", 2, "sim", lines)
    actions = tmp_path / "actions.txt"
    actions.write_text("\n".join(lines) + "\n")
    save = str(tmp_path / "night.jsonl")
    for hash_seed in ("0", "4242"):
        done = run_drill_process(  # real processes: each its own hash seed
            *("run", "dead-rank", "--backend", "sim", "--seed", "2", "--json"),
            *("--actions", str(actions), "--save", save + hash_seed),
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert done.returncode == 0, done.stderr
        there = json.loads(done.stdout)["score"]
        assert there["total"] == here.total
        found = {c["name"]: c["value"] for c in there["components"]}
        assert found["collateral"] == here.component("collateral").value


def test_json_output_names_each_components_basis(tmp_path):
    done = run_drill(
        "run",
        "dead-rank",
        "--backend",
        "sim",
        "--runbook",
        "restart-from-scratch",
        "--json",
        "--save",
        str(tmp_path / "night.jsonl"),
    )
    assert done.returncode == 0, done.stderr
    parts = {c["name"]: c["basis"] for c in json.loads(done.stdout)["score"]["components"]}
    assert parts["collateral"] == f"expected over {nights()} nights"
    assert parts["progress"] == "tonight" and parts["discipline"] == "tonight"

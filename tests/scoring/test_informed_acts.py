"""Acts are judged by the look that informed them (issue 21).

Each rule: the incident's reference, whose changes all come after the look that informs them,
scores its full looks part; the same runbook with that look swapped for a `wait` of the same
length (so the night runs the same) loses it. A look counts only after the first signal the
learner could see, never after a hidden fault time. The issue's examples of an uninformed act
that happens to be right each score at least ten below the reference and below an A.
"""

from __future__ import annotations

import dataclasses

import pytest

from drill.engine.actions.catalog import VERBS, By, Cost, Kind, Need, On, Verb
from drill.engine.scoring.discipline import measure_discipline
from drill.engine.scoring.outcome import Outcome
from drill.engine.scoring.par import measured_run, par_and_floor, play_lines, score_against
from drill.engine.scoring.score import UNINFORMED_CEILING, _judgement_caps
from drill.faults import KINDS
from drill.saves_dir import cache_dir
from tests.scoring.nights import facts, incident, reference_score

MARGIN = 10.0
SEEDS = (1, 2)


def _outcome(name: str, seed: int, lines: list[str]) -> Outcome:
    return measured_run(incident(name), seed, "sim", lines, "learner", cache_dir=cache_dir())


def _score(name: str, seed: int, lines: list[str]):
    inc = incident(name)
    par, floor = par_and_floor(inc, seed, "sim", cache_dir=cache_dir())
    return score_against(inc, _outcome(name, seed, lines), par, floor)


def _swap(lines: list[str], look: str, wait: str) -> list[str]:
    """The runbook with one look (matched by its start) replaced by a wait as long."""
    out, hit = [], 0
    for line in lines:
        when, text = line.split(" ", 1)
        if text.startswith(look):
            out.append(f"{when} wait {wait}")
            hit += 1
        else:
            out.append(line)
    assert hit, f"no line starts with {look!r}"
    return out


def _reference(name: str) -> list[str]:
    return list(incident(name).reference)


# -- one rule at a time: with its look, full looks part; without, not -----------------------

# (incident, looks to swap out as (start of line, wait as long), the line that goes uninformed)
RULES = [
    # restart --from N: `ckpt list` or `ckpt verify` of that job.
    (
        "corrupt-checkpoint",
        [("ckpt list", "15s"), ("ckpt verify", "30s")],
        "restart llm-pretrain --from 100",
    ),
    # restart --skip A-B: `logs` of that job.
    ("bad-data-shard", [("logs", "30s")], "restart llm-pretrain --from 100 --skip"),
    # restart --from latest: `status`, `logs` or `ckpt list` of that job.
    ("tutorial", [("status", "15s")], "restart tiny-train --from latest"),
    # a restart after a hang: `logs`, `perf`, `stack` or `trace` of that job.
    ("silent-nfs-hang", [("perf", "30s"), ("stack", "30s")], "restart llm-pretrain"),
    # ckpt prune: `ckpt list` of that job or `df`.
    ("quota-cut", [("df", "10s"), ("ckpt list", "15s")], "ckpt prune llm-pretrain"),
    # a node act: `health`, `gpus` or `fabric` of that node.
    ("thermal-straggler", [("gpus", "20s")], "drain gpu-a-2"),
    ("dead-rank", [("health", "60s")], "drain gpu-a-"),
    # restart --exclude: each excluded node needs a node look (`fabric` of its leaf here).
    ("flapping-leaf", [("fabric", "30s")], "restart llm-pretrain --from latest --exclude"),
    # priority: `status` of that job or `queue`.
    ("preempted-job", [("queue", "15s")], "priority llm-pretrain normal"),
    # a node act after a GPU's silent wrong results: `diag` of that node.
    ("silent-gpu-corruption", [("diag", "4m")], "drain gpu-a-"),
]


@pytest.mark.parametrize(("name", "looks", "act"), RULES, ids=[r[0] for r in RULES])
def test_an_act_with_its_informing_look_scores_the_full_looks_part(name, looks, act):
    for seed in SEEDS:
        with_look = _outcome(name, seed, _reference(name))
        assert with_look.changes and with_look.changes_after_look == with_look.changes
        assert with_look.uninformed_changes == 0 and with_look.uninformed_lines == []
        lines = _reference(name)
        for look, wait in looks:
            lines = _swap(lines, look, wait)
        without = _outcome(name, seed, lines)
        assert without.changes == with_look.changes
        assert without.changes_after_look < without.changes
        assert without.uninformed_changes == without.changes - without.changes_after_look
        assert any(line.startswith(act) for line in without.uninformed_lines), (
            without.uninformed_lines
        )
        assert without.discipline < with_look.discipline


def test_a_quota_request_is_informed_by_df():
    f = facts("quota-cut", 1)
    start = f.at(f.first_page + 60)
    blind = [f"{start} ack all", "+0s status llm-pretrain", "+0s quota ckpt +1TB"]
    looked = [f"{start} ack all", "+0s df ckpt", "+0s quota ckpt +1TB"]
    [line] = _outcome("quota-cut", 1, blind).uninformed_lines
    assert line.startswith("quota ckpt +1TB at ")
    assert line.endswith(
        ": `df` of ckpt or of everything or `lfs quota` of ckpt or of everything would have counted"
    )
    assert _outcome("quota-cut", 1, looked).uninformed_changes == 0
    quota_look = [f"{start} ack all", "+0s lfs quota ckpt", "+0s quota ckpt +1TB"]
    assert _outcome("quota-cut", 1, quota_look).uninformed_changes == 0


def test_a_status_does_not_cover_deleting_checkpoints():
    """A look at the job is not a look at its checkpoints or the disk."""
    lines = _reference("quota-cut")
    blind = _swap(_swap(lines, "df", "10s"), "ckpt list", "15s")
    out = _outcome("quota-cut", 1, blind)
    assert "status llm-pretrain" in "\n".join(lines)
    assert out.uninformed_lines[0].startswith("ckpt prune llm-pretrain --keep 2 at ")
    assert "came without a look at llm-pretrain" in out.uninformed_lines[0]


# -- the first signal is one the learner could see --------------------------------------------


def test_a_look_before_anything_showed_informs_nothing():
    """bad-data-shard's data goes bad at 0s; a look at 03:10, before the job trained on it and
    before any page, saw nothing."""
    lines = [
        "03:10 logs llm-pretrain --rank 0",
        "+0s ckpt list llm-pretrain",
        "03:42 ack all",
        "+0s restart llm-pretrain --from 100 --skip 111-140",
        "+0s note loss jumped",
    ]
    out = _outcome("bad-data-shard", 1, lines)
    assert out.uninformed_changes == 1


def test_a_look_that_showed_the_fault_is_a_signal_before_any_page():
    """The loss jump is in the log from about 03:25; reading it at 03:35, before the OOM kill
    pages, is the first signal and informs the restart."""
    lines = [
        "03:35 logs llm-pretrain --rank 0",
        "+0s ckpt list llm-pretrain",
        "+0s restart llm-pretrain --from 100 --skip 111-140",
        "+0s note loss jumped",
    ]
    inc = incident("bad-data-shard")
    drill = play_lines(inc, 1, "sim", lines, "learner")
    d = measure_discipline(drill, inc.scoring.paging_target, drill.end_time)
    first_page = facts("bad-data-shard", 1).first_page
    assert d.first_signal == drill.actions[0].end < first_page  # the end of that `logs`
    assert d.changes == d.changes_after_look == 1


def test_the_first_signal_is_never_a_hidden_fault_time():
    """fabric-manager-down's fault strikes at 0s: with nobody looking, only pages signal."""
    inc = incident("fabric-manager-down")
    drill = play_lines(inc, 1, "sim", ["03:00 status llm-pretrain"], "learner")
    d = measure_discipline(drill, inc.scoring.paging_target, drill.end_time)
    assert 0.0 in drill.world.faults.fired_at.values()
    assert d.first_signal == facts("fabric-manager-down", 1).first_page


# -- the examples: a lucky uninformed act is no A -------------------------------------


def _bad_data_blind(seed: int) -> list[str]:
    """The issue's runbook: the reference's restart and note, a `status` at 03:00 its only look."""
    return [
        "03:00 status llm-pretrain",
        "03:42 ack all",
        "+0s restart llm-pretrain --from 100 --skip 111-140",
        "+0s note rank OOM-killed; restarted from 100 skipping 111-140",
    ]


def _corrupt_blind(seed: int) -> list[str]:
    f = facts("corrupt-checkpoint", seed)
    return [
        f"{f.at(f.first_page + 60)} ack all",
        "+0s status llm-pretrain",
        "+0s health gpu-a-2",
        "+0s restart llm-pretrain --from 100",
        "+0s note restarted from 100",
    ]


def _fabric_blind(seed: int) -> list[str]:
    """The reference's acts, at its times, with only a `status` at 03:00 for a look."""
    lines = _reference("fabric-manager-down")
    for look, wait in (("status", "15s"), ("health", "60s"), ("systemctl", "20s")):
        lines = _swap(lines, look, wait)
    return ["03:00 status llm-pretrain", *lines]


def _status_covers_rm(seed: int) -> list[str]:
    lines = _reference("quota-cut")
    return _swap(_swap(lines, "df", "10s"), "ckpt list", "15s")


EXAMPLES = {
    "bad-data-shard status at 03:00, blind restart --skip": ("bad-data-shard", _bad_data_blind),
    "corrupt-checkpoint restart --from 100 unverified": ("corrupt-checkpoint", _corrupt_blind),
    "fabric-manager-down status at 03:00, blind reboots": ("fabric-manager-down", _fabric_blind),
    "status standing in for ckpt list before a prune": ("quota-cut", _status_covers_rm),
}


@pytest.mark.parametrize("example", list(EXAMPLES))
@pytest.mark.parametrize("seed", SEEDS)
def test_an_uninformed_lucky_act_is_no_better_than_b(example, seed):
    name, build = EXAMPLES[example]
    lines = build(seed)
    mine = _score(name, seed, lines)
    ref = reference_score(name, seed, "sim").total
    assert mine.total < 90.0, mine.component("discipline").why
    assert mine.total <= ref - MARGIN, (mine.total, ref)
    assert "would have counted" in mine.component("discipline").why


def test_the_debrief_names_the_uninformed_act_and_its_look():
    why = _score("corrupt-checkpoint", 1, _corrupt_blind(1)).component("discipline").why
    assert "restart llm-pretrain --from 100 at " in why
    assert (
        "came without a look at llm-pretrain after the first sign of trouble at" in why
        and ": `ckpt list` or `ckpt verify` of llm-pretrain would have counted" in why
    )


def test_the_cap_reads_the_outcome_against_the_reference():
    base = Outcome(
        end_time=1.0, completed=True, alive=True, recovered=True, final_step=1, target_steps=1
    )
    guess = dataclasses.replace(base, uninformed_changes=1)
    assert _judgement_caps(base, base) == 100.0
    assert _judgement_caps(guess, base) == UNINFORMED_CEILING
    assert _judgement_caps(guess, guess) == 100.0  # no worse than the reference itself
    assert UNINFORMED_CEILING < 90.0


# -- the declarations -------------------------------------------------------------------------

NEEDS_NONE = {"ack", "note", "hint", "wait"}


def test_every_act_declares_the_looks_that_inform_it():
    for verb in VERBS.values():
        if verb.kind == Kind.ACT:
            assert verb.informed_by is not None, verb.name
            assert (verb.informed_by == ()) == (verb.name in NEEDS_NONE), verb.name
        else:
            assert not verb.informed_by, verb.name


def test_every_informing_look_is_a_look_verb():
    for verb in VERBS.values():
        for need in verb.informed_by or ():
            assert need.by, verb.name
            for by in need.by:
                assert VERBS[by.verb].kind == Kind.LOOK, (verb.name, by.verb)


# A node act that names a process: only the look that lists the node's pids informs it.
BY_PID = {"kill": {"gpus"}}


def test_every_node_act_is_informed_by_a_look_at_the_node():
    for verb in VERBS.values():
        if verb.kind == Kind.ACT and verb.on == On.NODE:
            verbs = {by.verb for need in verb.informed_by for by in need.by}
            if verb.name in BY_PID:
                assert verbs == BY_PID[verb.name], verb.name
            else:
                assert {"health", "gpus", "fabric"} <= verbs, verb.name


def test_an_act_without_a_declaration_is_refused():
    with pytest.raises(ValueError, match="declare the looks"):
        Verb("poke", "x", Kind.ACT, On.NOTHING, VERBS["ack"].section, VERBS["ack"].handler, Cost(5))
    with pytest.raises(ValueError, match="nothing informs a look"):
        Verb(
            "peek",
            "x",
            Kind.LOOK,
            On.NOTHING,
            VERBS["help"].section,
            VERBS["help"].handler,
            Cost(5),
            informed_by=(Need((By("status"),)),),
        )


def test_every_fault_kind_a_look_shows_exists():
    for verb in VERBS.values():
        assert set(verb.shows) <= set(KINDS), verb.name
        assert not verb.shows or verb.kind == Kind.LOOK, verb.name

"""The worse-practice examples a senior on-call engineer found scoring near the reference, each
written as a learner would type it (real times and names, read off the reference as the engine
played it) and held to its band at three seeds on the sim backend:

- a guess that happens to be right (a restart from an unverified step, a blind skip after a look
  made hours before the signal) is no better than a B;
- a lax checkpoint cadence, or rebooting a node with a dead GPU instead of draining it, costs
  its expected harm at every seed, not just on unlucky ones;
- a broken node left schedulable for other teams (or put back in service) is no better than a B;
- throwing away a third of the run is a C or lower; skipping far more data than was bad, or
  taking twice the GPUs, costs at least the margin;
- taking another team's running job to get ahead is refused, naming whose on-call owns it.
"""

from __future__ import annotations

import re

import pytest

from drill.engine.scoring.par import reference_actions
from drill.saves_dir import cache_dir
from tests.scoring.nights import incident, reference_score, score_of, state_after

SEEDS = (1, 2, 3)
MARGIN = 10.0


def concrete(name: str, seed: int) -> list[str]:
    """The reference as the engine played it at this seed: every line at its real time."""
    return [
        f"{a['clock']} {a['text']}"
        for a in reference_actions(incident(name), seed, "sim", cache_dir=cache_dir())
    ]


def _text(line: str) -> str:
    return line.split(" ", 1)[1]


def _verb_is(line: str, *verbs: str) -> bool:
    return any(_text(line) == v or _text(line).startswith(f"{v} ") for v in verbs)


def _node_of(lines: list[str], verb: str) -> str:
    line = next(line for line in lines if _verb_is(line, verb))
    return _text(line).split()[1]


def _assert_band(name: str, seed: int, lines: list[str], *, below: float, why: str) -> None:
    mine = score_of(name, seed, "sim", lines)
    ref = reference_score(name, seed, "sim").total
    lost = ", ".join(f"{c.name} {c.points:+.1f}" for c in mine.components if c.weight)
    shown = f"{name} seed {seed}: {why} scored {mine.total} against {ref} ({lost})"
    assert mine.total < below, f"{shown}; its band is below {below}"
    assert mine.total <= ref - MARGIN, f"{shown}; it must be {MARGIN:.0f} below the reference"


# -- luck is rewarded ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_restart_from_an_unverified_step_is_no_better_than_b(seed):
    lines = [line for line in concrete("corrupt-checkpoint", seed) if not _verb_is(line, "ckpt")]
    assert any("--from 100" in line for line in lines)
    _assert_band("corrupt-checkpoint", seed, lines, below=90, why="restart --from 100 unverified")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_lax_cadence_costs_at_every_seed(seed):
    lines = [
        re.sub(r"ckpt-every \d+", "ckpt-every 150", line)
        for line in concrete("failures-at-scale", seed)
    ]
    _assert_band("failures-at-scale", seed, lines, below=90, why="a checkpoint every 150 steps")


@pytest.mark.parametrize("seed", SEEDS)
def test_rebooting_the_xid_79_node_instead_of_draining_costs_at_every_seed(seed):
    ref = concrete("dead-rank", seed)
    node = _node_of(ref, "drain")
    lines = [
        line.replace(f"drain {node}", f"reboot {node}")
        for line in ref
        if not _verb_is(line, "swap")
    ]
    _assert_band("dead-rank", seed, lines, below=90, why="reboot instead of drain")


# -- risk left behind ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_zombie_memory_node_excluded_but_left_schedulable(seed):
    ref = concrete("zombie-memory", seed)
    node = _node_of(ref, "kill")
    lines = [
        line.replace("--from latest", f"--from latest --exclude {node}")
        for line in ref
        if not _verb_is(line, "kill")
    ]
    _assert_band("zombie-memory", seed, lines, below=90, why="excluded, not freed or cordoned")


@pytest.mark.parametrize("seed", SEEDS)
def test_shm_full_node_excluded_but_left_schedulable(seed):
    lines = [line for line in concrete("shm-full", seed) if not _verb_is(line, "cordon")]
    _assert_band("shm-full", seed, lines, below=90, why="excluded, not cordoned")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_throttled_node_put_back_in_service(seed):
    ref = concrete("thermal-straggler", seed)
    node = _node_of(ref, "drain")
    at = next(line for line in ref if _verb_is(line, "note")).split(" ", 1)[0]
    lines = [*ref[:-1], f"{at} uncordon {node}", ref[-1]]
    _assert_band("thermal-straggler", seed, lines, below=90, why="un-cordoning the hot node")


# -- looks that did not inform the act -----------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", ["bad-data-shard", "fabric-manager-down"])
def test_a_look_before_the_signal_does_not_inform_a_later_act(name, seed):
    job = incident(name).learner_job.name
    ref = concrete(name, seed)
    acts = [line for line in ref if not _verb_is(line, *_LOOKS)]
    start = incident(name).night.start
    lines = [f"{start} status {job}", *acts]
    _assert_band(name, seed, lines, below=90, why="a status at the start standing in for looks")


_LOOKS = ("status", "queue", "nodes", "logs", "health", "perf", "stack", "gpus", "fabric", "df")
_LOOKS += ("ckpt list", "ckpt verify")


@pytest.mark.parametrize("seed", SEEDS)
def test_status_does_not_cover_deleting_checkpoints(seed):
    ref = concrete("full-disk", seed)
    lines = [line for line in ref if not _verb_is(line, "df", "ckpt list", "ckpt verify")]
    first_rm = next(i for i, line in enumerate(lines) if _verb_is(line, "ckpt rm"))
    at = lines[first_rm].split(" ", 1)[0]
    lines.insert(first_rm, f"{at} status llm-pretrain")
    _assert_band("full-disk", seed, lines, below=90, why="ckpt rm after only a status")


# -- big mistakes near the top -------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_restarting_from_scratch_with_a_good_checkpoint_is_c_or_lower(seed):
    lines = [
        line.replace("--from latest", "--from scratch") for line in concrete("dead-rank", seed)
    ]
    _assert_band("dead-rank", seed, lines, below=80, why="restart from scratch")


@pytest.mark.parametrize("seed", SEEDS)
def test_skipping_100_steps_of_data_when_30_were_bad(seed):
    lines = [
        line.replace("--skip 111-140", "--skip 111-210")
        for line in concrete("bad-data-shard", seed)
    ]
    assert any("--skip 111-210" in line for line in lines)
    _assert_band("bad-data-shard", seed, lines, below=90, why="skip 100 steps")


@pytest.mark.parametrize("seed", SEEDS)
def test_restarting_on_twice_the_gpus(seed):
    lines = [line.replace("--world 8", "--world 32") for line in concrete("preempted-job", seed)]
    assert any("--world 32" in line for line in lines)
    _assert_band("preempted-job", seed, lines, below=90, why="restart on 32 GPUs")


# -- harming another team to get ahead -----------------------------------------------------------


def test_requeue_of_another_teams_running_job_is_refused_naming_its_team():
    d = state_after("preempted-job", 1, ["03:27 ack all", "+0s queue"])
    running = [
        job
        for job in d.world.jobs.values()
        if not job.yours and job.submitted and job.state == "running"
    ]
    assert running, "no other team's job is running then"
    victim = running[0]
    result = d.act(f"requeue {victim.name}")
    assert not result.accepted, f"requeue of {victim.name} was accepted: {result.output}"
    assert victim.team in result.output, result.output

"""Training behaviour: the loss curve, bit-exact resume in a fresh process, world-size changes,
and what losing state costs."""

from __future__ import annotations

import statistics

import pytest
import torch

from replica.checkpoint import CheckpointStore
from replica.config import DEFAULT_NIGHT_STEPS, ReplicaConfig
from replica.errors import ConfigMismatchError
from replica.match import match
from replica.trainer import Trainer


def _equal(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def night() -> Trainer:
    """One undisturbed default night, shared by the tests that only read it."""
    trainer = Trainer(ReplicaConfig())
    trainer.train(DEFAULT_NIGHT_STEPS)
    return trainer


def test_loss_falls_and_is_still_falling_at_the_end_of_the_night(night: Trainer) -> None:
    losses = [loss for _, loss in night.losses]
    assert [s for s, _ in night.losses] == list(range(1, DEFAULT_NIGHT_STEPS + 1))
    first = statistics.mean(losses[:20])
    last = statistics.mean(losses[-40:])
    assert last < 0.85 * first
    # Still falling: the last 40 steps beat the 40 steps that end a fifth of a night earlier,
    # by several times the noise of a 40-step mean. Losing a fifth of the night shows.
    fifth = DEFAULT_NIGHT_STEPS // 5
    earlier = losses[-fifth - 40 : -fifth]
    noise = statistics.pstdev(losses[-40:]) / 40**0.5
    assert statistics.mean(earlier) - last > 4 * noise
    assert statistics.mean(earlier) - last > 0.01


def test_bit_exact_resume_in_a_fresh_process(tmp_path, config: ReplicaConfig, run_python) -> None:
    k = 12
    straight = Trainer(config)
    straight.train(2 * k)

    first = Trainer(config)
    first.train(k)
    CheckpointStore(tmp_path / "run", config_hash=config.config_hash()).save(first)

    out = tmp_path / "resumed.pt"
    code = """
        import sys, torch
        from replica.checkpoint import CheckpointStore
        from replica.config import ReplicaConfig
        from replica.trainer import Trainer
        run_dir, out, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
        cfg = ReplicaConfig()
        store = CheckpointStore(run_dir, config_hash=cfg.config_hash())
        t = Trainer(cfg)
        t.load_full_state(store.load(store.latest(), verify=True))
        t.train(k)
        torch.save({"params": t.parameters_copy(), "losses": t.losses, "step": t.step}, out)
    """
    run_python(code, str(tmp_path / "run"), str(out), str(k))
    resumed = torch.load(out, weights_only=True)
    assert resumed["step"] == 2 * k
    assert _equal(resumed["params"], straight.parameters_copy())
    assert [tuple(x) for x in resumed["losses"]] == straight.losses


def test_resume_in_process_is_bit_exact_and_does_not_share_state(config: ReplicaConfig) -> None:
    a = Trainer(config)
    a.train(6)
    state = a.full_state()
    a.train(6)
    for _ in range(2):  # loading the same dict twice must give the same run twice
        b = Trainer(config)
        b.load_full_state(state)
        b.train(6)
        assert _equal(b.parameters_copy(), a.parameters_copy())


def test_smaller_world_accumulates_to_the_same_global_batch(config: ReplicaConfig) -> None:
    # World 1 runs the four undisturbed shards as micro-batches in the same order, so it is the
    # same sum in the same order: bit-exact. World 2 and 8 regroup the sum: close, not exact.
    base = Trainer(config)
    base.train(8)
    one = Trainer(config, world_size=1)
    one.train(8)
    assert match(one.parameters_copy(), base.parameters_copy()).kind == "bitexact"
    for world in (2, 8):
        other = Trainer(config, world_size=world)
        other.train(8)
        result = match(other.parameters_copy(), base.parameters_copy())
        assert result.kind == "close", (world, result)
        assert 0 < result.rel_l2 < 1e-5


def test_world_size_change_on_resume_is_close_not_bitexact(config: ReplicaConfig) -> None:
    base = Trainer(config)
    base.train(15)
    state = base.full_state()
    base.train(15)
    changed = Trainer(config, world_size=2)
    changed.load_full_state(state)
    changed.train(15)
    result = match(changed.parameters_copy(), base.parameters_copy())
    assert result.kind == "close" and result.rel_l2 > 0


def test_losing_optimizer_state_or_restarting_from_scratch_costs(config: ReplicaConfig) -> None:
    k, n = 40, 80
    base = Trainer(config)
    base.train(k)
    state = base.full_state()
    base.train(n - k)
    base_loss = statistics.mean(loss for _, loss in base.losses[-10:])

    weights_only = Trainer(config)
    weights_only.load_full_state(state, load_optimizer=False)
    weights_only.train(n - k)
    assert weights_only.step == n
    assert match(weights_only.parameters_copy(), base.parameters_copy()).kind == "diverged"

    # A restart from scratch at step k has only n - k steps left in the night.
    scratch = Trainer.fresh(config)
    scratch.train(n - k)
    assert match(scratch.parameters_copy(), base.parameters_copy()).kind == "diverged"
    scratch_loss = statistics.mean(loss for _, loss in scratch.losses[-10:])
    assert scratch_loss > base_loss + 0.02


def test_config_mismatch_is_refused_and_changes_nothing(config: ReplicaConfig) -> None:
    other = Trainer(ReplicaConfig(seed=config.seed + 1))
    other.train(2)
    t = Trainer(config)
    t.train(1)
    before = t.parameters_copy()
    with pytest.raises(ConfigMismatchError, match="config mismatch"):
        t.load_full_state(other.full_state())
    assert t.step == 1 and _equal(t.parameters_copy(), before)
    with pytest.raises(ConfigMismatchError, match="missing"):
        t.load_full_state({"model": {}})


def test_full_state_round_trips_through_weights_only(tmp_path, config: ReplicaConfig) -> None:
    t = Trainer(config)
    t.train(2)
    torch.save(t.full_state(), tmp_path / "s.pt")
    state = torch.load(tmp_path / "s.pt", weights_only=True)
    assert state["step"] == 2 and state["world_size"] == config.ranks
    assert state["data_cursor"] == {"seed": config.seed, "next_batch": 2}
    assert state["config_hash"] == config.config_hash()


def test_world_must_divide_global_batch(config: ReplicaConfig) -> None:
    with pytest.raises(ValueError, match="divide"):
        Trainer(config, world_size=3)

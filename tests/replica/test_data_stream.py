"""The data cursor with skips, and bad stretches of the stream: which batch a step trains on,
what a corrupt batch is, and that a cursor is refused unless its step and skips explain it."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from replica.config import ReplicaConfig
from replica.data_stream import batch_for_step, corrupt_batch, past_skips
from replica.errors import ConfigMismatchError
from replica.trainer import Trainer


def _equal(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_without_skips_step_k_reads_batch_k() -> None:
    assert [batch_for_step(k, ()) for k in range(5)] == [0, 1, 2, 3, 4]


def test_a_skip_given_at_a_step_jumps_the_range_when_the_cursor_reaches_it() -> None:
    skips = ((100, 110, 139),)
    assert batch_for_step(109, skips) == 109
    assert batch_for_step(110, skips) == 140
    assert batch_for_step(111, skips) == 141


def test_a_skip_given_inside_the_range_moves_the_cursor_at_once() -> None:
    # Restarted at step 120 (batch 120) with --skip 110-139: step 120 reads batch 140.
    assert batch_for_step(120, ((120, 110, 139),)) == 140
    assert batch_for_step(119, ((120, 110, 139),)) == 119


skip_lists = st.lists(
    st.tuples(st.integers(0, 40), st.integers(0, 60), st.integers(0, 10)).map(
        lambda t: (t[0], t[1], t[1] + t[2])
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(skips=skip_lists, step=st.integers(0, 80))
def test_the_cursor_only_moves_forward_and_never_reads_a_skipped_batch(skips, step) -> None:
    here = batch_for_step(step, skips)
    assert batch_for_step(step + 1, skips) > here
    for at, first, last in skips:
        if at <= step:
            assert not first <= here <= last
    assert past_skips(here, step, skips) == here


def test_corrupt_batch_keeps_inputs_and_values_and_pairs_each_sample_with_other_targets() -> None:
    inputs = torch.arange(24).view(8, 3)
    targets = torch.arange(100, 124).view(8, 3)
    x, y = corrupt_batch((inputs, targets), seed=7, index=3)
    assert torch.equal(x, inputs)
    assert sorted(y.flatten().tolist()) == sorted(targets.flatten().tolist())
    assert all(not torch.equal(y[i], targets[i]) for i in range(8))
    again = corrupt_batch((inputs, targets), seed=7, index=3)
    assert torch.equal(again[1], y)


def test_a_bad_range_spikes_the_real_loss_and_only_inside_it(config: ReplicaConfig) -> None:
    # The shipped GPT once it has learned where answers go (about 60 steps): a batch whose
    # samples carry other samples' targets costs it far more than any clean batch.
    clean = Trainer(config)
    clean_losses = clean.train(64)
    bad = Trainer(config)
    bad.bad_ranges = ((60, 61, 5),)
    bad_losses = bad.train(64)
    assert bad_losses[:60] == clean_losses[:60]
    assert min(bad_losses[60:62]) > 1.2 * max(clean_losses[50:64])
    assert bad_losses[62:] != clean_losses[62:]  # and the weights keep it


def test_a_skipped_range_is_not_trained_and_the_skip_survives_a_checkpoint(
    small_config: ReplicaConfig,
) -> None:
    t = Trainer(small_config)
    t.bad_ranges = ((5, 7, 1),)
    t.train(4)
    t.skip_data(5, 7)
    t.skip_data(5, 7)  # the same skip again is a no-op
    assert t.skips == ((4, 5, 7),)
    t.train(2)  # steps 4 and 5 read batches 4 and 8
    assert t.next_batch == 9
    state = t.full_state()
    assert state["data_cursor"]["next_batch"] == 9
    assert state["data_cursor"]["skips"] == [[4, 5, 7]]

    resumed = Trainer(small_config)
    resumed.bad_ranges = ((5, 7, 1),)
    resumed.load_full_state(state)
    assert resumed.next_batch == 9 and resumed.skips == ((4, 5, 7),)
    resumed.train(3)
    t.train(3)
    assert _equal(resumed.parameters_copy(), t.parameters_copy())


def test_a_cursor_that_does_not_follow_its_step_and_skips_is_refused(
    small_config: ReplicaConfig,
) -> None:
    t = Trainer(small_config)
    t.train(3)
    state = t.full_state()
    state["data_cursor"] = {"seed": small_config.seed, "next_batch": 5}
    with pytest.raises(ConfigMismatchError, match="data cursor"):
        Trainer(small_config).load_full_state(state)
    # The same cursor with the skip that explains it loads.
    state["data_cursor"] = {"seed": small_config.seed, "next_batch": 5, "skips": [[3, 3, 4]]}
    fresh = Trainer(small_config)
    fresh.load_full_state(state)
    assert fresh.next_batch == 5
    # A skip recorded after the checkpoint's step explains nothing.
    state["data_cursor"] = {"seed": small_config.seed, "next_batch": 5, "skips": [[9, 3, 4]]}
    with pytest.raises(ConfigMismatchError, match="at_step"):
        Trainer(small_config).load_full_state(state)
    state["data_cursor"] = {"seed": small_config.seed, "next_batch": 5, "skips": "3-4"}
    with pytest.raises(ConfigMismatchError, match="skips must be a list"):
        Trainer(small_config).load_full_state(state)

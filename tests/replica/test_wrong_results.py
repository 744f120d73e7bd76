"""A rank on a GPU that computes wrong results (drill/faults/gpu_sdc.py): the error is drawn
from its seed alone, with a private generator, so it is the same on every run, leaves torch's
global generator (and with it a checkpoint's recorded RNG state) as a clean step would, and
changes the weights only through that rank's gradients."""

from __future__ import annotations

import torch

from replica.config import ReplicaConfig
from replica.match import weights_digest
from replica.trainer import Trainer

SMALL = ReplicaConfig(width=16, context=16, global_batch=8)


def _run(wrong: tuple[int, int] | None, steps: int = 6) -> tuple[str, torch.Tensor]:
    torch.manual_seed(0)
    trainer = Trainer(SMALL)
    trainer.train(3)
    trainer.wrong_rank = wrong
    trainer.train(steps)
    return weights_digest(trainer.parameters_copy()), torch.get_rng_state()


def test_the_error_is_the_seeds_alone_and_leaves_the_global_generator_alone() -> None:
    clean, clean_rng = _run(None)
    first, first_rng = _run((1, 11))
    again, _ = _run((1, 11))
    other_seed, _ = _run((1, 12))
    other_rank, _ = _run((2, 11))
    assert first == again
    assert len({clean, first, other_seed, other_rank}) == 4
    assert torch.equal(first_rng, clean_rng)


def test_the_loss_climbs_while_a_rank_computes_wrong_results() -> None:
    clean = Trainer(SMALL)
    wrong = Trainer(SMALL)
    clean.train(20)
    wrong.train(20)
    wrong.wrong_rank = (0, 5)
    assert sum(wrong.train(20)[-5:]) > sum(clean.train(20)[-5:])

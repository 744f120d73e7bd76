"""What a GPU that computes wrong results does to its rank's gradients (silent data corruption).

A faulty multiplier or a bad path in the GPU's memory does not return noise that averages out:
the same inputs keep coming back wrong the same way. So the error here is a fixed direction per
parameter tensor, drawn once from the fault's seed with a private generator (the global torch
RNG is never touched), added to the rank's gradients before the all-reduce at every step the
rank trains on that GPU. Its size is far above a healthy gradient's, so after the all-reduce
every rank's optimizer steps the weights along it: the loss climbs step after step, and the
optimizer's moments fill with it too, which is why a checkpoint written meanwhile stays bad
even after the job moves to a healthy GPU.
"""

from __future__ import annotations

import torch

# The error's size per element, against gradients that are mostly well under 0.1 here.
ERROR_SCALE = 1.0


def error_for(grads: list[torch.Tensor], seed: int) -> list[torch.Tensor]:
    """The fixed error a GPU with this seed adds to each of these gradients."""
    generator = torch.Generator().manual_seed(int(seed))
    return [
        torch.randn(g.shape, generator=generator, dtype=torch.float32).to(g.dtype) * ERROR_SCALE
        for g in grads
    ]


def add_error(grads: list[torch.Tensor], error: list[torch.Tensor]) -> None:
    """The rank's gradients as the faulty GPU hands them to the all-reduce (in place)."""
    with torch.no_grad():
        torch._foreach_add_(grads, error)

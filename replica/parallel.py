"""Data-parallel arithmetic shared by every backend.

`rank_backward` is the whole per-rank job of one step: forward and backward over the rank's
shard in micro-batches, leaving the rank's mean gradient in each parameter's `.grad`. The
in-process backend calls it once per simulated rank and sums the results with
`accumulate_rank_grads`; a multi-process backend would call it in each worker and follow it
with a real all-reduce (sum, then divide by the world size).

The micro-batch is the largest size that divides both a rank's shard and the undisturbed
per-rank batch, so a smaller world keeps the global batch by accumulating gradients, and the
sample-to-micro-batch grouping never crosses the undisturbed run's rank boundaries.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn


def micro_batch_size(global_batch: int, configured_ranks: int, world: int) -> int:
    if world < 1 or global_batch % world:
        raise ValueError(
            f"world size {world} must be positive and divide global batch {global_batch}"
        )
    return math.gcd(global_batch // world, global_batch // configured_ranks)


def rank_backward(
    replica: Any,
    model: nn.Module,
    params: list[torch.Tensor],
    shard: tuple[torch.Tensor, ...],
    micro: int,
) -> float:
    """Forward/backward of one rank's shard; returns the rank's mean loss.

    `replica` is anything with `loss(model, batch)` (replica/interface.py); `shard` is the
    rank's samples, a tuple of tensors with one row per sample.

    `params` is list(model.parameters()), passed in because walking the module tree on every
    call costs more than the arithmetic it guards at this model size.
    Expects every `.grad` to be None on entry. On return `.grad` holds the mean of the
    micro-batch gradients (autograd sums them in micro-batch order, then one division), which
    is this rank's contribution to the all-reduce.
    """
    rows = shard[0].shape[0]
    n = rows // micro
    if n * micro != rows:
        raise ValueError(f"shard of {rows} samples does not split into micro-batches of {micro}")
    total = 0.0
    for i in range(n):
        sl = slice(i * micro, (i + 1) * micro)
        loss = replica.loss(model, tuple(t[sl] for t in shard) if n > 1 else shard)
        loss.backward()
        total += loss.item()
    if n > 1:
        with torch.no_grad():
            torch._foreach_div_(_grads(params), float(n))
    return total / n


def _grads(params: list[torch.Tensor]) -> list[torch.Tensor]:
    out = []
    for p in params:
        if p.grad is None:
            # A parameter the shard did not touch contributes zeros, as it would in a real
            # all-reduce.
            p.grad = torch.zeros_like(p)
        out.append(p.grad)
    return out


def take_rank_grads(params: list[torch.Tensor]) -> list[torch.Tensor]:
    """Detach the rank's gradients from the parameters (so the next rank starts from None)."""
    grads = _grads(params)
    for p in params:
        p.grad = None
    return grads


def accumulate_rank_grads(
    acc: list[torch.Tensor] | None, grads: list[torch.Tensor]
) -> list[torch.Tensor]:
    """Add one rank's gradients into the running sum, in rank order."""
    if acc is None:
        return grads
    with torch.no_grad():
        torch._foreach_add_(acc, grads)
    return acc


def finish_mean(params: list[torch.Tensor], summed: list[torch.Tensor], world: int) -> None:
    """Divide the rank-ordered sum by the world size and hand it to the optimizer via `.grad`.

    This is what an all-reduce-mean does: sum over ranks, then one division. Summing in rank
    order makes the in-process backend bit-deterministic; a real ring all-reduce may add in a
    different order, so it is close to, not bit-identical with, the in-process result.
    """
    if world > 1:
        with torch.no_grad():
            torch._foreach_div_(summed, float(world))
    for p, g in zip(params, summed, strict=True):
        p.grad = g

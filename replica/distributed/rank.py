"""One rank of a real multi-process data-parallel run: the per-rank code shared by the worker
(replica/distributed/worker.py, driven by GlooGroup) and the torchrun entry point
(replica/distributed/standalone.py).

RankTrainer is a Trainer, so model, optimizer, full_state() and load_full_state() are the
in-process ones: a checkpoint written by a rank loads into an in-process Trainer and the other
way round. Only train_step differs. One step on rank r of W:

1. the rank generates only its own shard of the global batch (the replica's `batch` for the
   rank's contiguous slice, a pure function of seed, step, rank and world);
2. forward and backward over the shard in micro-batches (parallel.rank_backward, with the same
   micro-batch size the in-process trainer uses, so the global batch is kept);
3. all rank gradients flattened into one buffer and summed with one dist.all_reduce;
4. the sum divided by W exactly as parallel.finish_mean does, then one AdamW step;
5. the per-rank losses all-gathered as float64 and added in rank order, which is the same
   Python float sum the in-process trainer computes, so the reported loss matches it exactly
   whenever the rank losses do.

Float order: with two ranks the all-reduce is one addition per element, and IEEE addition is
commutative, so world 2 is bit-exact with the in-process trainer at world 2. With more ranks
gloo's ring all-reduce adds the shards in an order that depends on the chunk of the buffer, not
in rank order, so the result is close to, not bit-identical with, the in-process one. Gloo's
order is fixed for a given world size and buffer size, so two gloo runs agree bit for bit and
every rank ends the step with identical weights.

This module imports torch and torch.distributed; the launcher does not import it.
"""

from __future__ import annotations

import hashlib

import torch
import torch.distributed as dist

from replica import parallel
from replica.config import ReplicaConfig
from replica.data import shard_bounds
from replica.data_stream import past_skips
from replica.interface import LoadedReplica
from replica.trainer import Trainer


class RankTrainer(Trainer):
    """The Trainer of one rank in an initialized default process group."""

    def __init__(self, replica: LoadedReplica | ReplicaConfig, world_size: int, rank: int) -> None:
        super().__init__(replica, world_size)
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is outside a world of {world_size}")
        self.rank = rank

    def _flat_grads(self) -> tuple[torch.Tensor, list[torch.Tensor]]:
        params = list(self.model.parameters())
        grads = parallel.take_rank_grads(params)
        return torch.cat([g.reshape(-1) for g in grads]), grads

    def train_step(self) -> float:
        """One synchronous step; returns the mean loss over the global batch (all ranks)."""
        params = list(self.model.parameters())
        for p in params:
            p.grad = None
        start, stop = shard_bounds(self.replica.global_batch, self.rank, self.world_size)
        # The cursor, as the in-process trainer keeps it: its checkpoints must load there too.
        index = self.next_batch
        shard = self.replica.batch(index, start, stop)
        rank_loss = parallel.rank_backward(
            self.replica, self.model, params, shard, self.micro_batch
        )
        flat, grads = self._flat_grads()
        # One collective for all gradients: the sum over ranks, in gloo's order.
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
        summed = [
            chunk.view_as(g)
            for chunk, g in zip(flat.split([g.numel() for g in grads]), grads, strict=True)
        ]
        parallel.finish_mean(params, summed, self.world_size)
        gathered = [torch.zeros(1, dtype=torch.float64) for _ in range(self.world_size)]
        dist.all_gather(gathered, torch.tensor([rank_loss], dtype=torch.float64))
        self.optimizer_step()
        self.step += 1
        self.next_batch = past_skips(index + 1, self.step, self.skips)
        loss_sum = 0.0
        for value in gathered:  # rank order, as the in-process trainer adds them
            loss_sum += value.item()
        loss = loss_sum / self.world_size
        self.losses.append((self.step, loss))
        return loss

    def parameters_bytes(self) -> bytes:
        """torch.save bytes of the named parameters (cloned), for sending over a pipe."""
        import io

        buf = io.BytesIO()
        torch.save(self.parameters_copy(), buf)
        return buf.getvalue()

    def parameters_digest(self) -> str:
        """sha256 over the parameters' raw bytes in name order: equal iff bit-identical."""
        h = hashlib.sha256()
        for name, p in sorted(self.model.named_parameters()):
            h.update(name.encode())
            h.update(p.detach().contiguous().view(torch.uint8).numpy().tobytes())
        return h.hexdigest()

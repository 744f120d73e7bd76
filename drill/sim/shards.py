"""Sharded checkpoints: a model whose state does not fit one GPU trains sharded (FSDP or ZeRO),
so every rank holds, and writes, its own slice of the weights and optimizer state.

A 70B model's bf16 weights alone are 140 GB, more than an 80 GB GPU holds; its 980 GB of
weights plus fp32 Adam state split sixteen ways is about 61 GB a rank. Such a job's collectives
are all-gathers (forward) and reduce-scatters (backward), each rank writes its shard of every
checkpoint at the same time as the others, and a checkpoint is whole only when every shard and
the manifest are there and match. The write of all shards together is limited by the volume:
each rank gets its share of the volume's bandwidth, so one shard's write time is its size over
that share.
"""

from __future__ import annotations

from drill.sim.gpu_state import GPU_MEMORY_MIB
from drill.values.units import format_size

BF16_BYTES = 2  # a weight in bf16: what has to sit on a GPU before anything else does
GPU_BYTES = GPU_MEMORY_MIB * 2**20


def is_sharded(model_params: float) -> bool:
    """Whether the job has to shard its state: its bf16 weights alone outgrow one GPU."""
    return model_params * BF16_BYTES > GPU_BYTES


def shard_count(model_params: float, world: int) -> int:
    """How many files a checkpoint is: one a rank when sharded, else rank 0's one file."""
    return max(1, world) if is_sharded(model_params) else 1


def shard_size(size: float, shards: int) -> float:
    return size / max(1, shards)


def shard_name(index: int) -> str:
    """torch.distributed.checkpoint's file name for a rank's shard (`__RANK_0.distcp`)."""
    return f"__{index}_0.distcp"


def watchdog_op(sharded: bool, seq: int, world: int) -> tuple[str, int, int]:
    """The collective a rank waits in when the watchdog fires, with NumelIn and NumelOut.

    Data parallel all-reduces gradient buckets. Sharded training all-gathers the parameters
    before each layer runs and reduce-scatters the gradients after: the collective before an
    odd sequence number in a step is the gather, as a forward pass comes first."""
    bucket = 8388608
    if not sharded:
        return "ALLREDUCE", bucket, bucket
    if seq % 2:
        return "_ALLGATHER_BASE", bucket // max(1, world), bucket
    return "_REDUCE_SCATTER_BASE", bucket, bucket // max(1, world)


def verify_report(size: float, written: float, shards: int, condition: str, step: int) -> list[str]:
    """What a checksum tool prints for each file that does not match the manifest: its size or
    its sha256 against the manifest's, never a guess at why."""
    expected = shard_size(size, shards)
    names = [shard_name(i) for i in range(shards)] if shards > 1 else ["model.pt"]
    if condition == "torn":
        have = shard_size(written, shards)
        return [
            f"{name}: size {format_size(have)}, manifest says {format_size(expected)}"
            for name in names
        ]
    if condition == "corrupt":
        return [f"{names[step % len(names)]}: sha256 does not match the manifest"]
    return []

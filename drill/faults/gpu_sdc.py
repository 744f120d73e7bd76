"""gpu_sdc: a GPU starts computing wrong results (silent data corruption), with no Xid, no ECC
error and a health check that still says ok.

It strikes one GPU (`target`, like a straggler's). From then on, every step a job trains with a
rank on that GPU folds that rank's wrong gradients into the all-reduce, so every rank's weights
take the damage: the loss in the job's step lines climbs, and every checkpoint written meanwhile
holds poisoned weights that still verify (their bytes are the ones written). After `nan_after`
such steps the wrong results reach a NaN: the training script's own check (`loss is nan at step
N`) stops rank 0 before the step completes, and the job fails. A restart that lands on the same
GPU corrupts again from its first step; a reboot or a reset does not fix it. `diag NODE` (the
DCGM Diagnostic test: matrix multiplies checked against known results) fails that GPU.

With the replica the damage is real: the rank that stands for the GPU's block adds a seeded
error (drawn from the night's seed) to its gradients before the all-reduce, so the weights a
checkpoint saves are exact and the same on every run. The `sim` backend counts progress only
from the last step that trained on the GPU, as it does for bad data (an estimate), so a night
about this fault sets `expect.backend: replica` on runbooks whose lesson is the loss.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld


class GpuSdc(FaultBase):
    kind: Literal["gpu_sdc"] = Field(description="a GPU computes wrong results, silently")
    nan_after: int = Field(
        30,
        ge=2,
        le=10_000,
        description="steps a job trains on the GPU before its loss is NaN and the script stops",
    )
    target: Target = Field(
        Target(), description="where it strikes; the seed picks one GPU among the candidates"
    )


def fire(world: FaultWorld, fault: GpuSdc, picks: list[Pick]) -> None:
    seed = world.rng(f"gpu_sdc:{fault.id}").randrange(2**31)
    for pick in picks:
        gpu = world.cluster.nodes[str(pick.node)].gpus[int(pick.gpu or 0)]
        # A second fault on the same GPU does not reset its count of wrong steps.
        if gpu.wrong_results is None:
            gpu.wrong_results = (seed, fault.nan_after)


KIND = Kind(
    name="gpu_sdc",
    spec=GpuSdc,
    unit="gpu",
    fire=fire,
    summary="silent: one GPU computes wrong results; the loss climbs, then goes NaN",
)

"""How the simulated job's ranks map onto the replica's ranks. Pure Python, no torch.

The simulated job may span 16 GPUs while the replica trains with 4 ranks: each replica rank
stands for a contiguous block of simulated ranks, the way a node's GPUs form one block of a
real job. A dead simulated GPU therefore takes down the replica rank that represents its block.
"""

from __future__ import annotations


def replica_rank_for(sim_rank: int, sim_world: int, replica_world: int) -> int:
    """The replica rank that represents simulated rank `sim_rank`: sim_rank * R // S.

    Contiguous blocks: with S=16 and R=4, simulated ranks 0-3 map to replica rank 0, 4-7 to 1,
    and so on. When R does not divide S the blocks differ in size by at most one.
    """
    if sim_world < 1 or replica_world < 1:
        raise ValueError(
            f"world sizes must be positive, got sim {sim_world}, replica {replica_world}"
        )
    if not 0 <= sim_rank < sim_world:
        raise ValueError(f"sim rank {sim_rank} is outside a world of {sim_world}")
    return sim_rank * replica_world // sim_world


def replica_world_for(
    sim_world: int, job_width: int, configured_ranks: int, *, global_batch: int | None = None
) -> int:
    """The replica's world size when the simulated job runs on `sim_world` GPUs.

    At the job's full width (sim_world == job_width) it is the configured rank count, so the
    undisturbed run is the baseline. A job restarted narrower or wider is scaled in proportion,
    configured_ranks * sim_world // job_width, at least 1, and then lowered until it divides
    the global batch (every rank needs an equal shard). The global batch is kept by gradient
    accumulation, so a different width is the same math in a different float order: "close"
    to the baseline, not "bitexact". global_batch defaults to ReplicaConfig's default.
    """
    if sim_world < 1 or job_width < 1 or configured_ranks < 1:
        raise ValueError(
            f"sizes must be positive, got sim_world={sim_world}, job_width={job_width}, "
            f"configured_ranks={configured_ranks}"
        )
    if global_batch is None:
        from replica.config import ReplicaConfig

        global_batch = ReplicaConfig().global_batch
    if sim_world == job_width:
        return configured_ranks
    world = max(1, configured_ranks * sim_world // job_width)
    world = min(world, global_batch)
    while global_batch % world:
        world -= 1
    return world

"""The fault kinds: one module per kind, each with its YAML model, what it picks, what it does
to the world and the signals it leaves. The loader, the JSON Schema, the guide check and the
simulation all take the kinds from `KINDS` here.

Adding a kind: write drill/faults/NAME.py with a `FaultBase` subclass whose `kind` is
`Literal["NAME"]`, a `fire` function and a `KIND = Kind(...)`, add the module to `_MODULES`
below, describe it in the authoring guide, and test its signals. `fire` is handed a FaultWorld
(drill/faults/world.py), not the simulation: if the kind needs more of the world, name it there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Union

from pydantic import Field

from drill.faults import (
    bad_shard,
    collective_mismatch,
    corrupt_checkpoint,
    fabric_manager_down,
    gpu_needs_reset,
    gpu_sdc,
    gpu_xid,
    hang_rank,
    ib_flap,
    kill_rank,
    link_flap,
    nfs_hang,
    node_down,
    port_flap,
    quota_cut,
    random_failures,
    shm_full,
    slow_disk,
    straggler,
    version_mismatch,
    volume_fill,
    zombie_memory,
)
from drill.faults.base import FaultBase, Kind, Pick

_MODULES = (
    kill_rank,
    hang_rank,
    node_down,
    gpu_xid,
    straggler,
    link_flap,
    random_failures,
    corrupt_checkpoint,
    volume_fill,
    quota_cut,
    slow_disk,
    gpu_needs_reset,
    zombie_memory,
    shm_full,
    fabric_manager_down,
    ib_flap,
    nfs_hang,
    bad_shard,
    port_flap,
    gpu_sdc,
    collective_mismatch,
    version_mismatch,
)
KINDS: dict[str, Kind] = {module.KIND.name: module.KIND for module in _MODULES}

# One model per kind, told apart by `kind:`, so the schema says which fields each kind takes.
if TYPE_CHECKING:
    # The checker cannot build a union from the registry: the same kinds, written out for it
    # alone (tests/incident/test_fault_spec_union.py checks the two agree).
    FaultSpec = Annotated[
        Union[  # noqa: UP007 (the same spelling as the one built below)
            kill_rank.KillRank,
            hang_rank.HangRank,
            node_down.NodeDown,
            gpu_xid.GpuXid,
            straggler.Straggler,
            link_flap.LinkFlap,
            random_failures.RandomFailures,
            corrupt_checkpoint.CorruptCheckpoint,
            volume_fill.VolumeFill,
            quota_cut.QuotaCut,
            slow_disk.SlowDisk,
            gpu_needs_reset.GpuNeedsReset,
            zombie_memory.ZombieMemory,
            shm_full.ShmFull,
            fabric_manager_down.FabricManagerDown,
            ib_flap.IbFlap,
            nfs_hang.NfsHang,
            bad_shard.BadShard,
            port_flap.PortFlap,
            gpu_sdc.GpuSdc,
            collective_mismatch.CollectiveMismatch,
            version_mismatch.VersionMismatch,
        ],
        Field(discriminator="kind"),
    ]
else:
    FaultSpec = Annotated[
        Union[tuple(kind.spec for kind in KINDS.values())],  # noqa: UP007 (from the registry)
        Field(discriminator="kind"),
    ]

__all__ = ["KINDS", "FaultSpec", "FaultBase", "Kind", "Pick"]

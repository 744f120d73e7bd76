"""How nodes, leaves and spares are named from the cluster shape, in one place.

Islands are declared in order; inside one, nodes are numbered across its leaves: island `a` with
two leaves of four nodes has gpu-a-1..4 behind leaf-a1 and gpu-a-5..8 behind leaf-a2. Spares are
spare-a-1 and up, behind no leaf until `swap` puts one in a broken node's place.
"""

from __future__ import annotations

from dataclasses import dataclass

from drill.incident.models import Cluster


@dataclass(frozen=True)
class NodeSlot:
    name: str
    island: str
    leaf: str | None  # None for a spare
    spare: bool


def layout(cluster: Cluster) -> list[NodeSlot]:
    slots: list[NodeSlot] = []
    for island in cluster.islands:
        index = 1
        for leaf_number in range(1, island.leaves + 1):
            leaf = f"leaf-{island.name}{leaf_number}"
            for _ in range(island.nodes_per_leaf):
                slots.append(NodeSlot(f"gpu-{island.name}-{index}", island.name, leaf, False))
                index += 1
        for spare in range(1, island.spares + 1):
            slots.append(NodeSlot(f"spare-{island.name}-{spare}", island.name, None, True))
    return slots

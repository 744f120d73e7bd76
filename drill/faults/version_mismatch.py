"""version_mismatch: a node comes into service with another NVIDIA driver and NCCL than the
rest of the fleet (a spare or a repaired node imaged from an old image). Running work is not
touched; a gang that starts with the node on it never finishes its NCCL start-up.

Signals: the attempt stays in start-up (`status JOB` says it has been starting since it was
placed), no rank raises anything and the NCCL watchdog, which watches collectives, never fires:
nothing fails the job, so its retries never run and a restart onto the same node hangs again.
The learner's job pages after five minutes without a step. Each node's first rank logs the
training script's start-up line with its driver and NCCL, so the node's differs from the
others'; `health NODE` compares the node's image with the fleet's. Excluding the node (or
putting the right image on it) and restarting is the way out.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld

# The fleet's image, which every other node runs (NCCL as drill/sim/torchrun.py names it).
FLEET_DRIVER = "550.54.15"


class VersionMismatch(FaultBase):
    kind: Literal["version_mismatch"] = Field(
        description="a node runs another NVIDIA driver and NCCL than the fleet"
    )
    driver: str = Field("535.104.05", max_length=20, description="the node's driver version")
    nccl: str = Field("2.18.5", max_length=20, description="the node's NCCL version")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )

    @field_validator("driver", "nccl")
    @classmethod
    def _dotted(cls, value: str) -> str:
        if not re.fullmatch(r"[0-9]+(\.[0-9]+){1,3}", value):
            raise ValueError("use a dotted version of digits, like 535.104.05 or 2.18.5")
        return value


def fire(world: FaultWorld, fault: VersionMismatch, picks: list[Pick]) -> None:
    for pick in picks:
        if pick.node in world.cluster.nodes:
            world.cluster.nodes[str(pick.node)].image_mismatch = (fault.driver, fault.nccl)


KIND = Kind(
    name="version_mismatch",
    spec=VersionMismatch,
    unit="node",
    fire=fire,
    summary="a node runs another driver and NCCL; a gang's start-up with it hangs, unwatched",
)

"""nfs_hang: one rank blocks reading its next batch from a network filesystem that stopped
answering, outside any collective. Nothing raises.

Signals: the rank's log goes silent, every other rank waits for it in the next all-reduce, the
job's step age grows and the learner's job pages after five minutes without progress; a stack
dump of the rank shows it inside the data loader's read of `path` (the frames are kept on the
attempt for `stack`), a dump of any other rank shows it in the all-reduce. The NCCL watchdog fires
only at the job's `collective_timeout`: set that past the night's end for a hang that never
errors. With `server_log` the node's kernel log says `nfs: server SERVER not responding, still
trying`. With `duration` the server answers again and the gang moves on by itself; otherwise a
restart (the read happens again, on a server that answers) is the way out.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.states import JobState
from drill.values.fields import Duration, Name


class NfsHang(FaultBase):
    kind: Literal["nfs_hang"] = Field(
        description="a rank blocks reading from a network filesystem that stopped answering"
    )
    path: str = Field(
        "/mnt/datasets/train/shard-00417.bin",
        max_length=200,
        description="the file the rank is reading, an absolute path",
    )
    server: Name = Field("nfs-data01", description="the file server's name")
    server_log: bool = Field(
        False, description="the node's kernel log says the server is not responding"
    )
    duration: Duration | None = Field(None, description="the server answers again after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )

    @field_validator("path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not re.fullmatch(r"/[A-Za-z0-9._/-]+", value):
            raise ValueError(
                "use an absolute path of letters, digits and . _ - /, like"
                " /mnt/datasets/train/shard-00417.bin"
            )
        return value


def frames(path: str) -> list[str]:
    """What py-spy dump shows for the blocked rank, innermost first: the same training script
    whose frames `stack` shows for every other rank (drill/engine/actions/diagnose.py), so two
    dumps of one job agree on its files, functions and lines."""
    return [
        f"readinto (<built-in>) reading {path}",
        "read (shard_reader.py:58)",
        "__getitem__ (dataset.py:112)",
        "fetch (torch/utils/data/_utils/fetch.py:52)",
        "_next_data (torch/utils/data/dataloader.py:674)",
        "__next__ (torch/utils/data/dataloader.py:630)",
        "train_step (train.py:141)",
        "main (train.py:212)",
        "<module> (train.py:230)",
    ]


def fire(world: FaultWorld, fault: NfsHang, picks: list[Pick]) -> None:
    for pick in picks:
        job = world.jobs.get(pick.job) if pick.job else None
        if job is None or pick.rank is None or job.state != JobState.RUNNING:
            continue
        attempt = job.current
        if attempt is None:
            continue
        attempt.blocked_in[pick.rank] = frames(fault.path)
        if fault.server_log and pick.node in world.cluster.nodes:
            world.cluster.nodes[str(pick.node)].kernel_log.append(
                (world.now, f"nfs: server {fault.server} not responding, still trying")
            )
        world.failures.stall(
            job, pick.rank, clears_after=fault.duration, how="hang", cause=fault.id
        )
        if fault.duration is not None:
            world.env.process(_answers(world, fault, attempt, pick))


def _answers(world: FaultWorld, fault: NfsHang, attempt, pick: Pick):
    assert fault.duration is not None  # started only for a hang that ends
    yield world.env.timeout(fault.duration)
    attempt.blocked_in.pop(pick.rank, None)
    if fault.server_log and pick.node in world.cluster.nodes:
        world.cluster.nodes[str(pick.node)].kernel_log.append(
            (world.now, f"nfs: server {fault.server} OK")
        )


KIND = Kind(
    name="nfs_hang",
    spec=NfsHang,
    unit="rank",
    fire=fire,
    summary="a rank blocks in a network filesystem read; no error, only step age and its stack",
)

"""nfs_hang: one rank blocks reading its next batch from a network filesystem that stopped
answering, outside any collective. Nothing raises.

Signals: the rank's log goes silent, every other rank waits for it in the next all-reduce, the
job's step age grows and the learner's job pages after five minutes without progress; a stack
dump of the rank shows it inside the data loader's read (py-spy prints Python frames only, not
the file), a dump of any other rank shows it in the all-reduce. The NCCL watchdog fires only at
the job's `collective_timeout`: set that past the night's end for a hang that never errors.

The mount is hard, as dataset shares are, so the node's kernel says what the read waits for:
`nfs: server SERVER not responding, still trying` a minute in, and at 120 s the hung task
report, `INFO: task python:PID blocked for more than 120 seconds.` with its call trace (the read
waiting in `rpc_wait_bit_killable` under `nfs_file_read`). `dmesg` shows it all, `health` the
first line of each. `server_log: false` keeps the kernel quiet, a harder night than a real one.
With `duration` the server answers again and the gang moves on by itself; otherwise a restart
(the read happens again, on a server that answers) is the way out.
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
        description="the file the rank is reading, an absolute path (for the author: no look"
        " prints it, as py-spy and the kernel's hung task report do not)",
    )
    server: Name = Field("nfs-data01", description="the file server's name")
    server_log: bool = Field(
        True,
        description="the node's kernel log says the server is not responding and reports the"
        " blocked task, as a hard mount does (false: a quiet kernel log)",
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
    """What py-spy dump shows for the blocked rank, innermost first: Python frames only, as
    `function (file:line)`, never the file a system call is reading (`path` is kept for the
    incident's author). The same training script whose frames `stack` shows for every other
    rank (drill/engine/actions/diagnose.py), so two dumps of one job agree."""
    return [
        "read (shard_reader.py:58)",
        "__getitem__ (dataset.py:112)",
        "fetch (torch/utils/data/_utils/fetch.py:52)",
        "_next_data (torch/utils/data/dataloader.py:674)",
        "__next__ (torch/utils/data/dataloader.py:630)",
        "train_step (train.py:141)",
        "main (train.py:212)",
        "<module> (train.py:230)",
    ]


# A hard mount's client says the server is gone after one RPC timeout (timeo=600, a minute),
# and the kernel's hung task check reports a task blocked for 120 s.
NOT_RESPONDING_AFTER = 60.0
HUNG_TASK_AFTER = 120.0
KERNEL = "5.15.0-119-generic #129-Ubuntu"
# Where a read of a file on NFS waits when the server does not answer: revalidating the file's
# attributes with the server, a synchronous RPC that waits killable, so the task shows state D.
_TRACE = [
    "__schedule+0x24e/0x590",
    "schedule+0x69/0x110",
    "rpc_wait_bit_killable+0x25/0xb0 [sunrpc]",
    "__wait_on_bit+0x33/0xa0",
    "out_of_line_wait_on_bit+0x8d/0xb0",
    "__rpc_execute+0x146/0x4e0 [sunrpc]",
    "rpc_execute+0x9e/0xc0 [sunrpc]",
    "rpc_run_task+0x15c/0x1a0 [sunrpc]",
    "nfs4_call_sync_custom+0xb/0x30 [nfsv4]",
    "_nfs4_proc_getattr+0x178/0x1b0 [nfsv4]",
    "nfs4_proc_getattr+0x70/0x100 [nfsv4]",
    "__nfs_revalidate_inode+0xdb/0x330 [nfs]",
    "nfs_revalidate_mapping+0x5a/0x170 [nfs]",
    "nfs_file_read+0x4c/0xd0 [nfs]",
    "new_sync_read+0x10f/0x1a0",
    "vfs_read+0x104/0x1a0",
    "ksys_read+0x67/0xf0",
    "__x64_sys_read+0x19/0x20",
    "do_syscall_64+0x5c/0xc0",
    "entry_SYSCALL_64_after_hwframe+0x62/0xcc",
]


def hung_task(pid: int, ppid: int) -> str:
    """The kernel's hung task report for a rank blocked in the read: one message whose later
    lines (`dmesg` prints them all) are the task and its call trace."""
    return "\n".join(
        [
            f"INFO: task python:{pid} blocked for more than 120 seconds.",
            f"      Tainted: P           OE     {KERNEL}",  # the NVIDIA module taints it
            '"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.',
            f"task:python          state:D stack:    0 pid:{pid:>5} ppid:{ppid:>6} flags:0x00004002",
            "Call Trace:",
            " <TASK>",
            *(f" {frame}" for frame in _TRACE),
            " </TASK>",
        ]
    )


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
            world.env.process(_kernel_says(world, fault, job, attempt, pick))
        world.failures.stall(
            job, pick.rank, clears_after=fault.duration, how="hang", cause=fault.id
        )
        if fault.duration is not None:
            world.env.process(_answers(world, fault, attempt, pick))


def _kernel_says(world: FaultWorld, fault: NfsHang, job, attempt, pick: Pick):
    """The node's kernel about the read, while the rank is still blocked in it."""
    node = world.cluster.nodes[str(pick.node)]

    def blocked() -> bool:
        return job.current is attempt and pick.rank in attempt.blocked_in

    yield world.env.timeout(NOT_RESPONDING_AFTER)
    if not blocked():
        return
    node.kernel_log.append((world.now, f"nfs: server {fault.server} not responding, still trying"))
    yield world.env.timeout(HUNG_TASK_AFTER - NOT_RESPONDING_AFTER)
    if not blocked() or pick.gpu is None:
        return
    pid = world.pid_on_gpu(node.name, pick.gpu) or node.spawn()
    # torchrun's agent started the node's ranks one after another, just after itself.
    here = sorted(dict(job.placement).get(node.name, []))
    local = here.index(pick.gpu) if pick.gpu in here else 0
    node.kernel_log.append((world.now, hung_task(pid, pid - local - 1)))


def _answers(world: FaultWorld, fault: NfsHang, attempt, pick: Pick):
    assert fault.duration is not None  # started only for a hang that ends
    yield world.env.timeout(fault.duration)
    attempt.blocked_in.pop(pick.rank, None)
    if pick.node in world.cluster.nodes:
        node = world.cluster.nodes[str(pick.node)]
        if any(fault.server in text for _, text in node.kernel_log):
            node.kernel_log.append((world.now, f"nfs: server {fault.server} OK"))


KIND = Kind(
    name="nfs_hang",
    spec=NfsHang,
    unit="rank",
    fire=fire,
    summary="a rank blocks in a network filesystem read; no error, only step age and its stack",
)

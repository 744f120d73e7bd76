"""random_failures: from `at` on, nodes in service fail at random, as a large run's do.

An exponential clock with `mtbf` per node (or `cluster.mtbf`). Each failure draws its kind from
the published account's mix (drill/values/failure_account.py), so most are GPU faults on a live
host, as on a real fleet, and each shows its own signal:

- gpu: `NVRM: Xid ... 79, GPU has fallen off the bus` in the node's kernel log; the rank on it
  hangs until the collective timeout (gpu_xid's catalogue).
- gpu_memory: an Xid 48 (double-bit ECC) line; the rank on it crashes with a CUDA error.
- network: a leaf switch or cable flap, as link_flap draws it (the switch log shows it); NCCL
  fails with `transport retry counter exceeded` on gangs behind the leaf.
- nic: one node's NIC: the rank there raises NCCL's InfiniBand error; its leaf is untouched.
- node: the host itself (`mce: [Hardware Error]` in its log), which stops answering as
  node_down does. CPUs were 2 of the 419, so this is the rare one.
- software: an Xid 13 line and the rank's CUDA error; the GPU keeps working.

For gpu, gpu_memory and nic, the cluster's health automation drains the node at once and it is
back, repaired, after `duration` (as a run of this size is run: Meta's needed a person three
times in 54 days). The host failures return after `duration` as node_down does. Silent data
corruption, 1.4% of the account, is not drawn: it fails nothing on the night it happens (the
season counts it; a night of its own teaches it). With `mix: host` every failure is the host,
for a rig that prices one kind of restart (drill/season/theory.py). It picks its own nodes as it
goes, so it has no `target`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Loc, Names, Pick
from drill.faults.gpu_xid import GpuXid
from drill.faults.gpu_xid import fire as fire_xid
from drill.faults.ib_flap import RAISED, WARN
from drill.faults.link_flap import LinkFlap
from drill.faults.link_flap import fire as fire_flap
from drill.faults.world import FaultWorld
from drill.states import NodeState
from drill.values.failure_account import published_mix
from drill.values.fields import Duration

XID_OF = {"gpu": 79, "gpu_memory": 48, "software": 13}
FLAP = 120.0  # a cable or switch port that drops and comes back: past IB's retry window
# The kinds a night draws, with their published shares; silent data corruption is left out.
MIX = [(cause, share) for cause, share in published_mix() if cause != "sdc"]


class RandomFailures(FaultBase):
    kind: Literal["random_failures"] = Field(description="nodes fail at random from `at` on")
    mtbf: Duration | None = Field(
        None, description="mean time between failures per node (default: cluster.mtbf)"
    )
    duration: Duration | None = Field(
        None, description="each failed node is back, repaired or rebooted, after this"
    )
    mix: Literal["published", "host"] = Field(
        "published",
        description="published: the account's mix of kinds; host: every failure is the host"
        " stopping (for a rig whose restart cost assumes one kind, as drill/season/theory.py's)",
    )


def fire(world: FaultWorld, fault: RandomFailures, picks: list[Pick]) -> None:
    mtbf = fault.mtbf or world.incident.cluster.mtbf
    if mtbf:
        world.env.process(_failing(world, fault, mtbf))


def _failing(world: FaultWorld, fault: RandomFailures, mtbf: float):
    rng = world.rng(f"random-failures:{fault.id}")
    causes = [cause for cause, _ in MIX]
    shares = [share for _, share in MIX]
    count = 0
    while True:
        if not _live(world):
            return
        yield world.env.timeout(rng.expovariate(len(_live(world)) / mtbf))
        live = _live(world)
        if not live:
            return
        node = live[rng.randrange(len(live))]
        if fault.mix == "host":
            cause, gpu = "node", 0  # no draws: the same clock and nodes as a host-only fault
        else:
            cause = rng.choices(causes, weights=shares)[0]
            gpu = rng.randrange(node.gpu_count)
        world.faults.record_pick(fault.id, Pick(node=node.name, leaf=node.leaf, gpu=gpu))
        count += 1
        _strike(world, fault, node, cause, gpu, f"{fault.id}-{count}")


def _strike(world: FaultWorld, fault: RandomFailures, node, cause: str, gpu: int, name: str):
    if cause in XID_OF:
        spec = GpuXid(id=name, kind="gpu_xid", at=0.0, xid=XID_OF[cause])
        fire_xid(world, spec, [Pick(node=node.name, gpu=gpu)])
        if cause != "software":
            world.failures.repaired_by_automation(node.name, fault.duration, f"Xid {spec.xid}")
    elif cause == "network" and node.leaf:
        flap = LinkFlap(id=name, kind="link_flap", at=0.0, duration=FLAP)
        fire_flap(world, flap, [Pick(node=node.name, leaf=node.leaf)])
    elif cause == "nic":
        _nic_down(world, node)
        world.failures.repaired_by_automation(node.name, fault.duration, "NIC port down")
    else:  # the host itself, or a network failure on a node behind no leaf
        node.kernel_log.append((world.now, "mce: [Hardware Error]: Machine check events logged"))
        world.failures.node_down(node.name, fault.duration, persists=False, cause=name)


def _nic_down(world: FaultWorld, node) -> None:
    """The node's own port: every gang training through it fails in NCCL within seconds."""
    for job in sorted(world.running_jobs(), key=lambda j: j.name):
        attempt = job.current
        if node.name not in job.nodes or attempt is None or not attempt.training:
            continue
        if attempt.crashed:
            continue
        others = [n for n in job.nodes if n != node.name] or [node.name]
        peer = world.cluster.nodes[others[0]].address
        rank = job.ranks_on(node.name)[0]
        warn, raised = WARN.format(peer=peer, local=node.address), RAISED.format(peer=peer)
        world.failures.network_error(job, rank, peer, warn, raised)


def _live(world: FaultWorld):
    return [n for n in world.cluster.in_service() if n.responsive and n.state == NodeState.UP]


def check(fault: RandomFailures, names: Names) -> list[tuple[Loc, str]]:
    if fault.mtbf or names.cluster_mtbf:
        return []
    return [((), "random_failures needs `mtbf:` here or in `cluster`")]


KIND = Kind(
    name="random_failures",
    spec=RandomFailures,
    unit="cluster",
    fire=fire,
    summary="GPU Xids, NCCL network errors and rare host failures at random, at the MTBF",
    check=check,
)

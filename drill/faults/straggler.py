"""straggler: one GPU runs slow (thermal throttling: hot, clocks down), and the whole gang with it.

Signals: nothing in the kernel log (the driver does not log throttling there); `gpus NODE`
shows the GPU's clocks down with the throttle reason, `perf JOB` shows that rank's compute time
above the others' while they wait for it in the collective, and the learner's job pages that
its step time is above usual. Synchronous data parallel runs at the pace of its slowest rank. With
`duration` the clocks recover.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from drill.faults.base import FaultBase, Kind, Pick, Target
from drill.faults.world import FaultWorld
from drill.values.fields import Duration


class Straggler(FaultBase):
    kind: Literal["straggler"] = Field(description="a GPU is throttled")
    slowdown: float = Field(2.0, ge=1.0, le=100.0, description="step time factor on that GPU")
    duration: Duration | None = Field(None, description="the clocks recover after this")
    target: Target = Field(
        Target(), description="where it strikes; the seed picks among candidates"
    )


def fire(world: FaultWorld, fault: Straggler, picks: list[Pick]) -> None:
    for pick in picks:
        _throttle(world, fault, str(pick.node), int(pick.gpu or 0))


def _throttle(world: FaultWorld, fault: Straggler, node_name: str, gpu_index: int) -> None:
    node = world.cluster.nodes[node_name]
    gpu = node.gpus[gpu_index]
    gpu.throttles[fault.id] = fault.slowdown
    for job, _rank in world.jobs_on_gpu(node_name, gpu_index):
        if job.yours:
            world.env.process(world.failures.slow_alert(job, fault.slowdown))
    if fault.duration is not None:
        world.env.process(_restore(world, fault.id, node_name, gpu_index, fault.duration))


def _restore(world: FaultWorld, cause: str, node_name: str, gpu_index: int, delay: float):
    yield world.env.timeout(delay)
    world.cluster.nodes[node_name].gpus[gpu_index].throttles.pop(cause, None)


KIND = Kind(
    name="straggler",
    spec=Straggler,
    unit="gpu",
    fire=fire,
    summary="throttled clocks on one GPU; its rank computes slowly and the step time rises",
)

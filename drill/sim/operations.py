"""What an operator can do to the world. The engine checks the input; these change the state.

Each function returns a short sentence saying what happened, for the action's result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.faults.units import write_boot
from drill.faults.xids import xid_lines
from drill.sim import gpu_state
from drill.sim.cluster import Node
from drill.sim.events import HarmDone
from drill.sim.jobs import CANCELLED, NODE_FAIL, PENDING, RUNNING, Job
from drill.states import MARKED, NodeState

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World

# Seconds from the kernel starting to the node back in service (slurmd up), and to the GPU
# driver loading, when a broken GPU is logged again.
BOOT_TO_SERVICE = 45.0
DRIVER_LOADS = 14.0


def healthy(node: Node) -> bool:
    """Nothing wrong that an operator could find: the node was fine to keep in service."""
    return (
        node.responsive
        and not node.dead_until_swap
        and not any(
            gpu.broken or gpu.throttled > 1.0 or gpu.wrong_results is not None for gpu in node.gpus
        )
        and node.link_events == 0
        and not gpu_state.fails_startup(node)  # `health` shows what failed to start
        and node.image_mismatch is None  # `health` compares its image with the fleet's
    )


def _note_healthy(world: World, node: Node, verb: str) -> None:
    """A healthy node a person takes out of service: its capacity is lost until it is back."""
    if healthy(node) and node.taken_healthy_at is None:
        node.taken_healthy_at = world.now
        world.emit(HarmDone(world.now, node.name, f"{verb} {node.name}, which was healthy"))


def cordon(world: World, node: Node) -> str:
    _note_healthy(world, node, "cordoned")
    world.set_node_state(node, NodeState.CORDONED, "cordoned by you")
    return f"{node.name} cordoned: no new work will land on it; running work continues"


def uncordon(world: World, node: Node) -> str:
    if any(gpu.broken for gpu in node.gpus) or node.dead_until_swap:
        node.put_back_broken = True
    world.set_node_state(node, NodeState.UP, "")
    return f"{node.name} is up and takes new work"


def drain(world: World, node: Node) -> str:
    _note_healthy(world, node, "drained")
    if node.allocations:
        world.set_node_state(node, NodeState.DRAINING, "drained by you")
        jobs = ", ".join(sorted(node.allocations))
        return f"{node.name} draining: no new work; waiting for {jobs} to finish"
    world.set_node_state(node, NodeState.DRAINED, "drained by you")
    return f"{node.name} drained: it is empty and takes no new work"


def kill_work_on(world: World, node: Node, why: str) -> list[str]:
    victims = sorted(node.allocations)
    for name in victims:
        world.end_attempt(world.jobs[name], NODE_FAIL, why)
    return victims


def reboot(world: World, node: Node) -> str:
    _note_healthy(world, node, "rebooted")
    marked = node.state in MARKED
    victims = kill_work_on(world, node, f"node {node.name} rebooted")
    world.set_node_state(node, NodeState.REBOOTING, "rebooted by you")
    node.responsive = False
    world.env.process(_reboot_done(world, node, marked))
    killed = f"; killed {', '.join(victims)}" if victims else ""
    return f"{node.name} rebooting (back in about {int(world.incident.cluster.reboot_time // 60)}m){killed}"


def _reboot_done(world: World, node: Node, marked: bool):
    yield world.env.timeout(world.incident.cluster.reboot_time)
    if node.state != NodeState.REBOOTING:
        return
    if node.dead_until_swap:
        node.last_heartbeat = world.now
        world.set_node_state(node, NodeState.DOWN, "did not come back after reboot")
        return
    node.responsive = True
    node.last_heartbeat = world.now
    node.down_causes.clear()  # a power cycle clears what a power cycle clears
    node.put_back_broken = False
    for gpu in node.gpus:
        if gpu.broken and gpu.clears_on_reboot:
            gpu.broken = False
            gpu.xid = None
        gpu.throttles.clear()
    gpu_state.rebooted(node)
    # dmesg starts empty at boot (earlier boots are in `journalctl -k -b -1`); a GPU still
    # broken is logged again when the driver finds it. The units' results (the fabric manager's
    # too) and slurmd's start go to the journal, not the kernel's ring buffer.
    node.booted_at = world.now - BOOT_TO_SERVICE
    node.kernel_log.clear()
    for gpu in node.gpus:
        if gpu.broken and gpu.xid is not None:
            lines = xid_lines(gpu.bus_id, gpu.xid, node.pid_base + gpu.index, gpu.index)
            node.kernel_log += [(node.booted_at + DRIVER_LOADS, line) for line in lines]
    write_boot(node.journal, node.booted_at, fabric_manager_fails=not node.fabric_manager_up)
    world.set_node_state(node, NodeState.DRAINED if marked else NodeState.UP, "back from reboot")


def kill_process(world: World, node: Node, pid: int) -> str | None:
    """`kill -9 PID` on the node, for a process that holds a GPU's memory outside any job:
    what happened, or None when no such process holds a GPU here."""
    for gpu in node.gpus:
        if gpu.held_by is None or gpu.held_by[0] != pid:
            continue
        held = gpu.held_by[1]
        if not gpu_state.kill_holder(gpu):
            return (
                f"{node.name}: sent SIGKILL to {pid}, and it is still there in state D"
                " (uninterruptible sleep in the driver): no signal ends it until that call"
                f" returns. GPU {gpu.index}'s memory stays held; a reboot frees it."
            )
        return (
            f"{node.name}: killed {pid} (python); GPU {gpu.index} has its"
            f" {held / 1024:.2f} GiB back"
        )
    return None


def reset_gpus(world: World, node: Node, indexes: list[int]) -> str:
    """`nvidia-smi -r`: what a reset clears, on GPUs no live process is using."""
    done = []
    for index in indexes:
        gpu = node.gpus[index]
        if gpu_state.reset_clears(gpu):
            gpu_state.reset(gpu)
            done.append(index)
    for index in indexes:
        node.kernel_log.append((world.now, f"NVRM: GPU {node.gpus[index].bus_id}: GPU reset"))
    # nvidia-smi's words, one line a GPU, each prefixed with the node as pdsh prints it.
    lines = [f"GPU {node.gpus[i].smi_bus_id} was successfully reset." for i in indexes]
    return "\n".join(f"{node.name}: {line}" for line in [*lines, "All done."])


def swap(world: World, node: Node, spare: Node) -> str:
    _note_healthy(world, node, "swapped out")
    spare.state = NodeState.JOINING  # promised to this swap: no other swap can take it
    victims = kill_work_on(world, node, f"node {node.name} taken out for repair")
    node.out_for_repair = True
    world.set_node_state(node, NodeState.DOWN, f"swapped out for repair; {spare.name} replaces it")
    node.responsive = False
    world.env.process(_swap_done(world, node, spare))
    killed = f"; killed {', '.join(victims)}" if victims else ""
    minutes = int(world.incident.cluster.swap_time // 60)
    # A hot spare is already racked, cabled and powered: the minutes are its health check and
    # joining the pool. The failed node's own repair (a part swap or an RMA) takes days.
    return (
        f"{node.name} out for repair (a part swap or an RMA takes days); {spare.name}, a hot"
        f" spare already cabled, is in service in its place in about {minutes}m{killed}"
    )


def _swap_done(world: World, node: Node, spare: Node):
    yield world.env.timeout(world.incident.cluster.swap_time)
    spare.leaf = node.leaf
    spare.responsive = True
    spare.last_heartbeat = world.now
    if spare.name not in world.cluster.islands[spare.island]:
        world.cluster.islands[spare.island].append(spare.name)
    if node.leaf and spare.name not in world.cluster.leaves[node.leaf][1]:
        world.cluster.leaves[node.leaf][1].append(spare.name)
    world.set_node_state(spare, NodeState.UP, f"replaced {node.name}")


def cancel(world: World, job: Job) -> str:
    if job.current is not None:
        world.end_attempt(job, CANCELLED, "cancelled by you", retry=False)
    else:
        world.set_state(job, CANCELLED, "cancelled by you")
    return f"{job.name} cancelled"


def requeue(world: World, job: Job) -> str:
    world.resubmit(job, resume_from="latest" if job.training else None, why="requeued by you")
    return f"{job.name} requeued; it resumes from the latest checkpoint when placed"


def restart(
    world: World,
    job: Job,
    *,
    resume_from: int | str | None,
    exclude: set[str],
    gpus: int | None,
    skip: tuple[int, int] | None = None,
) -> str:
    job.exclude |= exclude
    if gpus is not None:
        job.world = gpus
    if skip is not None and skip not in job.data_skips:
        job.data_skips.append(skip)
    world.resubmit(job, resume_from=resume_from, why="restarted by you")
    if resume_from is None:
        where = "scratch"
    elif resume_from == "latest":
        where = "the latest checkpoint"
    else:
        where = f"step {resume_from}"
    extra = f", avoiding {', '.join(sorted(job.exclude))}" if job.exclude else ""
    if skip is not None:
        extra += f", skipping the data of steps {skip[0]}-{skip[1]}"
    return f"{job.name} resubmitted on {job.world} GPUs from {where}{extra}"


def hold(world: World, job: Job) -> str:
    job.held = True
    job.reason = "held: `release` lets it schedule"
    return f"{job.name} held"


def release(world: World, job: Job) -> str:
    job.held = False
    return f"{job.name} released"


def set_priority(world: World, job: Job, klass: str) -> str:
    job.priority = klass
    return f"{job.name} is now priority {klass}"


def job_is_active(job: Job) -> bool:
    return job.state in (RUNNING, PENDING) or job.current is not None

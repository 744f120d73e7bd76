"""What a node and its GPUs can be besides broken, and what a start-up on them meets: memory a
leftover process holds outside any job, a GPU that needs a reset, /dev/shm full, the fabric
manager down.

Each of these leaves a running gang alone (its memory and segments are already set up) and fails
the next start-up on that node with the error the real stack prints there. A GPU reset clears
what a reset clears (a GPU that needs one; it applies a pending row remap), and is refused
while a live process holds the GPU, as the driver refuses it; killing the process that holds
memory frees it, unless it is stuck in the driver. A reboot clears all of it, except a fabric
manager that does not match the driver: that one fails again at every boot.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from drill.sim.torchrun import NCCL_VERSION

if TYPE_CHECKING:
    from drill.sim.cluster import Gpu, Node
    from drill.sim.jobs import Job
    from drill.sim.world_view import SimWorld as World

GPU_MEMORY_MIB = 81559  # what nvidia-smi prints as the total of an 80 GB board
SHM_SIZE = 9637888  # the segment NCCL asks for between two GPUs of a node (4 bytes more to extend)
ENOSPC = "No space left on device (28)"
# NCCL names its segment /dev/shm/nccl-XXXXXX, six random letters and digits (mkstemp's).
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
# torch's words when CUDA cannot count its devices because the GPUs never joined the fabric.
FABRIC_MANAGER_RAISED = (
    "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions"
    " before calling NumCudaDevices() that might have already set an error? Error 802: system"
    " not yet initialized"
)


def oom_text(local: int, pid: int, held_mib: int) -> str:
    """torch's own words when the allocator cannot get the memory another process holds."""
    total = GPU_MEMORY_MIB / 1024
    free = max(0.0, (GPU_MEMORY_MIB - held_mib) / 1024)
    return (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU {local}"
        f" has a total capacity of {total:.2f} GiB of which {free:.2f} GiB is free. Process"
        f" {pid} has {held_mib / 1024:.2f} GiB memory in use."
    )


def shm_segment(pid: int) -> str:
    """The segment's name, steady for one process (the real one is random per run)."""
    letters, n = [], pid * 2654435761
    for _ in range(6):
        n, i = divmod(n, len(_NAME_CHARS))
        letters.append(_NAME_CHARS[i])
    return "/dev/shm/nccl-" + "".join(letters)


def shm_nccl_texts(host: str, pid: int, dev: int) -> tuple[list[str], str]:
    """What NCCL 2.2x warns when it cannot create its segment in a full /dev/shm, each line
    prefixed with host:pid:tid [device] and its source line, and what torch's c10d raises."""
    segment = shm_segment(pid)
    prefix = f"{host}:{pid}:{pid + 219} [{dev}]"
    lines = [
        f"{prefix} misc/shmutils.cc:88 NCCL WARN Error: failed to extend {segment} to"
        f" {SHM_SIZE + 4} bytes, error: {ENOSPC}",
        f"{prefix} misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment"
        f" {segment} (size {SHM_SIZE}), error: {ENOSPC}",
    ]
    raised = (
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp, unhandled"
        f" system error (run with NCCL_DEBUG=INFO for details), NCCL version {NCCL_VERSION}."
        " ncclSystemError: System call (e.g. socket, malloc) or external library call failed"
        " or device error. Last error: Error while creating shared memory segment"
        f" {segment} (size {SHM_SIZE}), error: {ENOSPC}"
    )
    return lines, raised


def shm_torch_raised(pid: int) -> str:
    """What torch raises when its own shared memory (a tensor a data loader worker hands
    over) cannot grow in a full /dev/shm: the gloo job's words for the same node."""
    return f"RuntimeError: unable to write to file </torch_{pid}_{pid * 7 % 10**9}_0>: {ENOSPC}"


def startup_failure(world: World, job: Job) -> tuple[int, str, int, list[str], str] | None:
    """The first rank whose start-up fails, where, the lines its log shows, and what it raised;
    None when every rank starts."""
    rank = 0
    for node_name, gpus in job.placement:
        node = world.cluster.nodes[node_name]
        if node.shm_full and job.world > 1:
            pid = job.current.pids.get((node_name, gpus[0]), node.pid_base) if job.current else 0
            if world.failures.speaks_gloo(job):
                # gloo's TCP transport needs no /dev/shm; torch's own shared memory (the data
                # loader's batches) does, and fails there in torch's words.
                return rank, node_name, gpus[0], [], shm_torch_raised(pid)
            lines, raised = shm_nccl_texts(node_name, pid, gpus[0])
            return rank, node_name, gpus[0], lines, raised
        if not node.fabric_manager_up:  # caught at the first CUDA call (fabric_failure)
            return rank, node_name, gpus[0], [], FABRIC_MANAGER_RAISED
        for local in gpus:
            gpu = node.gpus[local]
            if gpu.held_by is not None and not gpu.broken:
                pid, held = gpu.held_by
                return rank, node_name, local, [], oom_text(local, pid, held)
            rank += 1
    return None


def fabric_failure(world: World, job: Job) -> tuple[int, str] | None:
    """The first rank on a node whose fabric manager is down, and what it raises at its first
    CUDA call; None when every node's GPUs joined the fabric."""
    rank = 0
    for node_name, gpus in job.placement:
        if not world.cluster.nodes[node_name].fabric_manager_up:
            return rank, FABRIC_MANAGER_RAISED
        rank += len(gpus)
    return None


def fails_startup(node: Node) -> bool:
    """Whether something here fails the next start-up on the node: /dev/shm full, the fabric
    manager down, memory a leftover process holds, a GPU that waits for a reset. An operator
    finds each of these, so a node with one is not a healthy node to keep. A pending row remap
    is not one: new work starts on that GPU, and the next reset applies the remap."""
    return (
        node.shm_full
        or not node.fabric_manager_up
        or any(gpu.held_by is not None or gpu.needs_reset for gpu in node.gpus)
    )


def reset_clears(gpu: Gpu) -> bool:
    """Whether `nvidia-smi -r` makes this GPU usable again (and so whether it does anything).
    Memory a live process holds is not among it: the reset is refused while it lives."""
    return gpu.needs_reset or gpu.remap_pending


def kill_holder(gpu: Gpu) -> bool:
    """SIGKILL to the process holding this GPU's memory: the memory is free once it dies.
    False when it cannot die (stuck in the driver) and keeps the memory."""
    if gpu.held_by is None or gpu.holder_unkillable:
        return False
    gpu.held_by = None
    return True


def reset(gpu: Gpu) -> None:
    gpu.remap_pending = False
    if gpu.needs_reset:
        gpu.needs_reset = False
        gpu.broken = False
        gpu.xid = None


def rebooted(node: Node) -> None:
    """A power cycle: tmpfs is empty, every context is gone, every GPU is reset; the fabric
    manager starts, unless it fails at every boot (a driver it does not match)."""
    node.shm_full = False
    for gpu in node.gpus:
        gpu.held_by = None  # every process is gone, even one stuck in the driver
        gpu.holder_unkillable = False
        reset(gpu)
    # A fabric manager that does not match the driver fails at this boot and every one after.
    node.fabric_manager_up = not node.fabric_manager_fails_on_boot

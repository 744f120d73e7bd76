"""Look verbs an operator uses to tell one failure from another: the training script's per-rank
timers (`perf`), a stack dump of one rank's process (`stack`, what py-spy dump shows), the GPUs
of a node as nvidia-smi shows them (`gpus`), and what the InfiniBand subnet manager (UFM) shows
for the leaf switches (`fabric`). They report what the tool would print; they do not advise."""

from __future__ import annotations

from drill.engine.actions.context import Call, Context, in_range
from drill.engine.actions.errors import Reject, unknown
from drill.engine.actions.look import table
from drill.faults.xids import fell_off_the_bus
from drill.sim.failures import pid_on, rank_place
from drill.sim.torchrun import COLLECTIVES_PER_STEP, collective_seq
from drill.values.units import format_duration

COMPUTE_SHARE = 0.8  # of a healthy step: forward and backward; the rest waits in all-reduce
MEMORY_TOTAL_MIB = 81559
TRAINING_MIB = 61440
OTHER_MIB = 30720
BASE_SM_MHZ = 1980
PYTHON = "Python v3.11.9 (/usr/bin/python3.11)"


def _unreachable(node) -> str | None:
    if not node.responsive or node.state in ("down", "rebooting"):
        return f"ssh: connect to host {node.name} port 22: Connection timed out"
    return None


# -- perf JOB -------------------------------------------------------------------------------


def perf(ctx: Context, call: Call) -> str:
    world, job = ctx.world, call["job"]
    attempt = job.current
    if not job.training or attempt is None or not attempt.training:
        return f"{job.name}: no training process is reporting (state {job.state})"
    step_now = job.step_time * world.step_factor(job)
    base = job.step_time * max(1.0, job.gpus / job.world) if job.world else job.step_time
    done = collective_seq(job.step)
    last = job.last_step_time if job.last_step_time is not None else world.now
    age = format_duration(max(0.0, world.now - last))
    stopped = attempt.stall_wake is not None or attempt.crashed
    rows = [("RANK", "NODE", "GPU", "STEP", "STEP TIME", "COMPUTE", "COMM WAIT", "LAST COLL")]
    for rank in range(job.world):
        node_name, _, _ = rank_place(world, job, rank)
        _, gpu_index = job.rank_location(rank)
        gpu = world.cluster.nodes[node_name].gpus[gpu_index]
        if rank in job.log.silent_from and attempt.crashed:
            rows.append((str(rank), node_name, str(gpu_index), str(job.step), "-", "-", "-", "-"))
            continue
        compute = base * COMPUTE_SHARE * gpu.throttled
        enqueued = done
        if stopped and rank not in attempt.hung_ranks:
            enqueued = done + COLLECTIVES_PER_STEP  # it launched the step's all-reduces
        rows.append(
            (
                str(rank),
                node_name,
                str(gpu_index),
                str(job.step),
                f"{step_now:.1f}s",
                f"{compute:.1f}s",
                f"{max(0.0, step_now - compute):.1f}s",
                f"enq {enqueued} done {done}",
            )
        )
    head = (
        f"{job.name}: attempt {attempt.number}, step {job.step}, {job.world} ranks;"
        f" last step finished {ctx.clock(last)} ({age} ago); timers over the last 10 steps"
    )
    return head + "\n" + table(rows)


# -- trace JOB ------------------------------------------------------------------------------


def trace(ctx: Context, call: Call) -> str:
    """The newest NCCL flight recorder dump: each rank's newest collective, one line a rank, in
    the fields the recorder keeps (sequence number, op type, input size, state)."""
    job = call["job"]
    if not job.flight_dumps:
        return (
            f"{job.name}: no flight recorder dump. The ranks write one when the NCCL watchdog"
            " times out a collective (TORCH_NCCL_DUMP_ON_TIMEOUT=1), and none has."
        )
    dump = job.flight_dumps[-1]
    rows = [("RANK", "NODE", "SEQ", "OP", "NUMEL IN", "STATE", "LAST COMPLETED")]
    for e in dump.entries:
        if e.seq is None:
            rows.append((str(e.rank), e.node, "-", "-", "-", "no dump from this rank", "-"))
            continue
        rows.append(
            (str(e.rank), e.node, str(e.seq), e.op, str(e.numel), e.state, str(e.completed))
        )
    head = (
        f"{job.name}: NCCL flight recorder, process group 0, written by attempt {dump.attempt}"
        f" at {ctx.clock(dump.at)} when the watchdog timed out SeqNum={dump.seq};"
        " each rank's newest entry"
    )
    return head + "\n" + table(rows)


# -- stack JOB RANK ---------------------------------------------------------------------------

_MAIN = ["    main (train.py:212)", "    <module> (train.py:230)"]
_BACKWARD = [
    "    _engine_run_backward (torch/autograd/graph.py:825)",
    "    backward (torch/_tensor.py:626)",
    "    train_step (train.py:149)",
]
_ALL_REDUCE = [
    "    all_reduce (torch/distributed/distributed_c10d.py:2501)",
    "    wrapper (torch/distributed/c10d_logger.py:83)",
    "    sync_gradients (train.py:118)",
    "    train_step (train.py:151)",
]
_DATA_READ = [
    "    read (shard_reader.py:58)",
    "    __getitem__ (dataset.py:112)",
    "    fetch (torch/utils/data/_utils/fetch.py:52)",
    "    _next_data (torch/utils/data/dataloader.py:674)",
    "    __next__ (torch/utils/data/dataloader.py:630)",
    "    train_step (train.py:141)",
]
_CUDA_CALL = [
    "    synchronize (torch/cuda/__init__.py:954)",
    "    train_step (train.py:160)",
]
_SAVE = [
    "    write (torch/serialization.py:650)",
    "    save (torch/serialization.py:884)",
    "    save_checkpoint (train.py:96)",
    "    main (train.py:218)",
    "    <module> (train.py:230)",
]
# A rank that took another code path waits in its own collective (collective_mismatch): the
# torch function each op type is issued by, and the new code's call site.
_ISSUED_BY = {"BROADCAST": "broadcast", "ALLREDUCE": "all_reduce"}


def _odd_collective(op: str) -> list[str]:
    return [
        f"    {_ISSUED_BY.get(op, 'all_reduce')} (torch/distributed/distributed_c10d.py:2417)",
        "    wrapper (torch/distributed/c10d_logger.py:83)",
        "    log_grad_norm (train.py:133)",
        "    train_step (train.py:152)",
    ]


_STARTUP = [
    "    _store_based_barrier (torch/distributed/distributed_c10d.py:4462)",
    "    init_process_group (torch/distributed/distributed_c10d.py:1520)",
    "    setup (train.py:61)",
    "    main (train.py:199)",
    "    <module> (train.py:230)",
]


def stack(ctx: Context, call: Call) -> str:
    world, job = ctx.world, call["job"]
    attempt = job.current
    if attempt is None or not job.placement:
        raise Reject(f"{job.name} has no running processes (state {job.state})")
    rank = in_range(call["rank"], "rank", 0, max(0, job.world - 1))
    node_name, _, pid = rank_place(world, job, rank)
    node = world.cluster.nodes[node_name]
    refused = _unreachable(node)
    if refused:
        return refused
    if rank in job.log.silent_from and attempt.crashed:
        return f"{node_name}: no process with pid {pid}"
    how = attempt.hung_ranks.get(rank)
    if rank in attempt.blocked_in:  # a read that never returns (nfs_hang): its own frames
        frames, state = ["    " + f for f in attempt.blocked_in[rank]], "idle"
    elif not attempt.training:
        frames, state = _STARTUP, "idle"
    elif rank in attempt.mismatched:
        frames, state = _odd_collective(attempt.mismatched[rank][0]) + _MAIN, "active"
    elif how == "hang":
        frames, state = _DATA_READ + _MAIN, "idle"
    elif how is not None:
        frames, state = _CUDA_CALL + _MAIN, "active"
    elif attempt.stall_wake is not None or attempt.crashed:
        frames, state = _ALL_REDUCE + _MAIN, "active"
    elif rank == 0 and attempt.writing is not None:
        frames, state = _SAVE, "active"
    elif _slowest(world, job, rank):
        frames, state = _BACKWARD + _MAIN, "active"
    else:
        frames, state = _ALL_REDUCE + _MAIN, "active"
    head = [f"Process {pid}: python train.py", PYTHON, "", f'Thread {pid} ({state}): "MainThread"']
    return "\n".join(head + frames)


def _slowest(world, job, rank: int) -> bool:
    """Whether this rank's GPU is the slowest of the gang (or all run alike): it computes while
    the others wait for it."""
    speeds = []
    for r in range(job.world):
        node_name, gpu_index = job.rank_location(r)
        speeds.append(world.cluster.nodes[node_name].gpus[gpu_index].throttled)
    return speeds[rank] >= max(speeds)


# -- gpus NODE --------------------------------------------------------------------------------


def gpus(ctx: Context, call: Call) -> str:
    world, node = ctx.world, call["node"]
    refused = _unreachable(node)
    if refused:
        return refused
    lines: list[str] = []
    rows = [("GPU", "BUS-ID", "TEMP", "SM CLOCK", "MEMORY USED", "UTIL", "THROTTLE")]
    processes = [("GPU", "PID", "PROCESS", "MEMORY")]
    remaps: list[str] = []
    lost = next((g for g in node.gpus if g.broken and fell_off_the_bus(g.xid)), None)
    if lost is not None:
        # nvidia-smi stops at the first GPU it cannot open: no table, no processes. The
        # others answer one at a time (`nvidia-smi -i N`), which the game leaves out.
        return f"Unable to determine the device handle for GPU {lost.bus_id.upper()}: Unknown Error"
    for gpu in node.gpus:
        owner = next((job for job, idx in node.allocations.items() if gpu.index in idx), None)
        job = world.jobs.get(owner) if owner else None
        alive = job is not None and _process_alive(world, job, node.name, gpu.index)
        if alive and job is not None and not _has_context(node, job):
            alive = False
        memory = (TRAINING_MIB if job is not None and job.training else OTHER_MIB) if alive else 0
        # Memory a leftover process holds outside any job (the faults' GPU state), with its pid.
        # A rank starting beside it shows too, and what it got on top, up to the board's total.
        held = getattr(gpu, "held_by", None)
        if held is not None:
            memory = min(MEMORY_TOTAL_MIB, memory + held[1])
        if gpu.broken:
            rows.append((str(gpu.index), gpu.smi_bus_id, "ERR!", "ERR!", "ERR!", "ERR!", "-"))
        else:
            # NCCL kernels spin while they wait for a peer: a stalled gang still reads 100%.
            busy = alive and _on_gpu(job, node.name, gpu.index)
            clock = int(BASE_SM_MHZ / gpu.throttled) if busy else 345
            temp = 87 if gpu.throttled > 1.0 else (64 if busy else 33)
            rows.append(
                (
                    str(gpu.index),
                    gpu.smi_bus_id,
                    f"{temp}C",
                    f"{clock} MHz",
                    f"{memory}MiB / {MEMORY_TOTAL_MIB}MiB",
                    f"{100 if busy else 0}%",
                    "HW Thermal Slowdown" if gpu.throttled > 1.0 else "None",
                )
            )
        pending = gpu.broken and gpu.xid in (48, 95) or getattr(gpu, "remap_pending", False)
        if gpu.broken and gpu.xid == 64:
            remaps.append(f"  GPU {gpu.index}: Remapped Rows Failure: Yes")
        elif pending:
            remaps.append(f"  GPU {gpu.index}: Remapped Rows Pending: Yes")
        if held is not None:
            processes.append((str(gpu.index), str(held[0]), "python", f"{held[1]}MiB"))
        if alive and job is not None:
            mine = memory - held[1] if held is not None else memory
            pid = pid_on(job, node.name, gpu.index)
            processes.append((str(gpu.index), str(pid), "python", f"{mine}MiB"))
    lines.append(table(rows))
    if remaps:
        lines += ["Row remapping:", *remaps]
    if not getattr(node, "fabric_manager_up", True):
        # No fabric manager on an NVSwitch node: the GPUs never finish joining the fabric.
        lines.append("Fabric: State In Progress, Status N/A (all GPUs)")
    lines.append("Processes:")
    lines.append(table(processes) if len(processes) > 1 else "  No running processes found")
    return "\n".join(lines)


def _rank_on(job, node_name: str, gpu_index: int) -> int | None:
    """The rank of the learner's gang on this GPU, or None."""
    here = (node_name, gpu_index)
    return next((r for r in range(job.world) if job.rank_location(r) == here), None)


def _on_gpu(job, node_name: str, gpu_index: int) -> bool:
    attempt = job.current
    if attempt is None:
        return False
    if not job.training:
        return True
    rank = _rank_on(job, node_name, gpu_index)
    return attempt.training and attempt.hung_ranks.get(rank) != "hang"


def _has_context(node, job) -> bool:
    """Whether the job's process on this node got a CUDA context. GPUs that never joined the
    NVLink fabric (the fabric manager down) give none: a rank starting there is not on the
    GPU, so nvidia-smi lists no process and no memory. Work that trained before keeps its own."""
    if getattr(node, "fabric_manager_up", True):
        return True
    attempt = job.current
    return not job.training or (attempt is not None and attempt.training)


def _process_alive(world, job, node_name: str, gpu_index: int) -> bool:
    attempt = job.current
    if attempt is None:
        return False
    if not job.training:
        return True
    rank = _rank_on(job, node_name, gpu_index)
    return rank is None or not (attempt.crashed and rank in job.log.silent_from)


# -- fabric [LEAF] ----------------------------------------------------------------------------


def fabric(ctx: Context, call: Call) -> str:
    world = ctx.world
    cluster = world.cluster
    leaf = call["leaf"]
    if leaf is not None and leaf not in cluster.leaves:
        raise unknown("leaf", leaf, cluster.leaves)
    chosen = [leaf] if leaf is not None else list(cluster.leaves)
    rows = [("LEAF", "ISLAND", "NODES", "LINKS", "LINK DOWNED", "LAST EVENT")]
    for name in chosen:
        island, members = cluster.leaves[name]
        log = cluster.switch_log.get(name, [])
        last = f"{ctx.clock(log[-1][0])} {log[-1][1]}" if log else "-"
        state = "flapping" if world.failures.leaf_flapping(name) else "up"
        rows.append(
            (name, island, str(len(members)), state, str(cluster.uplink_downs.get(name, 0)), last)
        )
    out = [table(rows)]
    if leaf is not None:
        log = cluster.switch_log.get(leaf, [])[-10:]
        out.append(f"{leaf} event log:" if log else f"{leaf} event log: no events")
        out += [f"  {ctx.clock(t)} {text}" for t, text in log]
    return "\n".join(out)

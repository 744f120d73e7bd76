"""Look verbs: they cost time and change nothing but what the operator knows."""

from __future__ import annotations

from collections.abc import Sequence

from drill.engine.actions.context import Call, Context, in_range
from drill.faults.version_mismatch import FLEET_DRIVER
from drill.faults.xids import xid
from drill.sim.jobs import FAILED, PENDING, RUNNING
from drill.sim.torchrun import NCCL_VERSION
from drill.values.units import format_duration


def status(ctx: Context, call: Call) -> str:
    world = ctx.world
    if call["job"] is not None:
        return _job_detail(ctx, call["job"])
    nodes = world.cluster.in_service()
    by_state: dict[str, int] = {}
    for node in nodes:
        by_state[node.state] = by_state.get(node.state, 0) + 1
    used = sum(len(n.used_gpus()) for n in nodes)
    total = sum(n.gpu_count for n in nodes)
    jobs = list(ctx.visible_jobs().values())
    lines = [
        f"{ctx.clock(world.now)}  nodes: "
        + ", ".join(f"{count} {state}" for state, count in sorted(by_state.items())),
        f"GPUs in use: {used} of {total}",
        f"jobs: {sum(j.state == RUNNING for j in jobs)} running, {sum(j.state == PENDING for j in jobs)} pending",
        f"pages: {len(world.pager.unacked())} unacknowledged of {len(world.pager.alerts)}",
    ]
    lines.append(_job_line(ctx, ctx.learner_job()))
    return "\n".join(lines)


def _job_line(ctx: Context, job) -> str:
    progress = f"step {job.step}/{job.steps}" if job.training else ""
    attempt = job.current
    stopped = job.training and job.state != "completed" and not (attempt and attempt.training)
    state = job.state
    if stopped and job.step:
        # No attempt trains now: say how far the last one got, never "running ... when it
        # stopped" in one breath. A running job here is a new attempt still starting up.
        progress = f"; the last attempt reached step {job.step}/{job.steps}"
        if job.state == RUNNING:
            state = "running, starting up"
    if stopped and job.step and job.state == FAILED:
        # Nothing runs it again until someone does: say what is on disk, not where a restart
        # nobody has asked for would start (`restart` takes latest unless told otherwise).
        latest = job.checkpoints.latest_step
        progress += f", latest checkpoint {_step_or_none(latest)}"
    elif stopped and job.step:
        resume = ctx.world.resume_point(job)
        if (resume or 0) < job.step:
            where = f"checkpoint step {resume}" if resume is not None else "scratch"
            progress += f", resumes from {where}"
    reason = f" ({job.reason})" if job.reason else ""
    return f"{job.name}: {state}{reason}{progress if progress.startswith(';') else ' ' + progress}".rstrip()


def _starting_since(ctx: Context, job) -> str:
    """A line for an attempt whose start-up has run well past its usual length (placement,
    rendezvous, checkpoint load), and nothing else: a normal start says nothing."""
    attempt = job.current
    if not job.training or attempt is None or attempt.training or attempt.start is None:
        return ""
    cluster = ctx.world.incident.cluster
    usual = cluster.startup + cluster.rendezvous + ctx.world.checkpoint_read_time(job)
    if ctx.world.now - attempt.start <= usual + 60.0:
        return ""
    return (
        f"  attempt {attempt.number} starting since {ctx.clock(attempt.start)}"
        f" ({format_duration(ctx.world.now - attempt.start)}); no rank has trained a step"
    )


def _step_or_none(step: int | None) -> str:
    return f"step {step}" if step is not None else "none"


def _job_detail(ctx: Context, job) -> str:
    world = ctx.world
    lines = [_job_line(ctx, job)]
    lines.append(
        f"  team {job.team}, priority {job.priority}, {job.world} GPUs, nodes {', '.join(job.nodes) or '-'}"
    )
    if job.training and job.last_step_time is not None:
        age = world.now - job.last_step_time
        lines.append(
            f"  last step {job.step} at {ctx.clock(job.last_step_time)} ({format_duration(age)} ago)"
        )
        latest = job.checkpoints.latest()
        lines.append(f"  latest checkpoint: {'step ' + str(latest.step) if latest else 'none'}")
    if job.code_version:
        before = f" (before it: {job.previous_code_version})" if job.previous_code_version else ""
        lines.append(f"  code version {job.code_version}{before}")
    stuck = _starting_since(ctx, job)
    if stuck:
        lines.append(stuck)
    if job.exclude:
        lines.append(f"  excluded nodes: {', '.join(sorted(job.exclude))}")
    lines.append(f"  restarts used: {job.restarts_used} of {job.max_restarts}")
    for attempt in job.attempts[-5:]:
        start = ctx.clock(attempt.start) if attempt.start is not None else "not started"
        end = ctx.clock(attempt.end) if attempt.end is not None else "now"
        why = f": {attempt.why}" if attempt.why else ""
        lines.append(
            f"  attempt {attempt.number} {start}-{end} on {', '.join(attempt.nodes) or '-'}{why}"
        )
    return "\n".join(lines)


def queue(ctx: Context, call: Call) -> str:
    rows = [("JOB", "TEAM", "PRIO", "STATE", "GPUS", "NODES", "STEP", "TRIES", "REASON")]
    for job in sorted(
        ctx.visible_jobs().values(), key=lambda j: (j.state not in (RUNNING, PENDING), j.sort_key())
    ):
        if job.state in ("completed", "cancelled") and not job.yours:
            continue
        rows.append(
            (
                job.name,
                job.team,
                job.priority,
                job.state,
                str(job.world),
                _nodes_short(job.nodes),
                f"{job.step}/{job.steps}" if job.training else "-",
                str(len(job.attempts)),
                job.reason or "",
            )
        )
    return table(rows)


def nodes(ctx: Context, call: Call) -> str:
    rows = [("NODE", "STATE", "ISLAND", "LEAF", "GPUS", "JOBS")]
    for node in ctx.world.cluster.nodes.values():
        rows.append(
            (
                node.name,
                node.state,
                node.island,
                node.leaf or "-",
                f"{len(node.used_gpus())}/{node.gpu_count}",
                ",".join(sorted(node.allocations)) or "-",
            )
        )
    return table(rows)


def logs(ctx: Context, call: Call) -> str:
    job = call["job"]
    rank = call["--rank"]
    if rank is not None:
        in_range(rank, "rank", 0, max(0, job.world - 1))
    log = job.log
    if rank is None:
        return _per_rank_summary(ctx, job)
    silent = log.silent_from.get(rank)
    marks = [
        (t, f"[rank {rank}] step {s}" + (f" loss {loss:.4f}" if loss is not None else ""))
        for t, s, loss in log.step_marks
        if silent is None or t <= silent
    ]
    own = [(line.time, line.text) for line in log.lines if line.rank in (rank, None)]
    merged = sorted(marks + own, key=lambda pair: pair[0])[-15:]
    if not merged:
        return f"{job.name} rank {rank}: no log lines yet"
    return "\n".join(f"{ctx.clock(t)} {text}" for t, text in merged)


def _per_rank_summary(ctx: Context, job) -> str:
    """What `tail -n1` over every rank's log shows: a silent rank stands out by its time."""
    log = job.log
    launcher = [line for line in log.lines if line.rank is None][-5:]
    lines = [f"{ctx.clock(line.time)} {line.text}" for line in launcher]
    if job.world and job.attempts:
        lines.append(f"last line of each rank ({job.world} ranks):")
        for rank in range(job.world):
            silent = log.silent_from.get(rank)
            marks = [
                (t, f"step {s}") for t, s, _ in log.step_marks if silent is None or t <= silent
            ]
            own = [(line.time, line.text) for line in log.lines if line.rank == rank]
            merged = sorted(marks + own, key=lambda pair: pair[0])
            if merged:
                t, text = merged[-1]
                lines.append(f"  rank {rank:>3} {ctx.clock(t)} {text[:110]}")
            else:
                lines.append(f"  rank {rank:>3} (nothing yet)")
    return "\n".join(lines)


def health(ctx: Context, call: Call) -> str:
    node = call["node"]
    if not node.responsive or node.state in ("down", "rebooting"):
        since = ctx.clock(node.last_heartbeat)
        return (
            f"{node.name}: {node.state}; no answer from the node (last heartbeat {since}).\n"
            "The health check could not run."
        )
    lines = [
        f"{node.name}: state {node.state}, island {node.island}, leaf {node.leaf or '-'}, heartbeat ok",
    ]
    for gpu in node.gpus:
        owner = next((job for job, gpus in node.allocations.items() if gpu.index in gpus), "-")
        if gpu.broken:
            condition = f"FAIL: Xid {gpu.xid} ({xid(gpu.xid or 0).name})"
        elif gpu.throttled > 1.0:
            condition = "ok, clocks throttled (HW Thermal Slowdown: Active)"
        else:
            condition = "ok"
        if not gpu.broken and getattr(gpu, "remap_pending", False):
            # NVIDIA: a pending remap does not stop new work; the next reset applies it.
            condition += ", row remap pending (new work runs; the next GPU reset applies it)"
        lines.append(f"  GPU {gpu.index} {gpu.bus_id}  {condition}  job {owner}")
    if node.image_mismatch is not None:
        # The check compares the node's software with the fleet's image, as a node validation
        # step does before a node takes work.
        driver, nccl = node.image_mismatch
        lines.append(
            f"  image: FAIL driver {driver}, NCCL {nccl}; the fleet's image has driver"
            f" {FLEET_DRIVER}, NCCL {NCCL_VERSION}"
        )
    if not getattr(node, "fabric_manager_up", True):
        # What `systemctl --failed` lists; `systemctl NODE SERVICE` shows the unit's journal.
        lines.append("  failed units: nvidia-fabricmanager.service")
    # The first line of each kernel message: a hung task's call trace is for `dmesg`.
    recent = node.kernel_log[-6:]
    if recent:
        lines.append("  kernel log:")
        lines += [f"    {ctx.clock(t)} {text.split(chr(10))[0]}" for t, text in recent]
    else:
        lines.append("  kernel log: nothing unusual")
    return "\n".join(lines)


def ckpt_list(ctx: Context, call: Call) -> str:
    job = call["job"]
    catalog = job.checkpoints
    live = catalog.live()
    if not live:
        return f"{job.name}: no checkpoints yet"
    lines = [f"{job.name} checkpoints (latest -> {catalog.latest_step}):"]
    for record in live:
        checked = {None: "not verified", True: "verified ok", False: "FAILED verify"}[
            record.verified
        ]
        lines.append(f"  step {record.step:>6}  written {ctx.clock(record.time)}  {checked}")
    return "\n".join(lines)


def _nodes_short(names: list[str]) -> str:
    if len(names) <= 2:
        return ",".join(names) or "-"
    return f"{names[0]},+{len(names) - 1}"


def table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
    )

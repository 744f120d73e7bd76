"""Checkpoint, storage and job-setting verbs."""

from __future__ import annotations

from drill.engine.actions.context import Context, expect, parse_int
from drill.engine.actions.errors import Reject, unknown
from drill.engine.actions.look import table
from drill.incident.units import UnitError, format_size, parse_size
from drill.sim.checkpointing import checkpoint_size
from drill.sim.storage_events import request_quota

SETTINGS = {
    "ckpt-every": "checkpoint every N steps",
    "ckpt-keep": "keep the newest N checkpoints",
    "ckpt-on-sigterm": "write a checkpoint in the preemption grace window (yes or no)",
    "verify-on-resume": "check the sha256 before loading on resume (yes or no)",
}
NO_VOLUMES = "this incident models no storage volumes; checkpoints go to the job's own disk"


def incident_notes(ctx: Context) -> dict[str, str]:
    """Verbs that this incident does not exercise say so in `help`."""
    notes: dict[str, str] = {}
    if not ctx.world.volumes:
        notes["df"] = NO_VOLUMES
        notes["quota"] = NO_VOLUMES
    if not ctx.world.incident.hints:
        notes["hint"] = "this incident has no hints"
    return notes


def _training_job(ctx: Context, name: str):
    job = ctx.job(name)
    if not job.training:
        raise Reject(f"{job.name} is team {job.team}'s job; its checkpoints are not yours to touch")
    return job


def ckpt_verify(ctx: Context, args: list[str]) -> str:
    expect(args, 2, "ckpt verify JOB STEP")
    job = _training_job(ctx, args[0])
    step = parse_int(args[1], "step", 0)
    record = job.checkpoints.get(step)
    if record is None:
        have = ", ".join(str(r.step) for r in job.checkpoints.live()) or "none"
        raise Reject(f"{job.name} has no checkpoint at step {step}; it has: {have}")
    ok, reason = ctx.world.verify_checkpoint(job, record)
    record.verified = ok
    if ok:
        return f"{job.name} step {step}: sha256 matches the manifest"
    return f"{job.name} step {step}: FAILED: {reason}"


def ckpt_rm(ctx: Context, args: list[str]) -> str:
    expect(args, 2, "ckpt rm JOB STEP")
    job = _training_job(ctx, args[0])
    step = parse_int(args[1], "step", 0)
    if job.checkpoints.get(step) is None:
        raise Reject(f"{job.name} has no checkpoint at step {step}")
    ctx.world.delete_checkpoint(job, step, by="you")
    return f"{job.name} checkpoint step {step} deleted"


def ckpt_prune(ctx: Context, args: list[str]) -> str:
    usage = "ckpt prune JOB --keep N"
    expect(args, 3, usage)
    if args[1] != "--keep":
        raise Reject(f"usage: {usage}")
    job = _training_job(ctx, args[0])
    keep = parse_int(args[2], "--keep", 1, 100)
    live = job.checkpoints.live()
    doomed = live[: max(0, len(live) - keep)]
    for record in doomed:
        ctx.world.delete_checkpoint(job, record.step, by="you")
    if not doomed:
        return f"{job.name} has {len(live)} checkpoints; nothing to prune"
    return f"{job.name}: deleted steps {', '.join(str(r.step) for r in doomed)}; kept {keep}"


def _volume(ctx: Context, name: str):
    volumes = ctx.world.volumes
    if not volumes:
        raise Reject(NO_VOLUMES)
    if name not in volumes:
        raise unknown("volume", name, volumes)
    return volumes[name]


def df(ctx: Context, args: list[str]) -> str:
    expect(args, 0, "df [VOLUME]", at_most=1)
    world = ctx.world
    if not world.volumes:
        raise Reject(NO_VOLUMES)
    chosen = [_volume(ctx, args[0])] if args else list(world.volumes.values())
    mine = world.jobs[world.incident.learner_job.name].team
    rows = [("VOLUME", "SIZE", "USED", "AVAIL", "USE%", f"TEAM {mine.upper()}", "AS OF")]
    for volume in chosen:
        as_of = max(0.0, world.now - volume.spec.df_lag)
        usage = volume.seen_at(as_of)
        used = sum(usage.values())
        quota_text = "-"
        if mine in volume.quotas:
            quota_text = (
                f"{format_size(usage.get(mine, 0.0))} of {format_size(volume.quotas[mine])} quota"
            )
        elif usage.get(mine):
            quota_text = f"{format_size(usage.get(mine, 0.0))} (no quota)"
        rows.append(
            (
                volume.name,
                format_size(volume.capacity),
                format_size(used),
                format_size(max(0.0, volume.capacity - used)),
                f"{used / volume.capacity:.0%}",
                quota_text,
                ctx.clock(as_of),
            )
        )
    return table(rows)


def quota(ctx: Context, args: list[str]) -> str:
    expect(args, 2, "quota VOLUME +SIZE")
    volume = _volume(ctx, args[0])
    if not args[1].startswith("+"):
        raise Reject("ask for an increase with a plus sign, like `quota scratch +2TB`")
    try:
        extra = parse_size(args[1][1:])
    except UnitError as exc:
        raise Reject(str(exc)) from None
    if extra <= 0:
        raise Reject("ask for a positive increase, like +2TB")
    team = ctx.world.jobs[ctx.world.incident.learner_job.name].team
    if team not in volume.quotas:
        raise Reject(f"team {team} has no quota on {volume.name}; only its capacity limits you")
    request_quota(ctx.world, volume, team, extra)
    minutes = int(volume.spec.quota_response // 60)
    return f"quota request sent to the storage team for +{format_size(extra)} on {volume.name}; they usually answer within {minutes}m"


def set_setting(ctx: Context, args: list[str]) -> str:
    expect(args, 3, "set JOB KEY VALUE")
    job = _training_job(ctx, args[0])
    key, value = args[1].lower(), args[2].lower()
    if key not in SETTINGS:
        raise unknown("setting", key, SETTINGS)
    _check_plan(ctx, job.name, key, value)
    policy = job.policy
    if key == "ckpt-every":
        policy.every = parse_int(value, key, 1, 100000)
    elif key == "ckpt-keep":
        policy.keep = parse_int(value, key, 1, 100)
    else:
        if value not in ("yes", "no", "true", "false", "on", "off"):
            raise Reject(f"{key} takes yes or no, got {value!r}")
        flag = value in ("yes", "true", "on")
        if key == "ckpt-on-sigterm":
            policy.on_sigterm = flag
        else:
            policy.verify_on_resume = flag
    return f"{job.name} {key} = {value}"


def _check_plan(ctx: Context, job: str, key: str, value: str) -> None:
    """With a pre-shift plan, only its settings can change, and only inside its ranges."""
    plan = ctx.world.incident.plan
    if plan is None or plan.job != job:
        return
    if key not in plan.choices:
        allowed = ", ".join(sorted(plan.choices)) or "none"
        raise Reject(f"this incident lets you choose {allowed} for {job}, not {key}")
    choice = plan.choices[key]
    if choice.allowed is not None:
        word = {"true": "yes", "on": "yes", "false": "no", "off": "no"}.get(value, value)
        if word not in choice.allowed:
            raise Reject(f"{key} can be {' or '.join(choice.allowed)} here, not {value!r}")
        return
    number = parse_int(value, key, 1, 100000)
    if not (choice.min or 1) <= number <= (choice.max or 100000):
        raise Reject(f"{key} {number} is outside the plan's range {choice.min} to {choice.max}")


def verify_cost(ctx: Context, args: list[str]) -> float:
    """Verifying reads the whole file back: its size over the volume's read bandwidth."""
    base = 30.0
    if len(args) != 2 or args[0] not in ctx.world.jobs or not ctx.world.jobs[args[0]].training:
        return base
    job = ctx.world.jobs[args[0]]
    volume_name = job.policy.volume
    if not volume_name or volume_name not in ctx.world.volumes:
        return base
    size = checkpoint_size(ctx.world, job)
    return base + ctx.world.volumes[volume_name].read_time(size)

"""Checkpoint, storage and job-setting verbs."""

from __future__ import annotations

from drill.engine.actions.context import Context, expect, parse_int
from drill.engine.actions.errors import Reject, unknown

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
    if not getattr(ctx.world, "volumes", None):
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
    record = ctx.world.checkpoints[job.name].get(step)
    if record is None:
        have = ", ".join(str(r.step) for r in ctx.world.checkpoints[job.name].live()) or "none"
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
    if ctx.world.checkpoints[job.name].get(step) is None:
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
    live = ctx.world.checkpoints[job.name].live()
    doomed = live[: max(0, len(live) - keep)]
    for record in doomed:
        ctx.world.delete_checkpoint(job, record.step, by="you")
    if not doomed:
        return f"{job.name} has {len(live)} checkpoints; nothing to prune"
    return f"{job.name}: deleted steps {', '.join(str(r.step) for r in doomed)}; kept {keep}"


def df(ctx: Context, args: list[str]) -> str:
    expect(args, 0, "df [VOLUME]", at_most=1)
    raise Reject(NO_VOLUMES)


def quota(ctx: Context, args: list[str]) -> str:
    expect(args, 2, "quota VOLUME +SIZE")
    raise Reject(NO_VOLUMES)


def set_setting(ctx: Context, args: list[str]) -> str:
    expect(args, 3, "set JOB KEY VALUE")
    job = _training_job(ctx, args[0])
    key, value = args[1].lower(), args[2].lower()
    if key not in SETTINGS:
        raise unknown("setting", key, SETTINGS)
    policy = ctx.world.policy[job.name]
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

"""Checkpoint, storage and job-setting verbs."""

from __future__ import annotations

from drill.engine.actions.context import NO_VOLUMES, Call, Context
from drill.engine.actions.errors import Reject
from drill.engine.actions.look import table
from drill.engine.actions.settings import SETTINGS, plan_refusal
from drill.sim.checkpointing import checkpoint_size
from drill.sim.shards import verify_report
from drill.sim.storage_events import request_quota
from drill.values.units import format_size


def incident_notes(ctx: Context) -> dict[str, str]:
    """Verbs that this incident does not exercise say so in `help`."""
    notes: dict[str, str] = {}
    if not ctx.world.volumes:
        notes["df"] = NO_VOLUMES
        notes["quota"] = NO_VOLUMES
        notes["lfs quota"] = NO_VOLUMES
    if not ctx.world.incident.hints:
        notes["hint"] = "this incident has no hints"
    return notes


def _no_checkpoint(ctx: Context, job, step: int) -> Reject:
    have = ", ".join(str(r.step) for r in job.checkpoints.live()) or "none"
    return Reject(f"{job.name} has no checkpoint at step {step}; it has: {have}")


def ckpt_verify(ctx: Context, call: Call) -> str:
    job, step = call["job"], call["step"]
    record = job.checkpoints.get(step)
    if record is None:
        raise _no_checkpoint(ctx, job, step)
    ok, reason = ctx.world.verify_checkpoint(job, record)
    record.verified = ok
    files = "every shard" if record.shards > 1 else "the file"
    if ok:
        return f"{job.name} step {step}: {files}: size and sha256 match the manifest"
    # What a checksum tool prints: each file whose size or sha256 differs from the manifest,
    # never a guess at why. The sim knows what reached the disk; the backend (the replica's
    # real sha256, or the sim's record) decides that it failed.
    report = verify_report(
        record.planned or record.size, record.size, record.shards, record.condition, step
    )
    if not report:
        return f"{job.name} step {step}: FAILED: {reason}"
    bad = f"{len(report)} of {record.shards}" if record.shards > 1 else "1 of 1"
    lines = [f"{job.name} step {step}: FAILED: {bad} files do not match the manifest"]
    lines += [f"  {line}" for line in report]
    return "\n".join(lines)


def ckpt_rm(ctx: Context, call: Call) -> str:
    job, step = call["job"], call["step"]
    if job.checkpoints.get(step) is None:
        raise Reject(f"{job.name} has no checkpoint at step {step}")
    ctx.world.delete_checkpoint(job, step, by="you")
    return f"{job.name} checkpoint step {step} deleted"


def ckpt_prune(ctx: Context, call: Call) -> str:
    job, keep = call["job"], call["--keep"]
    live = job.checkpoints.live()
    doomed = live[: max(0, len(live) - keep)]
    for record in doomed:
        ctx.world.delete_checkpoint(job, record.step, by="you")
    if not doomed:
        return f"{job.name} has {len(live)} checkpoints; nothing to prune"
    return f"{job.name}: deleted steps {', '.join(str(r.step) for r in doomed)}; kept {keep}"


def df(ctx: Context, call: Call) -> str:
    """`df` calls statfs: the filesystem as it is now, no lag and no quota column (quotas are
    the file system's quota tool's business: `lfs quota`)."""
    world = ctx.world
    if not world.volumes:
        raise Reject(NO_VOLUMES)
    chosen = [call["volume"]] if call["volume"] is not None else list(world.volumes.values())
    rows = [("VOLUME", "SIZE", "USED", "AVAIL", "USE%")]
    for volume in chosen:
        used = sum(volume.seen_at(world.now).values())
        rows.append(
            (
                volume.name,
                format_size(volume.capacity),
                format_size(used),
                format_size(max(0.0, volume.capacity - used)),
                f"{used / volume.capacity:.0%}",
            )
        )
    return table(rows)


def lfs_quota(ctx: Context, call: Call) -> str:
    """The team's usage against its quota, as the file system's quota tool prints it
    (`lfs quota -h -g TEAM /VOLUME`). Read now, like `df`: the quota accounting is the file
    system's own. The hard limit is the quota; the game has no soft limit and no grace."""
    world = ctx.world
    if not world.volumes:
        raise Reject(NO_VOLUMES)
    team = ctx.learner_job().team
    chosen = [call["volume"]] if call["volume"] is not None else list(world.volumes.values())
    rows = [("Filesystem", "used", "quota", "limit", "grace")]
    for volume in chosen:
        used = volume.seen_at(world.now).get(team, 0.0)
        limit = volume.quotas.get(team)
        mark = "*" if limit is not None and used >= limit else ""
        rows.append(
            (
                f"/{volume.name}",
                f"{format_size(used)}{mark}",
                "0",
                format_size(limit) if limit is not None else "0",
                "-",
            )
        )
    return f"Disk quotas for group {team}:\n" + table(rows)


def quota(ctx: Context, call: Call) -> str:
    volume, extra = call["volume"], call["size"]
    team = ctx.learner_job().team
    if team not in volume.quotas:
        raise Reject(f"team {team} has no quota on {volume.name}; only its capacity limits you")
    request_quota(ctx.world, volume, team, extra)
    minutes = int(volume.spec.quota_response // 60)
    return f"quota request sent to the storage team for +{format_size(extra)} on {volume.name}; they usually answer within {minutes}m"


def set_setting(ctx: Context, call: Call) -> str:
    job, key, value = call["job"], call["key"], call["value"]
    refusal = plan_refusal(ctx.world.incident.plan, job.name, key, value)
    if refusal:
        raise Reject(refusal)
    if not job.policy.enabled:
        raise Reject(
            f"{job.name} writes no checkpoints (its script has none); {key} changes nothing"
        )
    setting = SETTINGS[key]
    setattr(job.policy, setting.policy_field, setting.read(value))
    return f"{job.name} {key} = {value}"


def verify_cost(ctx: Context, call: Call) -> float:
    """Verifying reads the whole file back: its size over the volume's read bandwidth."""
    base = 30.0
    job = call["job"]
    volume_name = job.policy.volume
    if not volume_name or volume_name not in ctx.world.volumes:
        return base
    size = checkpoint_size(ctx.world, job)
    return base + ctx.world.volumes[volume_name].read_time(size)

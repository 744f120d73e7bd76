"""Act verbs: each checks its input, then changes the world through drill.sim.operations."""

from __future__ import annotations

from drill.engine.actions.context import Context, expect, parse_int
from drill.engine.actions.errors import Reject, unknown
from drill.incident.models import PRIORITY_RANK
from drill.incident.units import UnitError, format_duration, parse_duration
from drill.sim import operations as ops
from drill.sim.jobs import CANCELLED, COMPLETED, PENDING


def cordon(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "cordon NODE")
    node = ctx.node(args[0])
    if node.state not in ("up",):
        raise Reject(f"{node.name} is {node.state}; only an up node can be cordoned")
    return ops.cordon(ctx.world, node)


def uncordon(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "uncordon NODE")
    node = ctx.node(args[0])
    if node.state not in ("cordoned", "draining", "drained"):
        raise Reject(f"{node.name} is {node.state}; uncordon works on cordoned or drained nodes")
    return ops.uncordon(ctx.world, node)


def drain(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "drain NODE")
    node = ctx.node(args[0])
    if node.state in ("draining", "drained", "down", "rebooting"):
        raise Reject(f"{node.name} is already {node.state}")
    return ops.drain(ctx.world, node)


def reboot(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "reboot NODE")
    node = ctx.node(args[0])
    if node.state == "rebooting":
        raise Reject(f"{node.name} is already rebooting")
    if node.out_for_repair:
        raise Reject(f"{node.name} is out for repair; it is not in the cluster any more")
    return ops.reboot(ctx.world, node)


def swap(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "swap NODE")
    node = ctx.node(args[0])
    if node.name.startswith("spare-") and node.leaf is None:
        raise Reject(f"{node.name} is a spare; swap the broken node it should replace")
    if node.out_for_repair:
        raise Reject(f"{node.name} is already out for repair")
    spares = ctx.world.cluster.spares_in(node.island)
    if not spares:
        raise Reject(
            f"no spare left in island {node.island}; drain {node.name} and restart without it"
        )
    return ops.swap(ctx.world, node, spares[0])


def cancel(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "cancel JOB")
    job = ctx.job(args[0])
    if job.state in (COMPLETED, CANCELLED):
        raise Reject(f"{job.name} is already {job.state}")
    return ops.cancel(ctx.world, job)


def requeue(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "requeue JOB")
    job = ctx.job(args[0])
    if job.state in (COMPLETED, CANCELLED):
        raise Reject(f"{job.name} is {job.state}; use `restart {job.name}` to run it again")
    if job.state == PENDING:
        raise Reject(f"{job.name} is already pending ({job.reason})")
    return ops.requeue(ctx.world, job)


def restart(ctx: Context, args: list[str]) -> str:
    usage = "restart JOB [--from STEP|latest|scratch] [--exclude NODE,...] [--world N]"
    if not args:
        raise Reject(f"usage: {usage}")
    job = ctx.job(args[0])
    if not job.training:
        raise Reject(
            f"{job.name} is team {job.team}'s job; you can only restart your own training job"
        )
    if job.state == COMPLETED:
        raise Reject(f"{job.name} already completed")
    options = _options(args[1:], {"--from", "--exclude", "--world"}, usage)
    resume: int | str | None = "latest"
    if "--from" in options:
        value = options["--from"]
        if value == "scratch":
            resume = None
        elif value == "latest":
            resume = "latest"
        else:
            step = parse_int(value, "--from step", 0, job.steps)
            if job.checkpoints.get(step) is None:
                have = [str(r.step) for r in job.checkpoints.live()]
                raise Reject(
                    f"{job.name} has no checkpoint at step {step}; it has: {', '.join(have) or 'none'}"
                )
            resume = step
    if resume == "latest" and job.checkpoints.latest() is None:
        resume = None
    exclude: set[str] = set()
    if "--exclude" in options:
        for name in filter(None, options["--exclude"].split(",")):
            exclude.add(ctx.node(name, spares=True).name)
    gpus = None
    if "--world" in options:
        gpus = parse_int(options["--world"], "--world", 1, ctx.world.cluster.total_gpus())
        gpn = ctx.world.cluster.gpus_per_node
        if gpus > gpn and gpus % gpn:
            raise Reject(
                f"--world {gpus} does not fill whole nodes; use a multiple of {gpn} or at most {gpn}"
            )
        if job.gpus % gpus and gpus % job.gpus:
            raise Reject(
                f"--world {gpus} cannot keep the global batch of {job.gpus} ranks; use a divisor or multiple of {job.gpus}"
            )
    return ops.restart(ctx.world, job, resume_from=resume, exclude=exclude, gpus=gpus)


def hold(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "hold JOB")
    job = ctx.job(args[0])
    if job.state != PENDING:
        raise Reject(f"{job.name} is {job.state}; only a pending job can be held")
    return ops.hold(ctx.world, job)


def release(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "release JOB")
    job = ctx.job(args[0])
    if not job.held:
        raise Reject(f"{job.name} is not held")
    return ops.release(ctx.world, job)


def priority(ctx: Context, args: list[str]) -> str:
    expect(args, 2, "priority JOB CLASS")
    job = ctx.job(args[0])
    if args[1] not in PRIORITY_RANK:
        raise unknown("priority class", args[1], PRIORITY_RANK)
    return ops.set_priority(ctx.world, job, args[1])


def ack(ctx: Context, args: list[str]) -> str:
    expect(args, 1, "ack ALERT|all")
    if args[0].lower() == "all":
        open_pages = ctx.world.pager.unacked()
        if not open_pages:
            raise Reject("no open pages to acknowledge")
        for page in open_pages:
            page.acked_at = ctx.world.now
        return f"acknowledged {', '.join(p.id for p in open_pages)}"
    alert = ctx.world.pager.get(args[0])
    if alert is None:
        raise unknown("page", args[0], [a.id for a in ctx.world.pager.alerts])
    if alert.acked_at is not None:
        raise Reject(f"{alert.id} was already acknowledged at {ctx.clock(alert.acked_at)}")
    alert.acked_at = ctx.world.now
    return f"{alert.id} acknowledged: {alert.text}"


def note(ctx: Context, args: list[str], rest: str) -> str:
    if not rest.strip():
        raise Reject("usage: note TEXT (say what you saw or what you will do)")
    ctx.notes.append((ctx.world.now, rest.strip()))
    return f"noted at {ctx.clock(ctx.world.now)}"


def hint(ctx: Context, args: list[str]) -> str:
    expect(args, 0, "hint")
    hints = ctx.world.incident.hints
    unlocked = [
        i for i, h in enumerate(hints) if h.after <= ctx.world.now and i not in ctx.hints_shown
    ]
    if not hints:
        raise Reject("this incident has no hints")
    if not unlocked:
        locked = [h.after for i, h in enumerate(hints) if i not in ctx.hints_shown]
        if not locked:
            raise Reject("you have seen every hint")
        wait = min(locked) - ctx.world.now
        raise Reject(f"the next hint unlocks in {format_duration(wait)}")
    index = unlocked[0]
    ctx.hints_shown.append(index)
    ctx.world.emit("hint", "hint", hints[index].text, index=index)
    return f"hint {len(ctx.hints_shown)} of {len(hints)}: {hints[index].text}"


def wait_cost(args: list[str]) -> float:
    expect(args, 1, "wait DURATION")
    try:
        seconds = parse_duration(args[0])
    except UnitError as exc:
        raise Reject(str(exc)) from None
    if not 0 < seconds <= 12 * 3600:
        raise Reject("wait between 1s and 12h, like `wait 5m`")
    return seconds


def wait(ctx: Context, args: list[str]) -> str:
    return f"waited {format_duration(wait_cost(args))}"


def _options(args: list[str], allowed: set[str], usage: str) -> dict[str, str]:
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        key = args[i]
        if key not in allowed:
            raise (
                unknown("option", key, allowed)
                if key.startswith("--")
                else Reject(f"usage: {usage}")
            )
        if i + 1 >= len(args):
            raise Reject(f"{key} needs a value; usage: {usage}")
        options[key] = args[i + 1]
        i += 2
    return options

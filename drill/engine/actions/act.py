"""Act verbs: each checks the world's state, then changes it through drill.sim.operations.

Arguments arrive parsed and looked up (see catalog.py): a handler never counts words or checks a
whole number, and a job it gets is one the learner may act on."""

from __future__ import annotations

import re

from drill.engine.actions.context import Call, Context, in_range
from drill.engine.actions.errors import Reject, unknown
from drill.engine.shown_text import fill_shown
from drill.sim import operations as ops
from drill.sim.events import HintShown
from drill.sim.failures import pid_on
from drill.sim.jobs import CANCELLED, COMPLETED, PENDING
from drill.values.units import format_duration


def cordon(ctx: Context, call: Call) -> str:
    node = call["node"]
    if node.state not in ("up",):
        raise Reject(f"{node.name} is {node.state}; only an up node can be cordoned")
    return ops.cordon(ctx.world, node)


def uncordon(ctx: Context, call: Call) -> str:
    """Puts the node back in service, and lifts it from the learner's job's exclude list: the
    operator is saying the node is fine again."""
    node = call["node"]
    mine = ctx.learner_job()
    excluded = node.name in mine.exclude
    if node.state not in ("cordoned", "draining", "drained"):
        if not excluded:
            raise Reject(
                f"{node.name} is {node.state}; uncordon works on cordoned or drained nodes"
            )
        mine.exclude.discard(node.name)
        return f"{node.name} is {node.state}; removed it from {mine.name}'s exclude list"
    text = ops.uncordon(ctx.world, node)
    ctx.world.exposure.returned(node)  # broken, it is risk from now whatever was seen
    if excluded:
        mine.exclude.discard(node.name)
        text += f"; removed it from {mine.name}'s exclude list"
    return text


def drain(ctx: Context, call: Call) -> str:
    node = call["node"]
    if node.state in ("draining", "drained", "down", "rebooting"):
        raise Reject(f"{node.name} is already {node.state}")
    return ops.drain(ctx.world, node)


def _leaf_nodes(ctx: Context, leaf: str) -> list:
    leaves = ctx.world.cluster.leaves
    if leaf not in leaves:
        raise unknown("leaf", leaf, sorted(leaves))
    return [ctx.world.cluster.nodes[name] for name in leaves[leaf][1]]


def leaf_cordon(ctx: Context, call: Call) -> str:
    """Cordon each node behind the leaf that is up; say what the others are."""
    nodes = _leaf_nodes(ctx, call["leaf"])
    done = [n for n in nodes if n.state == "up"]
    if not done:
        raise Reject(f"no node behind {call['leaf']} is up; {_states(nodes)}")
    for node in done:
        ops.cordon(ctx.world, node)
    return _leaf_summary(call["leaf"], "cordoned", done, nodes, "running work continues")


def leaf_drain(ctx: Context, call: Call) -> str:
    nodes = _leaf_nodes(ctx, call["leaf"])
    done = [n for n in nodes if n.state in ("up", "cordoned")]
    if not done:
        raise Reject(f"no node behind {call['leaf']} can be drained; {_states(nodes)}")
    for node in done:
        ops.drain(ctx.world, node)
    busy = sorted({job for n in done for job in n.allocations})
    after = f"waiting for {', '.join(busy)} to finish" if busy else "they are empty"
    return _leaf_summary(call["leaf"], "draining", done, nodes, after)


def _states(nodes: list) -> str:
    return ", ".join(f"{n.name} is {n.state}" for n in nodes)


def _leaf_summary(leaf: str, verb: str, done: list, nodes: list, after: str) -> str:
    left = [n for n in nodes if n not in done]
    text = f"{leaf}: {verb} {', '.join(n.name for n in done)}; {after}"
    return text + (f"; left as they are: {_states(left)}" if left else "")


def reboot(ctx: Context, call: Call) -> str:
    node = call["node"]
    if node.state == "rebooting":
        raise Reject(f"{node.name} is already rebooting")
    if node.out_for_repair:
        raise Reject(f"{node.name} is out for repair; it is not in the cluster any more")
    return ops.reboot(ctx.world, node)


def reset(ctx: Context, call: Call) -> str:
    """`nvidia-smi -r` on one GPU of the node, or on all of them: refused while a live process
    uses one, as the driver refuses it."""
    node = call["node"]
    if not node.responsive or node.state in ("down", "rebooting"):
        raise Reject(f"{node.name} is {node.state}; a GPU reset needs the node up")
    index = call["--gpu"]
    if index is not None:
        in_range(index, "--gpu", 0, node.gpu_count - 1)
    indexes = [index] if index is not None else list(range(node.gpu_count))
    busy = sorted({i for i in indexes if i in node.used_gpus()})
    if busy:
        jobs = ", ".join(sorted(j for j, gpus in node.allocations.items() if set(gpus) & set(busy)))
        raise Reject(
            f"Unable to reset GPU {node.gpus[busy[0]].smi_bus_id} because it's being used by some"
            f" other process ({jobs}); stop the work on it first"
        )
    # A process outside any job that still has the device open: the driver refuses the same.
    held = [i for i in indexes if node.gpus[i].held_by is not None]
    if held:
        raise Reject(
            f"Unable to reset GPU {node.gpus[held[0]].smi_bus_id} because it's being used by some"
            f" other process; kill the processes using this GPU first (`gpus {node.name}` lists"
            " them), then try the reset again"
        )
    broken = [i for i in indexes if node.gpus[i].broken and not node.gpus[i].needs_reset]
    text = ops.reset_gpus(ctx.world, node, indexes)
    if broken:
        text += f"\n{node.name}: GPU {', '.join(str(i) for i in broken)} still reports an error"
    return text


def kill(ctx: Context, call: Call) -> str:
    """`kill -9 PID` on the node: ends a process that holds a GPU outside any job. A rank of a
    running job is refused (stopping a job is `restart` or `cancel`, not one of its processes),
    and so is a pid the node does not have."""
    node, pid = call["node"], call["pid"]
    if not node.responsive or node.state in ("down", "rebooting"):
        raise Reject(
            f"{node.name} is {node.state}; no answer from it, so nothing there can be killed"
        )
    done = ops.kill_process(ctx.world, node, pid)
    if done is not None:
        return done
    for job_name, gpus in sorted(node.allocations.items()):
        job = ctx.world.jobs[job_name]
        if any(pid_on(job, node.name, gpu) == pid for gpu in gpus):
            stop = (
                "`restart` or `cancel` stops it whole" if job.yours else f"team {job.team} owns it"
            )
            raise Reject(
                f"{pid} on {node.name} is a live process of {job.name}; killing one rank only"
                f" crashes the job, and {stop}"
            )
    raise Reject(
        f"{node.name}: kill: ({pid}) - No such process; `gpus {node.name}` lists the pids on its"
        " GPUs"
    )


def swap(ctx: Context, call: Call) -> str:
    node = call["node"]
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


def cancel(ctx: Context, call: Call) -> str:
    job = call["job"]
    if job.state in (COMPLETED, CANCELLED):
        raise Reject(f"{job.name} is already {job.state}")
    return ops.cancel(ctx.world, job)


def requeue(ctx: Context, call: Call) -> str:
    job = call["job"]
    if job.state in (COMPLETED, CANCELLED):
        raise Reject(f"{job.name} is {job.state}; use `restart {job.name}` to run it again")
    if job.state == PENDING:
        raise Reject(f"{job.name} is already pending ({job.reason})")
    return ops.requeue(ctx.world, job)


def _resume_from(job, call: Call) -> int | str | None:
    """The checkpoint `--from` names: a step that exists, `latest` (scratch when there is
    none) or None for scratch."""
    resume: int | str | None = "latest"
    point = call.get("--from", "latest")
    if point == "scratch":
        resume = None
    elif point != "latest":
        step = in_range(point, "--from step", 0, job.steps)
        if job.checkpoints.get(step) is None:
            have = [str(r.step) for r in job.checkpoints.live()]
            raise Reject(
                f"{job.name} has no checkpoint at step {step}; it has: {', '.join(have) or 'none'}"
            )
        resume = step
    if resume == "latest" and job.checkpoints.latest() is None:
        resume = None
    return resume


def restart(ctx: Context, call: Call) -> str:
    job = call["job"]
    if job.state == COMPLETED:
        raise Reject(f"{job.name} already completed")
    resume = _resume_from(job, call)
    exclude = {node.name for node in call.get("--exclude", ())}
    include = {node.name for node in call.get("--include", ())}
    if exclude & include:
        raise Reject(f"both --exclude and --include name {', '.join(sorted(exclude & include))}")
    not_excluded = sorted(include - job.exclude)
    if not_excluded:
        listed = ", ".join(sorted(job.exclude)) or "none"
        raise Reject(
            f"{', '.join(not_excluded)} is not on {job.name}'s exclude list; it has: {listed}"
        )
    gpus = None
    if call.get("--world") is not None:
        gpus = in_range(call["--world"], "--world", 1, ctx.world.cluster.total_gpus())
        gpn = ctx.world.cluster.gpus_per_node
        if gpus > gpn and gpus % gpn:
            raise Reject(
                f"--world {gpus} does not fill whole nodes; use a multiple of {gpn} or at most {gpn}"
            )
        if job.gpus % gpus and gpus % job.gpus:
            raise Reject(
                f"--world {gpus} cannot keep the global batch of {job.gpus} ranks; use a divisor or multiple of {job.gpus}"
            )
    skip = call.get("--skip")
    if skip is not None:
        in_range(skip[0], "--skip start", 1, job.steps)
        in_range(skip[1], "--skip end", 1, job.steps)
    job.exclude -= include
    text = ops.restart(ctx.world, job, resume_from=resume, exclude=exclude, gpus=gpus, skip=skip)
    if include:
        text += f"; {', '.join(sorted(include))} no longer excluded"
    return text


def rollback(ctx: Context, call: Call) -> str:
    """Restart the job on the code version it ran before the last deploy."""
    job = call["job"]
    if job.state == COMPLETED:
        raise Reject(f"{job.name} already completed")
    if not job.previous_code_version:
        now = f"it runs {job.code_version}, " if job.code_version else ""
        raise Reject(
            f"{job.name} has no earlier code version to go back to: {now}the only one deployed."
            f" `restart {job.name}` runs it again"
        )
    resume = _resume_from(job, call)
    new, old = job.code_version, job.previous_code_version
    job.code_version, job.previous_code_version = old, new
    text = ops.restart(ctx.world, job, resume_from=resume, exclude=set(), gpus=None)
    return f"{job.name} rolled back from {new or 'the new code'} to {old}; {text}"


def hold(ctx: Context, call: Call) -> str:
    job = call["job"]
    if job.state != PENDING:
        raise Reject(f"{job.name} is {job.state}; only a pending job can be held")
    return ops.hold(ctx.world, job)


def release(ctx: Context, call: Call) -> str:
    job = call["job"]
    if not job.held:
        raise Reject(f"{job.name} is not held")
    return ops.release(ctx.world, job)


def priority(ctx: Context, call: Call) -> str:
    return ops.set_priority(ctx.world, call["job"], call["class"])


def ack(ctx: Context, call: Call) -> str:
    page = call["page"]
    if page.lower() == "all":
        open_pages = ctx.world.pager.unacked()
        if not open_pages:
            raise Reject("no open pages to acknowledge")
        for each in open_pages:
            each.acked_at = ctx.world.now
        return f"acknowledged {', '.join(p.id for p in open_pages)}"
    alert = ctx.world.pager.get(page)
    if alert is None:
        raise unknown("page", page, [a.id for a in ctx.world.pager.alerts])
    if alert.acked_at is not None:
        raise Reject(f"{alert.id} was already acknowledged at {ctx.clock(alert.acked_at)}")
    alert.acked_at = ctx.world.now
    return f"{alert.id} acknowledged: {alert.text}"


def note(ctx: Context, call: Call) -> str:
    ctx.notes.append((ctx.world.now, call["text"]))
    return f"noted at {ctx.clock(ctx.world.now)}"


# A page this close before a hint's time brings the hint forward to the page: the learner needs
# it there, and the TUI holds the clock at a page, so a hint due a minute later never comes.
HINT_LEAD = 120.0


def _hint_time(ctx: Context, after: float) -> float:
    pages = [a.time for a in ctx.world.pager.alerts if after - HINT_LEAD <= a.time <= after]
    return min([after, *pages])


def _hint_done(ctx: Context, text: str) -> bool:
    """Whether the learner already ran every command the hint names in backticks: the same
    verb, on the same nodes and jobs where the command names any. A hint that names no
    command is never done."""
    if ctx.parse is None:
        return False
    names = {*ctx.world.jobs, *ctx.world.cluster.nodes}
    commands = []
    for quoted in re.findall(r"`([^`]+)`", text):
        try:
            commands.append(ctx.parse(quoted))
        except Reject:
            continue  # a word in backticks, not a command
    if not commands:
        return False
    for command in commands:
        wanted = {w.lower() for w in command.args} & names
        if not any(verb == command.verb and wanted <= set(words) for verb, words in ctx.done):
            return False
    return True


def hint(ctx: Context, call: Call) -> str:
    """The first hint whose time has come and whose commands the learner has not already
    run. A skipped hint costs nothing."""
    hints = ctx.world.incident.hints
    if not hints:
        raise Reject("this incident has no hints")
    now = ctx.world.now
    remaining = [i for i in range(len(hints)) if i not in ctx.hints_shown]
    if not remaining:
        raise Reject("you have seen every hint")
    due = {i: _hint_time(ctx, hints[i].after) for i in remaining}
    texts = {i: fill_shown(ctx.world, hints[i].text) for i in remaining if due[i] <= now}
    useful = [i for i in texts if not _hint_done(ctx, texts[i])]
    if not useful:
        later = [t for t in due.values() if t > now]
        if later:
            raise Reject(f"the next hint unlocks in {format_duration(min(later) - now)}")
        raise Reject("you have already done what the remaining hints suggest")
    index = useful[0]
    ctx.hints_shown.append(index)
    text = texts[index]  # `{fault.ID.node}` as this night chose
    ctx.world.emit(HintShown(now, "hint", text, index=index))
    return f"hint {index + 1} of {len(hints)}: {text}"


def wait(ctx: Context, call: Call) -> str:
    """A set time, or until the next signal (drill/engine/signals.py): that one is written by
    the engine once the night has run, when it is known what stopped it."""
    if call.get("--until") is None:
        return f"waited {format_duration(call['duration'])}"
    # On call, a page nobody has answered is the first thing to deal with: fast-forwarding past
    # it is refused, so it never hides one. A plain `wait` is not refused (a person may choose
    # to let a page ride); the score judges that by the page's acknowledgement time.
    waiting = ctx.world.pager.unacked()
    if waiting:
        ids = ", ".join(a.id for a in waiting)
        which = f"`ack {waiting[0].id}`" if len(waiting) == 1 else "`ack all`"
        raise Reject(
            f"{ids} {'is' if len(waiting) == 1 else 'are'} open; fast-forward never runs past an"
            f" open page: {which} first"
        )
    return ""


def wait_cost(ctx: Context, call: Call) -> float:
    """A set time; until a signal, the most it may take: the duration given, or the rest of
    the night. The engine stops it at the signal and charges only the time that ran."""
    rest = ctx.world.incident.night.length - ctx.world.now
    if call.get("--until") is None:
        return call["duration"]
    return min(call.get("duration", rest), rest)

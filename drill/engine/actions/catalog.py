"""Every verb: its usage, what it does, whose semantics it follows, and what it costs in sim time.

The cost is the operator's time: typing it, running it, reading the answer. The world moves on
meanwhile. `help` and `help VERB` print from this table, so the docs cannot drift from the code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Verb:
    name: str
    usage: str
    summary: str
    cost: float  # sim seconds; `wait` costs its argument instead
    kind: str  # "look" or "act"
    detail: str = ""


VERBS: dict[str, Verb] = {
    v.name: v
    for v in [
        Verb("status", "status [JOB]", "the cluster at a glance, or one job in detail", 15, "look"),
        Verb(
            "queue",
            "queue",
            "every job: state, pending reason, GPUs, nodes, step, attempts",
            15,
            "look",
        ),
        Verb("nodes", "nodes", "every node: state, island, leaf, GPUs in use, jobs", 15, "look"),
        Verb(
            "logs",
            "logs JOB [--rank N]",
            "the last lines of a job's log; without --rank, each rank's last line",
            30,
            "look",
        ),
        Verb(
            "health",
            "health NODE",
            "run the node health check: heartbeat, each GPU, recent kernel log",
            60,
            "look",
            "The kernel log shows Xid codes. Xid 13, 31 and 43 usually point at the application;"
            " 48, 79, 94 and 95 at the hardware: drain the node and swap it.",
        ),
        Verb("df", "df [VOLUME]", "storage volumes: used, capacity, quota", 10, "look"),
        Verb(
            "ckpt list",
            "ckpt list JOB",
            "the job's checkpoints and where `latest` points",
            15,
            "look",
        ),
        Verb(
            "ckpt verify",
            "ckpt verify JOB STEP",
            "read a checkpoint back and check its sha256 against the manifest",
            60,
            "look",
        ),
        Verb(
            "cordon",
            "cordon NODE",
            "no new work lands on the node; running work keeps running (Kubernetes cordon)",
            15,
            "act",
        ),
        Verb("uncordon", "uncordon NODE", "the node takes new work again", 15, "act"),
        Verb(
            "drain",
            "drain NODE",
            "Slurm drain: no new work; running work is allowed to finish, then the node is drained",
            15,
            "act",
            "Drain does not stop a hung job. To stop work now, `cancel` or `requeue` it.",
        ),
        Verb(
            "reboot",
            "reboot NODE",
            "power cycle the node; work still on it is killed (drain first to let it finish)",
            30,
            "act",
            "A reboot clears faults that a GPU reset clears; hardware that fell off the bus may"
            " stay broken. A node that was cordoned or drained comes back drained.",
        ),
        Verb(
            "swap",
            "swap NODE",
            "take the node out for repair and bring a spare from its island into its place",
            60,
            "act",
            "Work on the node is killed. The spare joins the same leaf after the swap time.",
        ),
        Verb(
            "cancel",
            "cancel JOB",
            "cancel the job (Slurm scancel); it does not come back",
            15,
            "act",
        ),
        Verb(
            "requeue",
            "requeue JOB",
            "stop the job and put it back in the queue; it resumes from `latest` (Slurm requeue)",
            15,
            "act",
        ),
        Verb(
            "restart",
            "restart JOB [--from STEP|latest|scratch] [--exclude NODE,...] [--world N]",
            "stop the job and submit it again with a fresh retry budget",
            30,
            "act",
            "--from picks the checkpoint (default latest). --exclude keeps it off nodes."
            " --world N runs on N GPUs; the global batch is kept by gradient accumulation.",
        ),
        Verb("hold", "hold JOB", "keep a pending job from being scheduled", 10, "act"),
        Verb("release", "release JOB", "let a held job schedule again", 10, "act"),
        Verb(
            "priority",
            "priority JOB CLASS",
            "change a job's priority class: low, normal, high or urgent",
            10,
            "act",
        ),
        Verb("ckpt rm", "ckpt rm JOB STEP", "delete one checkpoint", 15, "act"),
        Verb(
            "ckpt prune",
            "ckpt prune JOB --keep N",
            "delete all but the newest N checkpoints",
            15,
            "act",
        ),
        Verb("quota", "quota VOLUME +SIZE", "ask the storage team for more quota", 60, "act"),
        Verb(
            "set",
            "set JOB KEY VALUE",
            "change a job setting: ckpt-every, ckpt-keep, ckpt-on-sigterm, verify-on-resume",
            10,
            "act",
            "Settings apply from the next attempt (a checkpoint cadence change applies at once).",
        ),
        Verb("ack", "ack ALERT|all", "acknowledge a page, like P3, or every open page", 5, "act"),
        Verb("note", "note TEXT", "write a note in the incident log", 30, "act"),
        Verb(
            "hint",
            "hint",
            "reveal the next hint that has unlocked (costs discipline points)",
            10,
            "act",
        ),
        Verb("wait", "wait DURATION", "let the night run, like `wait 5m`", 0, "act"),
        Verb("help", "help [VERB]", "this list, or one verb in detail", 0, "look"),
    ]
}

TWO_WORD = ("ckpt",)


def help_text(verb: str | None = None, notes: dict[str, str] | None = None) -> str:
    notes = notes or {}
    if verb:
        v = VERBS[verb]
        lines = [f"{v.usage}", f"  {v.summary}."]
        if v.detail:
            lines.append(f"  {v.detail}")
        if verb in notes:
            lines.append(f"  In this incident: {notes[verb]}")
        cost = "its duration" if v.name == "wait" else f"{int(v.cost)}s"
        lines.append(f"  Takes {cost} of your time while the night goes on.")
        return "\n".join(lines)
    width = 24  # a long usage (restart's options) gets a line of its own

    def row(v: Verb) -> str:
        if len(v.usage) <= width:
            return f"  {v.usage:<{width}}  {v.summary}"
        return f"  {v.usage}\n  {'':<{width}}  {v.summary}"

    looks = [row(v) for v in VERBS.values() if v.kind == "look"]
    acts = [row(v) for v in VERBS.values() if v.kind == "act"]
    out = ["Look:", *looks, "Act:", *acts]
    for name, note in sorted(notes.items()):
        out.append(f"Note on {name}: {note}")
    return "\n".join(out)

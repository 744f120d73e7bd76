"""Every verb, declared once: its words, typed arguments and options, whether it looks or acts,
what it works on and on whose jobs, what it costs in sim time, its runbook section, its handler.

The parser (argument count and types, options, "did you mean"), `help`, the TUI's completion and
command palette, `drill validate`'s check of reference and runbook lines, the runbook's sections
and the score's reading of what an action touched (effects.py) are all derived from this table,
so none of them names a verb.

The cost is the operator's time: typing it, running it, reading the answer. The world moves on
meanwhile.

Adding a verb
-------------
1. Write its handler, `def my_verb(ctx: Context, call: Call) -> str`, in act.py (a change),
   look.py (a look) or storage.py (checkpoints and storage). It gets its arguments parsed and
   looked up: `call["node"]` is a Node in service, `call["job"]` a Job the learner may touch,
   `call["--world"]` an int or None. It checks the world's state, raises `Reject` with one line
   saying what is wrong and what would work, or changes the world and returns one line saying
   what happened.
2. Declare it below with `Verb(...)`: its name (two words, like `ckpt rm`, make a group that the
   parser, help and completion treat as one), `summary`, `kind`, `on`, `section`, `handler`,
   `cost`, its `args` and `options` with types from argtypes.py (add a type there only when no
   existing one reads the word; completion offers values for a new type only once
   drill/tui/completion.py knows where they come from), and for a job verb `others_jobs=True`
   only if the learner may run it on another team's job. An act declares `informed_by`: the
   looks that inform it (`()` for one that changes only the operator's own record, like `note`);
   discipline (drill/engine/scoring/discipline.py) judges each change by them. A look may declare
   `shows`: the fault kinds its output reveals once they strike what it names. Add its usage
   to the list of verbs in incidents/README.md, and for a job verb its row, with why, to the
   table there.
3. Test it: its rejections and its effect on the world in tests/engine/test_actions.py, and its
   rows in the literal tables of tests/engine/test_verbs.py (what it costs, what it touches,
   its runbook section, and for a job verb whether another team's job is refused). Those
   tables are written out, not read from here, and a test fails until every verb has its rows.
Nothing else changes: usage, help, completion, the palette, static checks, the runbook section
and the score's looks and changes follow from the declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from drill.engine.actions import act, dcgm, diagnose, ib, look, node_logs, storage
from drill.engine.actions.argtypes import (
    BATCHES,
    CLASS,
    DURATION,
    JOB,
    KEEP,
    KEY,
    LEAF,
    NODE,
    NODES,
    NUMBER,
    PAGE,
    PID,
    RESUME,
    SERVICE,
    SIGNAL,
    SIGNALS,
    SIZE,
    STEP,
    TEXT,
    VALUE,
    VOLUME,
    ArgType,
)
from drill.engine.actions.context import Call, Context
from drill.engine.actions.errors import unknown
from drill.engine.actions.settings import SETTINGS
from drill.engine.runbook_sections import Section
from drill.values.units import plural

Handler = Callable[[Context, Call], str]


class Kind(StrEnum):
    LOOK = "look"  # changes nothing but what the operator knows
    ACT = "act"  # changes the world, or the operator's own record (acks, notes, hints, time)


class On(StrEnum):
    """What a verb works on: the first argument of that type names it. A JOB or VOLUME argument
    that is optional and left out means the whole cluster (`status`, `df`)."""

    NODE = "node"
    JOB = "job"
    VOLUME = "volume"
    CLUSTER = "cluster"
    NOTHING = "nothing"  # the operator's own record: pages, notes, hints, time, help


@dataclass(frozen=True)
class Arg:
    """A positional argument. `name` is its key in `Call` and the label in its messages."""

    name: str
    type: ArgType
    optional: bool = False
    what: str = ""  # the label in messages when not the name: "wait between 1s and 12h"
    missing: str = ""  # said after the usage when it is left out
    # An option that, given, lets this argument be left out: the duration of a wait that runs
    # until a signal is its limit, and the night's end is limit enough.
    unless: str = ""

    @property
    def label(self) -> str:
        return self.what or self.name

    @property
    def usage(self) -> str:
        return f"[{self.type.shown}]" if self.optional or self.unless else self.type.shown


@dataclass(frozen=True)
class Option:
    """`--flag VALUE`, after the positional arguments. Its key in `Call` is the flag."""

    flag: str
    type: ArgType
    required: bool = False
    what: str = ""

    @property
    def name(self) -> str:
        return self.flag

    @property
    def label(self) -> str:
        return self.what or self.flag

    @property
    def usage(self) -> str:
        text = f"{self.flag} {self.type.shown}"
        return text if self.required else f"[{text}]"


@dataclass(frozen=True)
class Cost:
    """Sim seconds the action keeps the operator busy: a number, or a function of the world and
    the arguments (`wait` costs its duration; `ckpt verify` reads the file back)."""

    seconds: float | Callable[[Context, Call], float]
    label: str = ""  # short, for the line under the prompt: "15s", "the time it runs"
    sentence: str = ""  # the last line of `help VERB`

    def __post_init__(self) -> None:
        if not callable(self.seconds):
            if not self.label:
                object.__setattr__(self, "label", f"{int(self.seconds)}s")
            if not self.sentence:
                object.__setattr__(
                    self, "sentence", f"Takes {self.label} of your time while the night goes on."
                )
        elif not (self.label and self.sentence):
            raise ValueError("a cost that is a function needs a label and a sentence for help")

    def of(self, ctx: Context, call: Call) -> float:
        return float(self.seconds(ctx, call) if callable(self.seconds) else self.seconds)


class When(StrEnum):
    """Which lines of a verb a need applies to."""

    ALWAYS = "always"
    FROM_STEP = "from a step"  # `--from N` or `--from scratch`: a choice among the checkpoints
    FROM_LATEST = "from latest"  # `--from latest`, or no `--from`
    SKIP = "skip"  # with `--skip A-B`
    HUNG = "hung"  # it stops an attempt with a rank alive but stuck (a hang, not a dead GPU)


class Of(StrEnum):
    """Which looks of a verb count for what an act names."""

    THAT = "that"  # a look naming the same job, node, volume or leaf
    OR_ALL = "or all"  # that one, or the look left the name out and showed them all (`df`)
    LEAF = "leaf"  # for a node: `fabric` of the node's leaf, or of every leaf
    ANY = "any"  # the look, whatever it names (`queue`, `df` before deleting a checkpoint)


@dataclass(frozen=True)
class By:
    """One look that informs: its verb and which of its lines count."""

    verb: str
    of: Of = Of.THAT

    @property
    def shown(self) -> str:
        return f"`{self.verb}`"


@dataclass(frozen=True)
class Need:
    """Looks an act needs before it, any one of `by`, about what the act names: its target, or
    each name an argument or option gives (`about="--exclude"`: each excluded node; a line that
    leaves the option out needs nothing for it). `when` says which lines of the verb need it."""

    by: tuple[By, ...]
    about: str = ""
    when: When = When.ALWAYS


# Faults nvidia-smi shows once they strike a node: a GPU's state, its processes and memory,
# the fabric manager, the node not answering.
GPU_FAULTS = (
    "gpu_xid",
    "gpu_needs_reset",
    "node_down",
    "fabric_manager_down",
    "straggler",
    "zombie_memory",
)
# And the health check, which also prints the kernel log: an OOM kill too.
NODE_FAULTS = (*GPU_FAULTS, "kill_rank")
# Faults the ranks' timers and stacks show: a rank alive but stuck.
HANG_FAULTS = ("hang_rank", "nfs_hang")
# A stack dump also shows a rank waiting in a collective the others did not issue.
STACK_FAULTS = (*HANG_FAULTS, "collective_mismatch")

# Faults the node's kernel ring buffer shows (`dmesg`): Xid lines, the OOM killer, an NFS
# server not answering and the task blocked on it; and a node that does not answer at all.
KERNEL_FAULTS = (
    "gpu_xid",
    "gpu_needs_reset",
    "kill_rank",
    "zombie_memory",
    "nfs_hang",
    "node_down",
)

# The looks that show a node's state: its health check, nvidia-smi, the fabric of its leaf,
# its InfiniBand ports, a diagnostic run on its GPUs, its kernel log, its services.
NODE_LOOKS = Need(
    (
        By("health"),
        By("gpus"),
        By("fabric", Of.LEAF),
        By("ibstat"),
        By("diag"),
        By("dmesg"),
        By("systemctl"),
    )
)
# What a checkpoint choice rests on: the list of them, or one read back.
CKPT_CHOICE = (By("ckpt list"), By("ckpt verify"))
# What a resume from `latest` rests on: the job's state, its log or its checkpoints.
JOB_STATE = (By("status"), By("logs"), By("ckpt list"))
# What tells a hang apart: the log, the ranks' timers, a stack dump.
HANG_LOOKS = Need((By("logs"), By("perf"), By("stack"), By("trace")), when=When.HUNG)


@dataclass(frozen=True)
class Verb:
    name: str  # "cordon", "ckpt rm"
    summary: str
    kind: Kind
    on: On
    section: Section  # the runbook section its actions are filed under
    handler: Handler
    cost: Cost  # Cost(15): seconds; Cost(function, label, sentence): worked out per call
    args: tuple[Arg, ...] = ()
    options: tuple[Option, ...] = ()
    others_jobs: bool = False  # may run on a job that is not the learner's (On.JOB verbs)
    plan: bool = False  # part of the pre-shift plan: free before the night starts
    # It takes what it names out of service for everyone, not just for the learner's job
    # (cordon, drain, swap, and the leaf versions).
    out_of_service: bool = False
    detail: str = ""
    # An act: the looks that inform it, each need met by one look made after the first visible
    # signal (drill/engine/scoring/discipline.py). `()`: it needs none (ack, note, hint, wait).
    informed_by: tuple[Need, ...] | None = None
    # A look: the fault kinds whose evidence its output shows once they strike what it names
    # (drill/faults/). The end of such a look can be the night's first visible signal.
    shows: tuple[str, ...] = ()
    # The look a person takes first at a node or a job (what it works on): a click on one in
    # the TUI puts this verb and its name on an empty prompt. One per kind of thing.
    first_look: bool = False

    def __post_init__(self) -> None:
        if self.on in (On.NODE, On.JOB, On.VOLUME) and self.target_arg is None:
            raise ValueError(f"{self.name} works on a {self.on} but has no {self.on} argument")
        if self.kind == Kind.ACT and self.informed_by is None:
            raise ValueError(f"{self.name} is an act: declare the looks that inform it")
        if self.kind == Kind.LOOK and self.informed_by:
            raise ValueError(f"{self.name} is a look: nothing informs a look")
        if self.kind == Kind.ACT and self.shows:
            raise ValueError(f"{self.name} is an act: only a look shows a fault")

    @property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())

    @property
    def usage(self) -> str:
        return " ".join(
            [self.name, *(a.usage for a in self.args), *(o.usage for o in self.options)]
        )

    @property
    def target_arg(self) -> Arg | None:
        """The argument that names what the verb works on."""
        return next((a for a in self.args if a.type.names == self.on.value), None)

    def typed(self) -> tuple[Arg | Option, ...]:
        return (*self.args, *self.options)


def _help(ctx: Context, call: Call) -> str:
    return help_text(call["verb"], storage.incident_notes(ctx))


def _verb_name(text: str, what: str, earlier: Mapping[str, Any]) -> str:
    name = " ".join(text.lower().split())
    if name not in VERBS and name not in GROUPS:  # `help ckpt` lists the ckpt actions
        raise unknown("action", name, VERBS)
    return name


# The one argument type whose words are the verbs themselves (`help VERB`): it lives beside the
# table it reads, so argtypes.py stays below the catalog that is built from its types.
VERB = ArgType("VERB", read=_verb_name, rest=True)


VERBS: dict[str, Verb] = {
    v.name: v
    for v in [
        Verb(
            "status",
            "the cluster at a glance, or one job in detail",
            Kind.LOOK,
            On.JOB,
            Section.QUEUE,
            look.status,
            Cost(15),
            args=(Arg("job", JOB, optional=True),),
            others_jobs=True,
            first_look=True,
        ),
        Verb(
            "queue",
            "every job: state, pending reason, GPUs, nodes, step, attempts",
            Kind.LOOK,
            On.CLUSTER,
            Section.QUEUE,
            look.queue,
            Cost(15),
        ),
        Verb(
            "nodes",
            "every node: state, island, leaf, GPUs in use, jobs",
            Kind.LOOK,
            On.CLUSTER,
            Section.HEALTH,
            look.nodes,
            Cost(15),
        ),
        Verb(
            "logs",
            "the last lines of a job's log; without --rank, each rank's last line",
            Kind.LOOK,
            On.JOB,
            Section.HEALTH,
            look.logs,
            Cost(30),
            args=(Arg("job", JOB),),
            options=(Option("--rank", NUMBER, what="rank"),),
            others_jobs=True,
            shows=("bad_shard", "gpu_sdc"),
        ),
        Verb(
            "health",
            "run the node health check: heartbeat, each GPU, recent kernel log",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            look.health,
            Cost(60),
            args=(Arg("node", NODE),),
            detail="It shows each GPU's state, any failed service and the first line of each"
            " recent kernel message, where the driver prints Xid lines.",
            shows=(*NODE_FAULTS, "nfs_hang"),
            first_look=True,
        ),
        Verb(
            "perf",
            "per-rank step time, compute time, wait in the collective and last collective",
            Kind.LOOK,
            On.JOB,
            Section.HEALTH,
            diagnose.perf,
            Cost(30),
            args=(Arg("job", JOB),),
            others_jobs=True,
            detail="What the training script's own timers report for each rank over its last"
            " steps, with the sequence numbers of the last collective each rank enqueued and"
            " completed.",
            shows=HANG_FAULTS,
        ),
        Verb(
            "stack",
            "dump one rank's Python stack, as py-spy dump shows it",
            Kind.LOOK,
            On.JOB,
            Section.HEALTH,
            diagnose.stack,
            Cost(30),
            args=(Arg("job", JOB), Arg("rank", NUMBER)),
            shows=STACK_FAULTS,
        ),
        Verb(
            "trace",
            "the NCCL flight recorder dump: each rank's newest collective when the watchdog fired",
            Kind.LOOK,
            On.JOB,
            Section.HEALTH,
            diagnose.trace,
            Cost(30),
            args=(Arg("job", JOB),),
            others_jobs=True,
            detail="With TORCH_NCCL_TRACE_BUFFER_SIZE set, each rank keeps its last collectives"
            " (sequence number, op type, size, state) and writes them out when its NCCL watchdog"
            " times one out. There is no dump before that. At the same sequence number every"
            " rank should show the same op and size; a rank whose newest entry is an earlier"
            " one never got there.",
            shows=("collective_mismatch",),
        ),
        Verb(
            "gpus",
            "the node's GPUs and their processes, as nvidia-smi shows them",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            diagnose.gpus,
            Cost(20),
            args=(Arg("node", NODE),),
            shows=GPU_FAULTS,
        ),
        Verb(
            "fabric",
            "the leaf switches as the subnet manager (UFM) shows them: link state, downs, events",
            Kind.LOOK,
            On.CLUSTER,
            Section.HEALTH,
            diagnose.fabric,
            Cost(30),
            args=(Arg("leaf", LEAF, optional=True),),
            shows=("link_flap", "ib_flap"),
        ),
        Verb(
            "ibstat",
            "the node's InfiniBand ports as ibstat shows them, then each port's error counters",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            ib.ibstat,
            Cost(20),
            args=(Arg("node", NODE),),
            detail="The counters are perfquery's: LinkDownedCounter counts the port's link"
            " going down; symbol and receive errors beside it point at that port's cable,"
            " optic or HCA.",
            shows=("port_flap", "link_flap"),
        ),
        Verb(
            "df",
            "storage volumes: size, used, available, as the file system reports them now",
            Kind.LOOK,
            On.VOLUME,
            Section.CHECKPOINT,
            storage.df,
            Cost(10),
            args=(Arg("volume", VOLUME, optional=True),),
        ),
        Verb(
            "ckpt list",
            "the job's checkpoints and where `latest` points",
            Kind.LOOK,
            On.JOB,
            Section.CHECKPOINT,
            look.ckpt_list,
            Cost(15),
            args=(Arg("job", JOB),),
        ),
        Verb(
            "ckpt verify",
            "read a checkpoint back and check its sha256 against the manifest",
            Kind.LOOK,
            On.JOB,
            Section.CHECKPOINT,
            storage.ckpt_verify,
            Cost(
                storage.verify_cost,
                "30s plus the read",
                "Takes 30s of your time, plus the time to read the file back from its volume,"
                " while the night goes on.",
            ),
            args=(Arg("job", JOB), Arg("step", STEP)),
            shows=("corrupt_checkpoint",),
        ),
        Verb(
            "diag",
            "run DCGM's Diagnostic test on the node's GPUs (dcgmi diag -r diagnostic)",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            dcgm.diag,
            Cost(dcgm.DIAG_SECONDS, "4m"),
            args=(Arg("node", NODE),),
            detail="Matrix multiplies on every GPU for three minutes, each result checked: it"
            " fails a GPU that computes wrong results even when the health check and nvidia-smi"
            " show nothing. It loads every GPU of the node, so it is refused while work runs"
            " there.",
            shows=("gpu_sdc",),
        ),
        Verb(
            "lfs quota",
            "your team's use against its quota on a volume, as the file system's quota tool shows it",
            Kind.LOOK,
            On.VOLUME,
            Section.CHECKPOINT,
            storage.lfs_quota,
            Cost(10),
            args=(Arg("volume", VOLUME, optional=True),),
        ),
        Verb(
            "dmesg",
            "the node's kernel ring buffer, as dmesg prints it: Xid, OOM, NFS and hung task lines",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            node_logs.dmesg,
            Cost(20),
            args=(Arg("node", NODE),),
            detail="Each line carries the seconds since the node booted. A reboot empties it:"
            " what came before is gone from it. Service results are in the journal:"
            " `systemctl NODE SERVICE`.",
            shows=KERNEL_FAULTS,
        ),
        Verb(
            "systemctl",
            "one service on the node, as systemctl status prints it, with its last journal lines",
            Kind.LOOK,
            On.NODE,
            Section.HEALTH,
            node_logs.systemctl,
            Cost(20),
            args=(Arg("node", NODE), Arg("service", SERVICE)),
            detail="A GPU node runs nvidia-fabricmanager (it sets up the NVSwitches; CUDA waits"
            " for it), nvidia-persistenced and slurmd (the scheduler's agent).",
            shows=("fabric_manager_down", "node_down"),
        ),
        Verb(
            "cordon",
            "no new work lands on the node; running work keeps running (Kubernetes cordon)",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.cordon,
            Cost(15),
            args=(Arg("node", NODE),),
            informed_by=(NODE_LOOKS,),
            out_of_service=True,
        ),
        Verb(
            "uncordon",
            "the node takes new work again",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.uncordon,
            Cost(15),
            args=(Arg("node", NODE),),
            detail="It also takes the node off your job's exclude list (`restart --exclude`),"
            " so your job may be placed there again.",
            informed_by=(NODE_LOOKS,),
        ),
        Verb(
            "drain",
            "Slurm drain: no new work; running work is allowed to finish, then the node is drained",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.drain,
            Cost(15),
            args=(Arg("node", NODE),),
            detail="Drain does not stop a hung job. To stop work now, `cancel` or `requeue` it.",
            informed_by=(NODE_LOOKS,),
            out_of_service=True,
        ),
        Verb(
            "reboot",
            "power cycle the node; work still on it is killed (drain first to let it finish)",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.reboot,
            Cost(30),
            args=(Arg("node", NODE),),
            detail="A reboot resets every GPU, so it clears what a GPU reset clears, and empties"
            " the kernel log; a GPU that fell off the bus or whose row remap failed stays broken."
            " A node that was cordoned or drained comes back drained.",
            informed_by=(NODE_LOOKS,),
        ),
        Verb(
            "reset",
            "reset the node's GPUs, or one with --gpu (nvidia-smi -r); refused while work uses it",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.reset,
            Cost(30),
            args=(Arg("node", NODE),),
            options=(Option("--gpu", NUMBER, what="GPU index"),),
            detail="A reset clears an NVLink error (Xid 74) and a GSP timeout (Xid 119). It applies"
            " a pending row remap, so a GPU with a double bit ECC error (Xid 48) works again. It"
            " is refused while any process uses the GPU, a leftover that belongs to no job"
            " included: kill that first. It does not bring back a GPU that fell off the bus"
            " (Xid 79) or whose row remap failed (Xid 64). Other work on the node keeps running.",
            informed_by=(NODE_LOOKS,),
        ),
        Verb(
            "kill",
            "kill a process on the node by its pid (kill -9), like one that holds a GPU's memory",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.kill,
            Cost(15),
            args=(Arg("node", NODE), Arg("pid", PID)),
            detail="`gpus NODE` lists the pid of each process on a GPU. A process that outlived"
            " its job and still holds a GPU's memory frees it when it dies; one stuck in the"
            " driver (state D) ignores the signal, and only a reboot ends it. A rank of a running"
            " job is refused: stop the job instead.",
            informed_by=(Need((By("gpus"),)),),
        ),
        Verb(
            "swap",
            "take the node out for repair and bring a spare from its island into its place",
            Kind.ACT,
            On.NODE,
            Section.HEALTH,
            act.swap,
            Cost(60),
            args=(Arg("node", NODE),),
            detail="Work on the node is killed. A hot spare, already cabled, takes its place after the swap time; the node's own repair takes days.",
            informed_by=(NODE_LOOKS,),
            out_of_service=True,
        ),
        Verb(
            "cordon-leaf",
            "cordon every node behind a leaf switch that is up, to keep new work off the leaf",
            Kind.ACT,
            On.CLUSTER,
            Section.HEALTH,
            act.leaf_cordon,
            Cost(15),
            args=(Arg("leaf", LEAF),),
            detail="`nodes` shows each node's leaf. Running work keeps running; nodes that are"
            " already out of service stay as they are. `uncordon NODE` puts one back.",
            informed_by=(Need((By("fabric", Of.OR_ALL),), about="leaf"),),
            out_of_service=True,
        ),
        Verb(
            "drain-leaf",
            "drain every node behind a leaf switch: no new work, running work may finish",
            Kind.ACT,
            On.CLUSTER,
            Section.HEALTH,
            act.leaf_drain,
            Cost(15),
            args=(Arg("leaf", LEAF),),
            detail="Nodes already draining, drained, down or rebooting stay as they are.",
            informed_by=(Need((By("fabric", Of.OR_ALL),), about="leaf"),),
            out_of_service=True,
        ),
        Verb(
            "cancel",
            "cancel the job (Slurm scancel); it does not come back",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.cancel,
            Cost(15),
            args=(Arg("job", JOB),),
            informed_by=(Need((By("status"), By("logs"), By("queue", Of.ANY))),),
        ),
        Verb(
            "requeue",
            "stop the job and put it back in the queue; it resumes from `latest` (Slurm requeue)",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.requeue,
            Cost(15),
            args=(Arg("job", JOB),),
            informed_by=(Need(JOB_STATE), HANG_LOOKS),
        ),
        Verb(
            "restart",
            "stop the job and submit it again with a fresh retry budget",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.restart,
            Cost(30),
            args=(Arg("job", JOB),),
            options=(
                Option("--from", RESUME, what="--from step"),
                Option("--exclude", NODES),
                Option("--include", NODES),
                Option("--world", NUMBER),
                Option("--skip", BATCHES),
            ),
            detail="--from picks the checkpoint (default latest). --exclude keeps it off nodes;"
            " --include lets it back on nodes it excluded."
            " --world N runs on N GPUs; the global batch is kept by gradient accumulation."
            " --skip A-B never reads the batches of steps A to B (as a run from step 1"
            " would number them), in this attempt and every later one.",
            informed_by=(
                Need(CKPT_CHOICE, when=When.FROM_STEP),
                Need(JOB_STATE, when=When.FROM_LATEST),
                Need((By("logs"),), when=When.SKIP),
                HANG_LOOKS,
                # Keeping the job off a node, or letting it back on, is a judgement of that node.
                replace(NODE_LOOKS, about="--exclude"),
                replace(NODE_LOOKS, about="--include"),
            ),
        ),
        Verb(
            "hold",
            "keep a pending job from being scheduled",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.hold,
            Cost(10),
            args=(Arg("job", JOB),),
            informed_by=(Need((By("status"), By("queue", Of.ANY))),),
        ),
        Verb(
            "release",
            "let a held job schedule again",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.release,
            Cost(10),
            args=(Arg("job", JOB),),
            informed_by=(Need((By("status"), By("queue", Of.ANY))),),
        ),
        Verb(
            "priority",
            "change a job's priority class: low, normal, high or urgent",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.priority,
            Cost(10),
            args=(Arg("job", JOB), Arg("class", CLASS)),
            informed_by=(Need((By("status"), By("queue", Of.ANY))),),
        ),
        Verb(
            "rollback",
            "stop the job and submit it again on the code version it ran before the last deploy",
            Kind.ACT,
            On.JOB,
            Section.QUEUE,
            act.rollback,
            Cost(30),
            args=(Arg("job", JOB),),
            options=(Option("--from", RESUME, what="--from step"),),
            detail="`status JOB` shows the code version and the one before it. --from picks the"
            " checkpoint (default latest). A fresh retry budget, as with `restart`.",
            informed_by=(
                Need((By("trace"), By("logs"), By("stack"))),
                Need(CKPT_CHOICE, when=When.FROM_STEP),
                Need(JOB_STATE, when=When.FROM_LATEST),
            ),
        ),
        Verb(
            "ckpt rm",
            "delete one checkpoint",
            Kind.ACT,
            On.JOB,
            Section.CHECKPOINT,
            storage.ckpt_rm,
            Cost(15),
            args=(Arg("job", JOB), Arg("step", STEP)),
            informed_by=(Need((By("ckpt list"), By("df", Of.ANY))),),
        ),
        Verb(
            "ckpt prune",
            "delete all but the newest N checkpoints",
            Kind.ACT,
            On.JOB,
            Section.CHECKPOINT,
            storage.ckpt_prune,
            Cost(15),
            args=(Arg("job", JOB),),
            options=(Option("--keep", KEEP, required=True),),
            informed_by=(Need((By("ckpt list"), By("df", Of.ANY))),),
        ),
        Verb(
            "quota",
            "ask the storage team for more quota",
            Kind.ACT,
            On.VOLUME,
            Section.CHECKPOINT,
            storage.quota,
            Cost(60),
            args=(Arg("volume", VOLUME), Arg("size", SIZE)),
            informed_by=(Need((By("df", Of.OR_ALL), By("lfs quota", Of.OR_ALL))),),
        ),
        Verb(
            "set",
            f"change a job setting: {', '.join(SETTINGS)}",
            Kind.ACT,
            On.JOB,
            Section.CHECKPOINT,
            storage.set_setting,
            Cost(10),
            args=(Arg("job", JOB), Arg("key", KEY), Arg("value", VALUE)),
            plan=True,
            detail="Settings apply from the next attempt (a checkpoint cadence change applies at once).",
            informed_by=(Need((By("status"), By("ckpt list"), By("df", Of.ANY))),),
        ),
        Verb(
            "ack",
            "acknowledge a page, like P3, or every open page",
            Kind.ACT,
            On.NOTHING,
            Section.NIGHT,
            act.ack,
            Cost(5),
            args=(Arg("page", PAGE),),
            informed_by=(),
        ),
        Verb(
            "note",
            "write a note in the incident log",
            Kind.ACT,
            On.NOTHING,
            Section.NIGHT,
            act.note,
            Cost(30),
            args=(Arg("text", TEXT, missing="say what you saw or what you will do"),),
            informed_by=(),
        ),
        Verb(
            "hint",
            "reveal the next hint that has unlocked (costs discipline points)",
            Kind.ACT,
            On.NOTHING,
            Section.NIGHT,
            act.hint,
            Cost(10),
            informed_by=(),
        ),
        Verb(
            "wait",
            "let the night run, like `wait 5m`, or until the next page with `--until page`",
            Kind.ACT,
            On.NOTHING,
            Section.NIGHT,
            act.wait,
            Cost(
                act.wait_cost,
                "the time it runs",
                "Takes its duration of your time while the night goes on; with --until page,"
                " the time the night ran.",
            ),
            args=(
                Arg(
                    "duration",
                    DURATION,
                    what="wait",
                    missing="say how long, like `wait 5m`, or `wait --until page`",
                    unless="--until",
                ),
            ),
            options=(Option("--until", SIGNAL),),
            detail="`wait --until page` fast-forwards: the night runs until the next page"
            " arrives or your job stops (fails, is restarted by its retry policy, is preempted),"
            " and you are charged the time it ran. With a duration, `wait 30m --until page`,"
            " it stops after 30m at the latest; without one, at the end of the night. It is"
            " refused while a page is open: acknowledge it first.",
            informed_by=(),
        ),
        Verb(
            "help",
            "this list, or one verb in detail",
            Kind.LOOK,
            On.NOTHING,
            Section.NIGHT,
            _help,
            Cost(0),
            args=(Arg("verb", VERB, optional=True),),
        ),
    ]
}

# Verbs of two words, like `ckpt rm`, share a first word: the group.
GROUPS: dict[str, tuple[str, ...]] = {}
for _name in VERBS:
    if " " in _name:
        _head, _sub = _name.split(" ", 1)
        GROUPS[_head] = (*GROUPS.get(_head, ()), _sub)


def verb_of(words: list[str]) -> tuple[str, int] | None:
    """The verb a line's words start with and how many words it took, or None."""
    if not words:
        return None
    head = words[0].lower()
    if head in GROUPS:
        if len(words) < 2:
            return None
        name = f"{head} {words[1].lower()}"
        return (name, 2) if name in VERBS else None
    return (head, 1) if head in VERBS else None


# `help`: the verb that explains the others. The TUI answers it with a screen of its own.
HELP = next(v for v in VERBS.values() if v.handler is _help)
# `set`: the verb the pre-shift plan's choices become, at the night's start.
PLAN_VERB = next(v for v in VERBS.values() if v.plan)


def _fast_forward() -> tuple[Verb, Option]:
    """The verb and option that run the night until the next signal (drill/engine/signals.py)."""
    for verb in VERBS.values():
        for option in verb.options:
            if option.type is SIGNAL:
                return verb, option
    raise ValueError("no verb has a --until option: nothing fast-forwards")


# The line the TUI's fast-forward key sends: `wait --until page`, as the declaration writes it.
_FF_VERB, _FF_OPTION = _fast_forward()
FAST_FORWARD = f"{_FF_VERB.name} {_FF_OPTION.flag} {SIGNALS[0]}"


def runs_to_signal(verb: Verb, values: Mapping[str, Any]) -> bool:
    """Whether a parsed line runs the night until a signal rather than for a set time."""
    return any(o.type is SIGNAL and values.get(o.name) is not None for o in verb.options)


def fast_forwards(line: str) -> bool:
    """Whether a typed line is a fast-forward (the TUI says so while it runs)."""
    words = line.split()
    found = verb_of(words)
    return found is not None and any(
        o.type is SIGNAL and o.flag in words[found[1] :] for o in VERBS[found[0]].options
    )


def first_look(on: On) -> Verb:
    """The look a person takes first at a node or a job: `health` a node, `status` a job."""
    return next(v for v in VERBS.values() if v.first_look and v.on == on)


def heads() -> list[str]:
    """The first words a line can start with: single verbs and group words."""
    return sorted({v.words[0] for v in VERBS.values()})


def section_of(verb: str) -> str:
    """The runbook section for a verb's actions; anything unknown goes under 3am."""
    return VERBS[verb].section.value if verb in VERBS else Section.NIGHT.value


def help_text(verb: str | None = None, notes: dict[str, str] | None = None) -> str:
    notes = notes or {}
    if verb in GROUPS and verb not in VERBS:  # a group's first word: its actions, one a line
        subs = [VERBS[f"{verb} {sub}"] for sub in GROUPS[verb]]
        lines = [f"{verb} is the first word of {plural(len(subs), 'action')}:"]
        width = max(len(v.usage) for v in subs)
        lines += [f"  {v.usage:<{width}}  {v.summary}." for v in subs]
        lines.append(f"  Type `help {subs[0].name}` for one of them.")
        return "\n".join(lines)
    if verb:
        v = VERBS[verb]
        lines = [f"{v.usage}", f"  {v.summary}."]
        if v.detail:
            lines.append(f"  {v.detail}")
        if verb in notes:
            lines.append(f"  In this incident: {notes[verb]}")
        lines.append(f"  {v.cost.sentence}")
        return "\n".join(lines)
    width = 24  # a long usage (restart's options) gets a line of its own

    def row(v: Verb) -> str:
        if len(v.usage) <= width:
            return f"  {v.usage:<{width}}  {v.summary}"
        return f"  {v.usage}\n  {'':<{width}}  {v.summary}"

    looks = [row(v) for v in VERBS.values() if v.kind == Kind.LOOK]
    acts = [row(v) for v in VERBS.values() if v.kind == Kind.ACT]
    out = ["Look:", *looks, "Act:", *acts]
    for name, note in sorted(notes.items()):
        out.append(f"Note on {name}: {note}")
    return "\n".join(out)


def refusal_on_others_job(verb: Verb, job: Any, mine: Any) -> str | None:
    """The one rule for another team's job: a verb not declared `others_jobs` is refused on it,
    with what the learner can do instead."""
    if verb.on != On.JOB or verb.others_jobs or job.yours:
        return None
    return (
        f"{job.name} belongs to team {job.team}, and their on-call owns it: `{verb.name}` on it"
        f" is theirs to run, not yours. Look with `status {job.name}`, or work on your own job,"
        f" {mine.name}."
    )


def _check_needs() -> None:
    """Every look a need names is a look verb: a typo would make an act impossible to inform.
    A first look is a look, one for each kind of thing it works on."""
    firsts = [v.on for v in VERBS.values() if v.first_look]
    if len(firsts) != len(set(firsts)):
        raise ValueError(f"one first look for each kind of thing, not {firsts}")
    for verb in VERBS.values():
        if verb.first_look and verb.kind != Kind.LOOK:
            raise ValueError(f"{verb.name} is a first look, so it must be a look")
        for need in verb.informed_by or ():
            for by in need.by:
                if by.verb not in VERBS or VERBS[by.verb].kind != Kind.LOOK:
                    raise ValueError(f"{verb.name} is informed by {by.verb!r}, not a look")


_check_needs()

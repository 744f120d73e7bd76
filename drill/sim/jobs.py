"""Jobs and their attempts, with the states users know from Slurm and Kubernetes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from drill.incident.models import PRIORITY_RANK, JobSpec
from drill.sim import job_fields
from drill.sim.checkpoints import CheckpointCatalog, CheckpointPolicy
from drill.sim.ledger import Outage
from drill.sim.logs import JobLog
from drill.states import JobState

PENDING = JobState.PENDING
RUNNING = JobState.RUNNING
PREEMPTED = JobState.PREEMPTED
REQUEUED = JobState.REQUEUED
FAILED = JobState.FAILED
NODE_FAIL = JobState.NODE_FAIL
COMPLETED = JobState.COMPLETED
CANCELLED = JobState.CANCELLED
JOB_STATES = tuple(JobState)


@dataclass
class Attempt:
    number: int
    queued_at: float
    start: float | None = None
    end: float | None = None
    nodes: list[str] = field(init=False)  # these: made when first read (job_fields.lazy)
    gpus: int = 0
    from_step: int = 0
    why: str = ""  # how the attempt ended
    ended: bool = False
    # When the job's collectives stopped making progress (a dead or hung rank), if they did.
    stalled_at: float | None = None
    stalled_rank: int | None = None
    training: bool = False  # past start-up, rendezvous and checkpoint load
    preempting: bool = False  # SIGTERM received; no more steps
    writing: Any = None  # the checkpoint write in flight, if any
    stall_on_start: int | None = None  # a rank that hung before training began
    stall_how: str = "kill"  # and what that does to its real process
    # Ranks stopped for good in this attempt, and how: "kill" (its GPU or node is gone) or
    # "hang" (alive, stuck in software). What `perf` and `stack` read.
    hung_ranks: dict[int, str] = field(default_factory=dict)
    real_errors: list[str] = field(init=False)  # what real worker processes raised
    # What real survivors of a hung rank raised (gloo) and the night has them still waiting
    # for: logged at the collective timeout, never if the attempt ends before.
    unsaid_errors: list[str] = field(init=False)
    stall_wake: Any = None  # a SimPy event that wakes the stepping loop when the stall ends
    stall_causes: set[str] = field(init=False)  # what holds the gang; all must clear
    carried: float = 0.0  # seconds of work a background job had done before this attempt
    loaded_corrupt: bool = False  # it resumed from bytes that were not what was written
    failed_load: bool = False  # it ended because its checkpoint's bytes would not load or verify
    poisoned_from: int | None = None  # the step its model's bad bytes came in at, if any
    # The step of an undisturbed run whose data this attempt's next step reads (1 at step 0):
    # it runs ahead of the step once a skip moved it.
    data_next: int = 1
    # Steps it trained with a rank on a GPU that computes wrong results (gpu_sdc).
    wrong_steps: int = 0
    # Each rank's process: (node, GPU index) -> its pid, fresh from the node at the start.
    pids: dict[tuple[str, int], int] = field(default_factory=dict)
    # A rank blocked outside any collective, by rank: the stack a dump of it shows, innermost
    # frame first (nfs_hang; a `stack` view reads it).
    blocked_in: dict[int, list[str]] = field(default_factory=dict)
    crashed: bool = False  # a rank's process died; the launcher ends the attempt shortly
    slowed_by: dict[str, float] = field(default_factory=dict)  # cause -> step time factor
    ended_as: JobState | None = None  # the state the job took when this attempt ended
    preempted_at: float | None = None  # when SIGTERM arrived, if it was preempted
    # Ranks that issued a different collective than the rest at the same sequence number
    # (collective_mismatch): rank -> (op type, elements in). Each waits in its own collective.
    mismatched: dict[int, tuple[str, int]] = field(default_factory=dict)
    startup_hung_on: str | None = None  # a node whose NCCL start-up never completes

    def to_json(self) -> dict:
        return {
            "number": self.number,
            "start": None if self.start is None else round(self.start, 3),
            "end": None if self.end is None else round(self.end, 3),
            "nodes": list(self.nodes),
            "from_step": self.from_step,
            "why": self.why,
        }


job_fields.lazy(Attempt, nodes=list, real_errors=list, unsaid_errors=list, stall_causes=set)


@job_fields.install  # priority, held and exclude re-file a waiting job; reason reads the pass
@dataclass
class Job:
    name: str
    team: str
    gpus: int
    priority: str
    submit_time: float
    time_limit: float
    yours: bool = False
    # Training jobs step and checkpoint; background jobs just run for `duration`.
    training: bool = False
    steps: int = 0
    step_time: float = 0.0
    duration: float = 0.0
    collective_timeout: float = 600.0
    max_restarts: int = 0
    restart_backoff: float = 30.0
    exclude: set[str] = field(default_factory=set)
    held: bool = False
    requested_nodes: list[str] = field(default_factory=list)
    preemptible: bool = True
    submitted: bool = True  # False until its submit time: nobody can see or name it yet
    # Live state.
    state: JobState = JobState.PENDING
    reason: str = ""
    step: int = 0
    steps_executed: int = 0  # every step trained, including ones redone after a restart
    last_step_time: float | None = None
    restarts_used: int = 0
    attempts: list[Attempt] = field(default_factory=list)
    placement: list[tuple[str, list[int]]] = field(default_factory=list)  # node -> gpus
    resume_from: int | str | None = "latest"  # checkpoint step, "latest" or None for scratch
    world: int = 0  # GPUs for the next attempt (a restart may change it)
    # Batch ranges (first, last) of the data stream the job was told to skip (`restart
    # --skip`): part of its launch, so every later attempt skips them too.
    data_skips: list[tuple[int, int]] = field(init=False)
    # Stretches of its data stream that are bad (bad_shard), in the same step numbers.
    bad_data: list[tuple[int, int]] = field(init=False)
    elapsed_before: float = 0.0  # background jobs already running when the night starts
    # What the job keeps while the night goes on. Training jobs carry their incident spec,
    # checkpoint policy and checkpoint catalog; every job has a log.
    log: JobLog = field(init=False)
    spec: JobSpec | None = None
    policy: CheckpointPolicy | None = None
    checkpoints: CheckpointCatalog = field(init=False)
    losses: list[tuple[int, float]] = field(init=False)  # (step, loss) as trained
    outages: list[Outage] = field(init=False)  # when it stopped and came back
    # The training code's version and the one before it (`rollback` swaps back), and a code
    # path of a version that issues a mismatched collective (drill/faults/collective_mismatch.py).
    code_version: str = ""
    previous_code_version: str = ""
    divergence: Any = None
    # NCCL flight recorder dumps, written when a watchdog timed out a collective: `trace JOB`.
    flight_dumps: list[Any] = field(init=False)
    # Set by the world that holds the job (drill/sim/job_fields.py): told when a field its
    # queue is filed by changes, and where the job's reason is read from after a pass.
    queue_hook: Any = field(default=None, repr=False, compare=False)
    reasons_from: Any = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.world == 0:
            self.world = self.gpus

    # A training job's spec and checkpoint policy, for the code that only training jobs reach
    # (stepping, checkpointing): a background job has neither.
    @property
    def training_spec(self) -> JobSpec:
        if self.spec is None:
            raise TypeError(f"{self.name} is a background job: it has no training spec")
        return self.spec

    @property
    def checkpoint_policy(self) -> CheckpointPolicy:
        if self.policy is None:
            raise TypeError(f"{self.name} is a background job: it has no checkpoint policy")
        return self.policy

    @property
    def priority_rank(self) -> int:
        return PRIORITY_RANK[self.priority]

    @property
    def current(self) -> Attempt | None:
        return self.attempts[-1] if self.attempts and not self.attempts[-1].ended else None

    @property
    def nodes(self) -> list[str]:
        return [name for name, _ in self.placement]

    def rank_location(self, rank: int) -> tuple[str, int]:
        """Ranks fill nodes in placement order, one rank per GPU (torchrun's default)."""
        for node, gpus in self.placement:
            if rank < len(gpus):
                return node, gpus[rank]
            rank -= len(gpus)
        raise IndexError(rank)

    def ranks_on(self, node_name: str) -> list[int]:
        ranks: list[int] = []
        rank = 0
        for node, gpus in self.placement:
            for _ in gpus:
                if node == node_name:
                    ranks.append(rank)
                rank += 1
        return ranks

    @property
    def steps_recomputed(self) -> int:
        """Work done twice: steps trained beyond the progress the job kept."""
        return max(0, self.steps_executed - self.step)

    def sort_key(self) -> tuple:
        # Priority class first, FIFO within a class; the name breaks exact ties stably.
        return (-self.priority_rank, self.submit_time, self.name)


job_fields.lazy(
    Job,
    data_skips=list,
    bad_data=list,
    log=JobLog,
    checkpoints=CheckpointCatalog,
    losses=list,
    outages=list,
    flight_dumps=list,
)

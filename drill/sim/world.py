"""The simulated world: one SimPy environment holding the cluster, the jobs, the scheduler, the
faults and the pager. The engine drives it; the world never reads a clock or unseeded randomness.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from drill.faults.world import FaultWorld
from drill.incident.clock import NightClock
from drill.incident.models import Incident, JobSpec
from drill.sim import (
    background,
    checkpointing,
    collector,
    free_index,
    invariants,
    job_fields,
    preemption,
    runner,
    storage_events,
)
from drill.sim.checkpoints import CheckpointPolicy
from drill.sim.cluster import Cluster, Throttles
from drill.sim.events import AlertFired, Event, HarmDone, JobStateChanged, NodeStateChanged
from drill.sim.exposure import Exposure
from drill.sim.failures import (
    LAUNCHER_MONITOR_INTERVAL,
    PROGRESS_ALERT_AFTER,
    Failures,
    pid_on,
)
from drill.sim.fault_schedule import FaultSchedule
from drill.sim.jobs import (
    CANCELLED,
    COMPLETED,
    FAILED,
    NODE_FAIL,
    PENDING,
    PREEMPTED,
    REQUEUED,
    RUNNING,
    Attempt,
    Job,
)
from drill.sim.ledger import Harm, Kill, Ledger, Outage
from drill.sim.pager import Pager
from drill.sim.pass_reasons import PassReasons
from drill.sim.rng import substream
from drill.sim.scheduler import Decision, _never_fits, place, shape
from drill.sim.shape_queue import Group, RunningEnds, Shape, ShapeQueue, shape_of
from drill.sim.starts_pass import plan_starts
from drill.sim.storage import build_volumes
from drill.sim.training import CountingTraining, TrainingBackend
from drill.sim.world_view import SimWorld
from drill.states import JobState, NodeState
from drill.values.units import format_duration

# The streams of what nobody on call could know: other teams' arrivals and sizes, and nodes
# failing at random. A variant night (drill/engine/ensemble.py) redraws only these; the faults'
# times, jitter and targets keep the night's own seed.
UNKNOWABLE_STREAMS = ("background", "random-failures:")


class World:
    def __init__(
        self,
        incident: Incident,
        seed: int,
        training: TrainingBackend | None = None,
        *,
        variant: int | None = None,
    ):
        with collector.paused():
            self._build(incident, seed, training, variant)

    def _build(
        self,
        incident: Incident,
        seed: int,
        training: TrainingBackend | None,
        variant: int | None,
    ) -> None:
        self.incident = incident
        self.seed = seed
        self.variant = variant
        self.env = simpy.Environment()
        self.finished = self.env.event()  # the learner's job completed: the night is over
        self.clock = NightClock(incident.night.start)
        self.cluster = Cluster(incident.cluster)
        self.training: TrainingBackend = training or CountingTraining()
        self.pager = Pager()
        # Every job, yours, the incident's named ones and the background, each one record.
        self.jobs: dict[str, Job] = {}
        # The queue and the running set, kept as jobs change state, so a scheduling pass reads
        # the jobs that matter instead of every job the night has seen. Each maps a job's name
        # to its place in `jobs`, so the lists come back in the order `jobs` has them.
        self._pending: dict[str, int] = {}
        self._running: dict[str, int] = {}
        self._order: dict[str, int] = {}
        # What a scheduling pass reads, kept as jobs change instead of rebuilt per pass: the
        # submitted pending jobs grouped by request shape (held ones apart), running jobs'
        # ends at their limits in order, the pending jobs pinned to named nodes, and the
        # running jobs preemption could take, counted by priority class.
        self._queue = ShapeQueue()
        self._ends = RunningEnds()
        self._requested: dict[str, int] = {}
        self._preemptible: dict[str, int] = {}  # running job -> its priority rank
        self._preemptible_ranks: dict[int, int] = {}  # rank -> how many of them
        # Why each waiting job waits, as the last pass decided (drill/sim/pass_reasons.py).
        self._reasons = PassReasons(self._queue)
        self._hook = self._job_changed  # one bound method for every job, not one each
        # Bumped by every change a pass reads of the jobs (a state, a hold, a priority, a
        # preemption); with the free-GPU index's version, what the last pass started from.
        self._changes = 0
        self._last_look: tuple[int, int] | None = None
        # Running jobs started, ended, re-classed or preempted: what preemption reads of them.
        self._running_changes = 0
        self._found_no_victims: tuple | None = None  # what preemption last looked at in vain
        self._never_texts: dict[Shape, str] = {}
        self._never_version = -1
        self.timeline: list[Event] = []
        # What the night cost others and the cluster: the collateral the score counts.
        self.ledger = Ledger()
        # Broken nodes the learner could see, left where others' work lands (drill/sim/exposure.py).
        self.exposure = Exposure(self)
        self._seq = 0
        # Per job: (the placement it was for, Throttles.version then, its slowest GPU's factor).
        self._gpu_pace: dict[str, tuple[object, int, float]] = {}
        # What `run_until` is asked to stop at, while it runs: a test on each event recorded,
        # and the SimPy event that ends the run when one passes it.
        self._watch: tuple[Callable[[Event], bool], simpy.Event] | None = None
        self.volumes = build_volumes(incident.storage)
        for spec in incident.jobs:
            self._add_training_job(spec)
        self.failures = Failures(self)
        self.faults = FaultSchedule(self)
        self.env.process(self._scheduler_loop())
        self.schedule_pass()
        background.start(self)
        storage_events.start(self)
        self.faults.start()

    # -- time -------------------------------------------------------------------------------

    @property
    def now(self) -> float:
        return self.env.now

    def run_until(
        self, time: float, stop_at: Callable[[Event], bool] | None = None
    ) -> Event | None:
        """Run the world forward to `time`, and no further than the learner's job completing:
        the night ends there, however the caller slices time.

        With `stop_at`, also stop at the first event recorded on the way that it accepts, and
        return that event (None: it ran to `time` or to the end). `stop_at` sees every event
        recorded while it runs, those after the first at the same moment included. The stop is
        a SimPy event like the others, so the same night stops at the same place every time."""
        if time <= self.env.now or self.finished.processed:
            return None
        stop = self.env.timeout(time - self.env.now)
        until = [stop, self.finished]
        if stop_at is not None:
            self._watch = (stop_at, self.env.event())
            until.append(self._watch[1])
        try:
            with collector.paused():
                self.env.run(until=self.env.any_of(until))
        finally:
            watch, self._watch = self._watch, None
        return watch[1].value if watch is not None and watch[1].triggered else None

    def run_rest_of_night(self) -> None:
        """After the learner's night is over, let everyone else's go on to the night's end, so
        what happens to other teams is measured over the same hours in every run."""
        if self.env.now < self.incident.night.length:
            with collector.paused():
                self.env.run(until=self.incident.night.length)

    # -- recording --------------------------------------------------------------------------

    def emit(self, event: Event) -> Event:
        self.timeline.append(event)
        watch = self._watch
        if watch is not None and watch[0](event) and not watch[1].triggered:
            watch[1].succeed(event)
        return event

    def harm(self, kind: str, gpu_seconds: float, text: str) -> None:
        self.ledger.harms.append(Harm(self.env.now, kind, gpu_seconds, text))
        self.emit(HarmDone(self.env.now, kind, text))

    def progress_stopped(self, job: Job, why: str) -> None:
        """A training job stopped making progress it keeps: an outage opens, unless one is."""
        if job.outages and job.outages[-1].end is None:
            return
        if any(a.training for a in job.attempts):
            job.outages.append(Outage(self.env.now, why=why))

    def progress_resumed(self, job: Job) -> None:
        if job.outages and job.outages[-1].end is None:
            job.outages[-1].end = self.env.now

    def _record_kill(self, job: Job, attempt: Attempt, why: str, blame: str | None) -> None:
        """Someone else's work ended before it was done: what it had not saved is lost."""
        if attempt.start is None:
            return
        if job.training:
            saved = job.checkpoints.latest_step or 0
            steps = max(0, job.step - saved) if attempt.training else 0
            lost = steps * job.step_time * attempt.gpus
        else:
            lost = (attempt.carried + self.env.now - attempt.start) * attempt.gpus
        self.ledger.kills.append(Kill(self.env.now, job.name, job.team, lost, why, blame))

    def alert(self, severity: str, source: str, text: str, noise: bool = False) -> None:
        alert = self.pager.fire(self.env.now, severity, source, text, noise)
        self.emit(AlertFired(self.env.now, source, text, id=alert.id, severity=severity))
        self.exposure.paged(alert)
        if not noise:
            self.faults.paged(text)  # a fault triggered by this page starts its clock

    def log(self, job: Job, rank: int | None, text: str) -> None:
        job.log.add(self.env.now, rank, text)

    # -- jobs -------------------------------------------------------------------------------

    def _add_training_job(self, spec: JobSpec) -> None:
        submit = self.moment(spec.submit_at)
        job = Job(
            name=spec.name,
            team=spec.team,
            gpus=spec.gpus,
            priority=spec.priority,
            submit_time=submit,
            time_limit=spec.time_limit,
            yours=spec.yours,
            training=True,
            steps=spec.steps,
            step_time=spec.step_time,
            collective_timeout=spec.collective_timeout,
            max_restarts=spec.retry.max_restarts,
            restart_backoff=spec.retry.backoff,
            exclude=set(spec.exclude),
            requested_nodes=list(spec.nodes),
            preemptible=spec.preemptible,
            resume_from=None,
            spec=spec,
            policy=CheckpointPolicy.from_settings(spec.checkpoint),
            code_version=spec.code_version or "",
            previous_code_version=spec.previous_code_version or "",
        )
        self.add_job(job, submit)

    def add_job(self, job: Job, submit_time: float) -> None:
        self.jobs[job.name] = job
        self._order.setdefault(job.name, len(self._order))
        job.queue_hook = self._hook
        job.reasons_from = self._reasons
        job.state = PENDING
        job.reason = "submitted"
        if submit_time > self.env.now:
            job.submitted = False
            job.reason = "not yet submitted"
            self.env.process(self._submit_later(job, submit_time))
        else:
            job.attempts.append(Attempt(1, self.env.now))
        self._track(job)

    def _submit_later(self, job: Job, when: float):
        yield self.env.timeout(when - self.env.now)
        job.submitted = True
        job.reason = "submitted"
        job.attempts.append(Attempt(len(job.attempts) + 1, self.env.now))
        self._track(job)  # into the queue the pass reads
        self.emit(
            JobStateChanged(
                self.env.now, job.name, f"{job.name} submitted ({job.gpus} GPUs, {job.priority})"
            )
        )

    def moment(self, value: float | str) -> float:
        """A night moment from the incident file (clock text or seconds) as sim seconds."""
        return self.clock.moment(value)

    def pending_jobs(self) -> list[Job]:
        jobs = self.jobs
        return [jobs[name] for name in self._ordered(self._pending) if jobs[name].submitted]

    def running_jobs(self) -> list[Job]:
        return [self.jobs[name] for name in self._ordered(self._running)]

    def _ordered(self, names: dict[str, int]) -> list[str]:
        return sorted(names, key=names.__getitem__)

    def pending_count(self) -> int:
        """How many jobs wait in the queue (submitted, held ones included): pending_jobs()'s
        length without building the list."""
        return len(self._queue)

    def _track(self, job: Job) -> None:
        """Keep the queue and the running set in step with the job's state."""
        self._untrack(job)
        name = job.name
        if self.jobs.get(name) is not job:
            return
        if job.state == PENDING:
            self._pending[name] = self._order[name]
            if job.submitted:
                self._queue.add(job)
                if job.requested_nodes:
                    self._requested[name] = self._order[name]
        elif job.state == RUNNING:
            self._running[name] = self._order[name]
            self._running_changes += 1
            began = job.attempts[-1].start
            self._ends.add(job, (self.env.now if began is None else began) + job.time_limit)
            if job.preemptible:
                self._count_preemptible(name, job.priority_rank)

    def _untrack(self, job: Job) -> None:
        name = job.name
        self._changes += 1
        self._pending.pop(name, None)
        self._requested.pop(name, None)
        self._queue.discard(job)
        if self._running.pop(name, None) is not None:
            self._ends.remove(job)
            self._running_changes += 1
        if name in self._preemptible:
            self._count_preemptible(name, None)

    def filing_problems(self) -> list[str]:
        """Where the queue and running ends a pass reads differ from the jobs as they are now:
        a change that did not re-file its job (drill/sim/invariants.py lists these)."""
        problems = []
        filed = self._queue.filed
        for name, job in self.jobs.items():
            waiting = job.state == PENDING and job.submitted
            if waiting != (name in filed):
                problems.append(f"{name} is {job.state} but {'not ' if waiting else ''}queued")
            elif waiting:
                as_now = (None if job.held else shape_of(job), job.sort_key())
                if filed[name] != as_now:
                    problems.append(f"{name} is queued as {filed[name]}, but is {as_now} now")
            if (job.state == RUNNING) != (name in self._ends):
                problems.append(
                    f"{name} is {job.state}, its end {'not ' * (name not in self._ends)}kept"
                )
        return problems

    def exposure_problems(self) -> list[str]:
        """Where exposure's records kept active apart differ from the records themselves."""
        return self.exposure.kept_problems()

    def _count_preemptible(self, name: str, rank: int | None) -> None:
        """Count a running preemptible job under its class, or (None) stop counting it."""
        old = self._preemptible.pop(name, None)
        if old is not None:
            self._preemptible_ranks[old] -= 1
        if rank is not None:
            self._preemptible[name] = rank
            self._preemptible_ranks[rank] = self._preemptible_ranks.get(rank, 0) + 1

    def _job_changed(self, job: Job) -> None:
        """A job's priority, hold or excluded nodes changed (drill/sim/job_fields.py)."""
        self._changes += 1
        if job.name in self._running:
            self._running_changes += 1
        if job.name in self._preemptible:
            self._count_preemptible(job.name, job.priority_rank)
        if job.name in self._queue:
            # The reason the last pass gave it is read as it was filed: fix it, then refile.
            job.reason = job.reason
            self._queue.remove(job)
            self._queue.add(job)

    def set_state(self, job: Job, state: JobState, reason: str = "") -> None:
        if job.state == state and job.reason == reason:
            return
        job.state = state
        self._track(job)
        job.reason = reason
        text = f"{job.name} {state}" + (f": {reason}" if reason else "")
        self.emit(JobStateChanged(self.env.now, job.name, text, state=state))

    # -- scheduling -------------------------------------------------------------------------

    def _scheduler_loop(self):
        interval = self.incident.cluster.scheduling_interval
        while True:
            yield self.env.timeout(interval)
            self.schedule_pass()

    def schedule_pass(self) -> None:
        """Start what fits, in priority and queue order with EASY backfill, and preempt for the
        first blocked job when lower classes hold what it needs.

        It costs what changed, not the queue: the queue is kept grouped by shape and the
        running jobs' ends sorted (drill/sim/starts_pass.py finds the starts from those), the
        waiting jobs' reasons are read from what this pass decided when something asks
        (drill/sim/pass_reasons.py), preemption is looked for only when a lower class runs
        something it could take, and a pass with nothing new since the last one (which then
        started and preempted nothing, or something would be new) is not run at all: it
        would decide the same. tests/sim/test_world_pass.py holds all of it to the
        straightforward pass on random nights."""
        if not self._queue:
            return
        index = free_index.of(self.cluster)
        look = (self._changes, index.version)
        if look == self._last_look:
            return
        self._last_look = look
        self._reasons.begin()
        self._place_requested()
        never: list[Group] = []
        starts, head = plan_starts(self.cluster, self._queue, self._ends, self.env.now, never)
        texts = self._never_fit_texts(never, index.version)
        if head is None:
            for decision in starts:
                self._start(decision)
            self._reasons.decided(None, "", texts)
            return
        filed = self._queue.filed
        head_key = filed[head.name][1]
        ahead = [d for d in starts if filed[d.job.name][1] < head_key]
        behind = starts[len(ahead) :]
        for decision in ahead:
            self._start(decision)
        head_reason = f"resources: needs {shape(self.cluster, head)}"
        # One preemption round per pass: victims free their GPUs over the grace window.
        victims = self._victims_for(head)
        for victim in victims:
            preemption.preempt(self, victim, by=head)
        if victims:
            self._changes += 1
            self._running_changes += 1
            head_reason = f"resources: preempting {', '.join(v.name for v in victims)}"
        for decision in behind:
            self._start(decision)
        self._reasons.decided(head, head_reason, texts)

    def _start(self, decision: Decision) -> None:
        assert decision.placement is not None  # plan_starts returns only starts
        self.start_attempt(decision.job, decision.placement)

    def _victims_for(self, head: Job) -> list[Job]:
        """preemption.choose_victims, once a lower class runs something preemptible: with
        nothing to take it would read every running job to find none."""
        rank = head.priority_rank
        if not any(count for r, count in self._preemptible_ranks.items() if r < rank):
            return []
        # Its answer reads the running jobs, the free GPUs and the head: the same as when it
        # last found nothing (new arrivals behind the head since), it finds nothing again.
        version = free_index.of(self.cluster).version
        asked = (head.name, self._queue.filed[head.name], self._running_changes, version)
        if asked == self._found_no_victims:
            return []
        victims = preemption.choose_victims(self, head)
        self._found_no_victims = None if victims else asked
        return victims

    def _never_fit_texts(self, never: list[Group], version: int) -> dict[Shape, str]:
        """Why each shape that fits no usable nodes never does, kept while no node changes."""
        if version != self._never_version:
            self._never_texts, self._never_version = {}, version
        texts = {}
        for group in never:
            text = self._never_texts.get(group.shape)
            if text is None:
                text = self._never_texts[group.shape] = _never_fits(self.cluster, group.jobs[0])
            texts[group.shape] = text
        return texts

    def _place_requested(self) -> None:
        """Jobs the incident pins to named nodes at the start take exactly those nodes, under the
        same gang rules as any placement (one island, whole nodes, usable, not excluded)."""
        for name in sorted(self._requested, key=self._requested.__getitem__):
            job = self.jobs[name]
            if not job.requested_nodes or job.attempts[-1].number != 1 or job.held:
                continue
            nodes = self.cluster.nodes
            free = {
                name: nodes[name].free_gpus()
                for name in job.requested_nodes
                if name in nodes and nodes[name].schedulable and name not in job.exclude
            }
            placement = place(self.cluster, job, free)
            if placement is not None and {n for n, _ in placement} == set(job.requested_nodes):
                # Ranks fill the nodes in the order the incident lists them.
                placement.sort(key=lambda pair: job.requested_nodes.index(pair[0]))
                self.start_attempt(job, placement)

    def start_attempt(self, job: Job, placement: list[tuple[str, list[int]]]) -> None:
        invariants.check_placement(self, job, placement)
        attempt = job.current
        if attempt is None:
            attempt = Attempt(len(job.attempts) + 1, self.env.now)
            job.attempts.append(attempt)
        attempt.start = self.env.now
        log = job_fields.made(job, "log")  # a job that never logged has nothing to clear
        if log is not None:
            log.silent_from.clear()  # new processes, new logs
        attempt.nodes = [node for node, _ in placement]
        attempt.gpus = sum(len(gpus) for _, gpus in placement)
        job.placement = placement
        for node, gpus in placement:
            self.cluster.nodes[node].allocations[job.name] = list(gpus)
            # New processes, new pids: none is the pid of anything that ran here before.
            for gpu in gpus:
                attempt.pids[(node, gpu)] = self.cluster.nodes[node].spawn()
        self.set_state(job, RUNNING, "")
        if job.training:
            self.env.process(runner.training_attempt(self, job, attempt))
        else:
            self.env.process(runner.background_attempt(self, job, attempt))
        self.faults.job_placed(job)

    def forget(self, job: Job) -> None:
        """Drop a job that never ran (used while drawing the starting background load)."""
        self.jobs.pop(job.name, None)
        self._untrack(job)

    def set_node_state(self, node, state: NodeState, reason: str = "") -> None:
        if state == NodeState.UP and node.taken_healthy_at is not None:
            gpus = len(node.gpus)
            node.healthy_gpu_seconds_taken += (self.env.now - node.taken_healthy_at) * gpus
            node.taken_healthy_at = None
        node.state = state
        node.state_reason = reason
        text = f"{node.name} {state}" + (f": {reason}" if reason else "")
        self.emit(NodeStateChanged(self.env.now, node.name, text, state=state))

    def free(self, job: Job) -> None:
        for name, _ in job.placement:
            node = self.cluster.nodes[name]
            node.allocations.pop(job.name, None)
            if node.state == NodeState.DRAINING and not node.allocations:
                self.set_node_state(node, NodeState.DRAINED, node.state_reason)
        # The scheduler picks up freed GPUs at its next interval, as real ones do.
        job.placement = []

    def end_attempt(
        self,
        job: Job,
        state: JobState,
        why: str,
        *,
        retry: bool = True,
        quiet: bool = False,
        blame: str | None = None,
    ) -> None:
        """End the running attempt; failures requeue while the retry policy allows.

        `quiet` ends the attempt without a state change of its own, for a resubmission that
        sets the next state itself."""
        attempt = job.current
        if attempt is None:
            return
        attempt.ended = True
        attempt.end = self.env.now
        attempt.why = why
        attempt.ended_as = state
        if job.training:
            self.progress_stopped(job, why)
        if not job.yours:
            self._record_kill(job, attempt, why, blame)
        checkpointing.interrupt(self, job, attempt)
        if attempt.stall_wake is not None and not attempt.stall_wake.triggered:
            attempt.stall_wake.succeed()
        self.free(job)
        if quiet:
            return
        if state == PREEMPTED:
            # Slurm's PreemptMode=REQUEUE: back in the queue, not counted as a restart.
            job.resume_from = "latest"
            self.set_state(job, PREEMPTED, why)
            self.env.process(self._requeue_after(job, 0.0))
            return
        if attempt.real_errors:
            # The real processes' own words (the gloo backend): what an operator would read.
            why = f"{why}; the surviving ranks raised: {' | '.join(attempt.real_errors)}"
        if state in (FAILED, NODE_FAIL) and retry and job.restarts_used < job.max_restarts:
            job.restarts_used += 1
            job.resume_from = "latest"  # what the retry policy will load
            self.set_state(job, REQUEUED, why)
            if job.yours:
                self.alert(
                    "warning",
                    job.name,
                    f"{job.name} failed and was restarted automatically"
                    f" ({job.restarts_used} of {job.max_restarts}): {why}",
                )
            self.env.process(self._requeue_after(job, job.restart_backoff))
            return
        if state in (FAILED, NODE_FAIL) and job.max_restarts and retry:
            why = f"{why} (all {job.max_restarts} automatic restarts used)"
        if job.yours and state in (FAILED, NODE_FAIL):
            self.alert("critical", job.name, f"{job.name} {state}: {why}")
        self.set_state(job, state, why)

    def _requeue_after(self, job: Job, delay: float):
        yield self.env.timeout(delay)
        if job.state in (REQUEUED, PREEMPTED):
            why = (
                "requeued after preemption"
                if job.state == PREEMPTED
                else "requeued by retry policy"
            )
            job.resume_from = "latest"
            job.attempts.append(Attempt(len(job.attempts) + 1, self.env.now))
            self.set_state(job, PENDING, why)

    def resubmit(self, job: Job, *, resume_from: int | str | None, why: str) -> None:
        """A person's restart or requeue: a fresh queue entry with a fresh retry budget."""
        if job.current is not None:
            self.end_attempt(job, CANCELLED, why, retry=False, quiet=True)
        job.restarts_used = 0
        job.resume_from = resume_from
        job.attempts.append(Attempt(len(job.attempts) + 1, self.env.now))
        self.set_state(job, PENDING, why)
        # Filed again even when it was pending already: a restart may change its GPUs.
        self._track(job)

    def complete(self, job: Job) -> None:
        attempt = job.current
        if attempt is not None:
            attempt.ended = True
            attempt.end = self.env.now
            attempt.why = "completed"
            attempt.ended_as = COMPLETED
        self.free(job)
        self.set_state(job, COMPLETED, "")
        if job.yours and not self.finished.triggered:
            self.finished.succeed()

    def verify_checkpoint(self, job: Job, record) -> tuple[bool, str]:
        return self.training.verify(job.name, record.step, record.condition)

    def delete_checkpoint(self, job: Job, step: int, by: str) -> None:
        checkpointing.delete(self, job, step, by)

    def checkpoint_read_time(self, job: Job) -> float:
        volume_name = job.checkpoint_policy.volume
        if volume_name and volume_name in self.volumes:
            return self.volumes[volume_name].read_time(checkpointing.checkpoint_size(self, job))
        return runner.CHECKPOINT_READ_TIME

    def step_factor(self, job: Job) -> float:
        """Synchronous data parallel runs at the pace of its slowest rank. Fewer GPUs keep the
        global batch by gradient accumulation, so each step takes proportionally longer."""
        factor = max(1.0, job.gpus / job.world) if job.world else 1.0
        # The gang's GPUs only change pace on a throttle or a new placement, so the slowest
        # GPU is kept until one of those happens: a step then costs no scan of the gang.
        kept = self._gpu_pace.get(job.name)
        if kept is None or kept[0] is not job.placement or kept[1] != Throttles.version:
            kept = (job.placement, Throttles.version, self._slowest_gpu(job))
            self._gpu_pace[job.name] = kept
        slowest = kept[2]
        if self.failures.any_leaf_slowdown():
            for node_name, _ in job.placement:
                leaf = self.cluster.nodes[node_name].leaf
                slowest = max(slowest, self.failures.leaf_slowdown(leaf))
        return factor * slowest

    def fresh_step_factor(self, job: Job) -> float:
        """step_factor from a full scan, nothing kept: what the kept pace must always equal."""
        factor = max(1.0, job.gpus / job.world) if job.world else 1.0
        slowest = self._slowest_gpu(job)
        for node_name, _ in job.placement:
            slowest = max(slowest, self.failures.leaf_slowdown(self.cluster.nodes[node_name].leaf))
        return factor * slowest

    def _slowest_gpu(self, job: Job) -> float:
        slowest = 1.0
        for node_name, gpus in job.placement:
            node_gpus = self.cluster.nodes[node_name].gpus
            for gpu in gpus:
                if node_gpus[gpu].throttles:
                    slowest = max(slowest, node_gpus[gpu].throttled)
        return slowest

    def resume_point(self, job: Job) -> int | None:
        """The checkpoint step the job's next attempt loads, or None for a start from scratch."""
        if job.resume_from is None:
            return None
        if job.resume_from == "latest":
            return job.checkpoints.latest_step
        return int(job.resume_from)

    def jobs_on_gpu(self, node_name: str, gpu: int) -> list[tuple[Job, int]]:
        """The jobs holding this GPU, each with the rank it runs there."""
        found = []
        node = self.cluster.nodes[node_name]
        for job_name, gpus in sorted(node.allocations.items()):
            if gpu in gpus:
                job = self.jobs[job_name]
                ranks = job.ranks_on(node_name)
                found.append((job, ranks[gpus.index(gpu)] if ranks else 0))
        return found

    def pid_on_gpu(self, node_name: str, gpu: int) -> int | None:
        """The pid of the process that runs on this GPU, or None when none does."""
        for job, _ in self.jobs_on_gpu(node_name, gpu):
            pid = pid_on(job, node_name, gpu)
            if pid:
                return pid
        return None

    def rng(self, name: str):
        """A named random stream of this night's seed (drill/sim/rng.py). A variant night draws
        the unknowable streams from the variant's number alone, not the seed: every seed of an
        incident then meets the same other teams and failures on its variant N (common random
        numbers), so two seeds' expectations differ by what the learner saw, not by the draw.
        None is the night itself, unchanged."""
        if self.variant is not None and name.startswith(UNKNOWABLE_STREAMS):
            return substream(self.variant, f"variant:{name}")
        return substream(self.seed, name)

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def describe_wait(self, seconds: float) -> str:
        return format_duration(seconds)


def as_fault_world(world: World) -> FaultWorld[Job]:
    """The world is what a fault kind is handed (drill/faults/world.py). The kinds never import
    this module, so the type checker compares the two here, member by member: a World that
    stops giving a kind what it reads fails mypy on this line."""
    return world


def as_sim_world(world: World) -> SimWorld:
    """The world is what the simulation's own parts are handed (drill/sim/world_view.py), which
    name the protocol, not this module, so that they and world.py do not import each other:
    mypy checks the World against it here."""
    return world


__all__ = [
    "World",
    "as_fault_world",
    "as_sim_world",
    "PROGRESS_ALERT_AFTER",
    "LAUNCHER_MONITOR_INTERVAL",
]

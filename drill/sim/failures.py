"""How the world fails: the mechanics every fault kind shares.

A rank that stops (stall) holds its gang in the collective until the watchdog fires; a rank
whose process dies (crash) is noticed by the launcher a few seconds later; a node that stops
answering (node_down) is marked down after the heartbeat timeout. The fault kinds in
drill/faults decide when and where; this module is what then happens, the same whatever the
cause.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from drill.faults.version_mismatch import FLEET_DRIVER
from drill.sim import flight_recorder
from drill.sim.events import JobLogLine
from drill.sim.jobs import FAILED, NODE_FAIL, RUNNING, Attempt, Job
from drill.sim.shards import is_sharded, watchdog_op
from drill.sim.torchrun import (
    IB_RETRY_WINDOW,
    NCCL_VERSION,
    SIGABRT,
    TERMINATE,
    agent_failed,
    child_failed,
    collective_seq,
    gloo_read_error,
    ib_completion_error,
    nccl_remote_error,
    watchdog_exception,
    watchdog_lines,
)
from drill.states import NodeState
from drill.values.units import format_duration

if TYPE_CHECKING:
    from drill.sim.world_view import SimWorld as World


def rank_place(world: World, job: Job, rank: int) -> tuple[str, int, int]:
    """A rank's node, its local rank there, and its pid (a process per GPU, started fresh)."""
    if not job.placement:
        return "?", 0, 0
    node, gpu = job.rank_location(rank)
    local = dict(job.placement)[node].index(gpu)
    return node, local, pid_on(job, node, gpu)


def pid_on(job: Job, node: str, gpu: int) -> int:
    """The pid of the job's process on that GPU in its current attempt, 0 when none runs."""
    attempt = job.current
    return attempt.pids.get((node, gpu), 0) if attempt is not None else 0


_LOOPBACK = re.compile(r"\[(?:127\.0\.0\.1|::1|localhost)\]")
PROGRESS_ALERT_AFTER = 300.0  # "no progress for 5 minutes", as most training dashboards page
LAUNCHER_MONITOR_INTERVAL = 5.0  # torchrun's agent notices a dead worker within this
STRAGGLER_ALERT_RATIO = 1.3


class Failures:
    def __init__(self, world: World):
        self.world = world
        # Link flaps in progress per leaf: cause -> (step time factor, when it ends or None).
        self._flaps: dict[str, dict[str, tuple[float, float | None]]] = {}

    # -- a rank stops -----------------------------------------------------------------------

    def stall(
        self,
        job: Job,
        rank: int,
        clears_after: float | None = None,
        how: str = "kill",
        cause: str = "",
    ) -> None:
        """A rank stops inside a collective: everyone else waits for it until the timeout.

        `how` says what stopped it: "kill" when its GPU or node is gone from under it, "hang"
        when it is alive but stuck in software. Either way its peers see no closed connection,
        only silence, so the real process behind it (a multi-process replica) is frozen, and
        the real survivors raise their process group's timeout. That timeout and the job's
        collective timeout are one clock: the real one runs in wall seconds, short enough to
        wait for at a keyboard, and stands for the night's (see `_watchdog`), so the night
        stays silent and fails when the sim would, in gloo's words. A stall that clears by
        itself leaves the real processes alone. Stalls compose: the gang moves again only when
        every cause has cleared.
        """
        world = self.world
        attempt = job.current
        if attempt is not None and job.training and not attempt.training:
            attempt.stall_on_start = rank  # the rank hangs as soon as training begins
            attempt.stall_how = how
            return
        if attempt is None or not job.training or not attempt.training:
            return
        cause = cause or f"rank {rank}"
        attempt.stall_causes.add(cause)
        first = attempt.stall_wake is None
        # A rank in a mismatched collective is not stuck outside NCCL: it enqueued its own
        # collective like the rest (attempt.mismatched says which), so it is no hung rank.
        if clears_after is None and how != "mismatch":
            attempt.hung_ranks[rank] = how
            self._real_fault(job, attempt, rank, "hang")
        if first:
            world.progress_stopped(job, f"rank {rank} stopped")
            attempt.stall_wake = world.env.event()
            attempt.stalled_at = world.now
            attempt.stalled_rank = rank
            job.log.silent_from[rank] = world.now
            world.env.process(self._watchdog(job, attempt, rank))
            world.env.process(self._progress_alert(job, attempt))
        if clears_after is not None:
            world.env.process(self._unstall_after(job, attempt, clears_after, cause))

    def _real_fault(self, job: Job, attempt, rank: int, how: str) -> None:
        """Do to the real worker process what the night did to the rank (a multi-process
        replica only), and keep what the surviving processes really raised.

        A killed rank's peers learn at once (the connection closes), as they would on the
        night: their words go in the logs now. A hung rank's peers raised gloo's timeout after
        the real process group timeout, a few wall seconds; on the night they are still
        waiting in the collective, so their words stay unsaid until the collective timeout
        (`_watchdog`), and the first signal stays silence, as on the sim."""
        hook = getattr(self.world.training, "rank_fault", None)
        if hook is None or not job.yours or not attempt.training:
            return
        texts = [self._on_the_fabric(job, rank, t) for t in hook(job.name, rank, job.world, how)]
        if how == "hang":
            attempt.unsaid_errors.extend(texts)
            return
        self._say_real(job, attempt, texts)

    def _on_the_fabric(self, job: Job, rank: int, text: str) -> str:
        """The real workers talk over 127.0.0.1; the job they stand for talks between its
        nodes. A peer that closed the connection is the stopped rank (the survivors that fail
        after it close theirs later), so its loopback address is said as its node's address:
        one job, one network, whatever the backend."""
        node, _, _ = self._where(job, rank)
        address = self.world.cluster.nodes[node].address if node in self.world.cluster.nodes else ""
        return _LOOPBACK.sub(f"[{address}]", text) if address else text

    def _say_real(self, job: Job, attempt, texts: list[str]) -> None:
        """The surviving processes print what they raised: it is in their logs from now, and
        the job as a whole fails when the simulation says it does."""
        attempt.real_errors.extend(texts)
        for text in texts:
            self.world.log(job, None, text)
            self.world.emit(JobLogLine(self.world.now, job.name, text, real=True))

    def _unstall_after(self, job: Job, attempt, delay: float, cause: str):
        yield self.world.env.timeout(delay)
        attempt.stall_causes.discard(cause)
        if attempt.ended or attempt.stall_wake is None or attempt.stall_causes:
            return
        wake = attempt.stall_wake
        attempt.stall_wake = None
        attempt.stalled_at = None
        job.log.silent_from.pop(attempt.stalled_rank, None)
        wake.succeed()

    def _watchdog(self, job: Job, attempt, dead_rank: int):
        """The NCCL watchdog of every rank still running aborts its process at the timeout.

        The stuck rank never enqueued the step's collectives, so it logs nothing; the others
        each name the collective that timed out, and torchrun reports the first of them as
        the root cause. Which rank held them up shows only in each rank's last collective.
        """
        world = self.world
        stalled_at = attempt.stalled_at
        # One clock on every backend: the real gloo processes timed out after the process
        # group timeout in wall seconds, which stands for this collective timeout in night
        # seconds (the night runs faster than the wall). So the job stays silent, the
        # no-progress page comes, and only then the job fails, as on the sim.
        yield world.env.timeout(job.collective_timeout)
        if attempt.ended or attempt.stalled_at != stalled_at:
            return
        real = bool(attempt.unsaid_errors)
        if real:
            texts, attempt.unsaid_errors = attempt.unsaid_errors, []
            self._say_real(job, attempt, texts)
        ms = int(job.collective_timeout * 1000)
        seq = collective_seq(job.step) + 1  # the first collective of the step that never ended
        survivors = [r for r in range(job.world) if r not in attempt.hung_ranks]
        reporter = next((r for r in survivors if r != dead_rank), 0)
        node, local, pid = self._where(job, reporter)
        if real:
            # What the ranks print is what the real processes raised, already in their logs;
            # they exit with it (status 1), and the page quotes them, not the NCCL watchdog.
            world.log(job, None, agent_failed(local, pid, 1))
            world.end_attempt(job, FAILED, child_failed(node, reporter, local, pid, 1, ""))
            return
        sharded = is_sharded(job.training_spec.model_params)
        op = watchdog_op(sharded, seq, job.world)
        for rank in survivors:
            for line in watchdog_lines(rank, seq, ms, self._collective(attempt, rank, op)):
                world.log(job, rank, line)

        def usual(at: int) -> tuple[str, int]:  # what the recorder keeps: the op, NumelIn
            name, numel_in, _ = watchdog_op(sharded, at, job.world)
            return name, numel_in

        job.flight_dumps.append(
            flight_recorder.dump(
                world.now, job, attempt, seq, lambda r: self._where(job, r)[0], usual
            )
        )
        error = watchdog_lines(reporter, seq, ms, self._collective(attempt, reporter, op))[0]
        world.log(job, None, agent_failed(local, pid, SIGABRT))
        world.end_attempt(job, FAILED, child_failed(node, reporter, local, pid, SIGABRT, error))

    def _collective(self, attempt, rank: int, usual: tuple[str, int, int]) -> tuple[str, int, int]:
        """The collective a rank waits in: the job's usual one, or its own (a mismatch)."""
        mismatched = attempt.mismatched.get(rank)
        if mismatched is None:
            return usual
        op, numel = mismatched
        return op, numel, numel

    def _where(self, job: Job, rank: int) -> tuple[str, int, int]:
        """A rank's node, local rank and pid (one process per GPU)."""
        return rank_place(self.world, job, rank)

    def _progress_alert(self, job: Job, attempt):
        world = self.world
        last = job.last_step_time if job.last_step_time is not None else world.now
        delay = max(0.0, last + PROGRESS_ALERT_AFTER - world.now)
        yield world.env.timeout(delay)
        if attempt.ended or attempt.stall_wake is None or not job.yours:
            return
        world.alert(
            "warning",
            job.name,
            f"{job.name}: no training progress for {format_duration(world.now - last)}"
            f" (last step {job.step} at {world.clock.label(last)})",
        )

    # -- new code issues a different collective on some ranks ------------------------------

    def diverge(self, job: Job, divergence) -> None:
        """The job's code version takes another path on some ranks (collective_mismatch): the
        attempt running it now hangs, and so does every later one on the same version."""
        job.divergence = divergence
        attempt = job.current
        if attempt is not None and attempt.training and job.code_version == divergence.version:
            self._mismatch(job, attempt)

    def _mismatch(self, job: Job, attempt) -> None:
        divergence = job.divergence
        if attempt.ended or attempt.crashed or attempt.stall_wake is not None:
            return
        for rank in divergence.ranks:
            if rank < job.world:
                attempt.mismatched[rank] = (divergence.op, divergence.numel)
        if attempt.mismatched:
            first = min(attempt.mismatched)
            self.stall(job, first, how="mismatch", cause=divergence.cause)

    def _diverge_later(self, job: Job, attempt: Attempt):
        """The code path comes round again `after_steps` steps into an attempt on the version."""
        steps = job.divergence.after_steps
        yield self.world.env.timeout(steps * job.step_time * self.world.step_factor(job) + 1.0)
        if job.current is attempt and attempt.training:
            self._mismatch(job, attempt)

    # -- a gang's NCCL start-up never completes ---------------------------------------------

    def hang_in_startup(self, job: Job, attempt, node_name: str):
        """A SimPy process: a gang with a node of another driver and NCCL (version_mismatch)
        never gets through NCCL's start-up. The watchdog watches collectives, and none has been
        issued, so nothing times out: the attempt stays starting until someone stops it."""
        world = self.world
        attempt.startup_hung_on = node_name
        for name in job.nodes:
            node = world.cluster.nodes[name]
            driver, nccl = node.image_mismatch or (FLEET_DRIVER, NCCL_VERSION)
            rank = job.ranks_on(name)[0]
            # The training script's own start-up line, written by each node's first rank.
            world.log(job, rank, f"[rank{rank}] {name}: driver {driver}, CUDA 12.4, NCCL {nccl}")
        world.progress_stopped(job, f"start-up hung on {node_name}")
        attempt.stall_wake = world.env.event()
        world.env.process(self._startup_alert(job, attempt))
        yield attempt.stall_wake

    def _startup_alert(self, job: Job, attempt):
        world = self.world
        last = job.last_step_time if job.last_step_time is not None else attempt.start
        yield world.env.timeout(max(0.0, last + PROGRESS_ALERT_AFTER - world.now))
        if attempt.ended or not job.yours:
            return
        since = (
            f"last step {job.step} at {world.clock.label(last)}"
            if job.last_step_time is not None
            else f"no step since it was placed at {world.clock.label(last)}"
        )
        world.alert(
            "warning",
            job.name,
            f"{job.name}: no training progress for {format_duration(world.now - last)} ({since})",
        )

    # -- a rank's process dies --------------------------------------------------------------

    def crash(self, job: Job, rank: int, error: str, exitcode: int = 1, reported: str = "") -> None:
        """A rank's process dies; the launcher sees it within its monitor interval.

        `error` is what the process printed as it died; a process killed by a signal
        (a negative `exitcode`) prints nothing, and only the launcher says how it ended.
        `reported`: what the page quotes when the process logged its own lines before an
        abort (the NCCL watchdog's), which are then already in the log.
        """
        world = self.world
        attempt = job.current
        if attempt is None:
            return
        node, local, pid = self._where(job, rank)
        text = f"[rank{rank}]: RuntimeError: {error}" if error else ""
        if text:
            world.log(job, rank, text)
        job.log.silent_from[rank] = world.now
        if job.training and attempt.training:
            world.progress_stopped(job, f"rank {rank} died")
        attempt.crashed = True  # the others block in the next collective: no more steps
        self._real_fault(job, attempt, rank, "kill")

        def notice():
            yield world.env.timeout(LAUNCHER_MONITOR_INTERVAL)
            if attempt.ended:
                return
            world.log(job, None, agent_failed(local, pid, exitcode))
            quoted = text or reported
            world.end_attempt(job, FAILED, child_failed(node, rank, local, pid, exitcode, quoted))

        world.env.process(notice())

    # -- a node stops answering -------------------------------------------------------------

    def node_down(
        self, node_name: str, duration: float | None, persists: bool, cause: str = "down"
    ) -> None:
        """The node stops answering. Causes compose: it answers again only when every
        transient one has passed, and never by itself after a lasting one."""
        world = self.world
        node = world.cluster.nodes[node_name]
        node.dead_until_swap = node.dead_until_swap or persists
        if duration is not None:
            world.env.process(self._node_returns(node_name, duration, cause))
        already = not node.responsive
        node.down_causes.add(cause)
        if already:
            return
        node.responsive = False
        node.last_heartbeat = world.now
        for job_name in sorted(node.allocations):
            job = world.jobs[job_name]
            ranks = job.ranks_on(node_name)
            if job.training and ranks:
                self.stall(job, ranks[0], cause=f"node {node_name}")
        world.env.process(self._heartbeat_timeout(node_name))

    def _heartbeat_timeout(self, node_name: str):
        world = self.world
        node = world.cluster.nodes[node_name]
        since = node.last_heartbeat
        yield world.env.timeout(world.incident.cluster.heartbeat_timeout)
        if node.responsive or node.last_heartbeat != since:
            return
        world.set_node_state(node, NodeState.DOWN, "not responding")
        mine = any(world.jobs[j].yours for j in node.allocations)
        world.alert(
            "critical" if mine else "warning",
            node_name,
            f"{node_name} not responding: no heartbeat since {world.clock.label(since)}",
        )
        for job_name in sorted(node.allocations):
            world.end_attempt(
                world.jobs[job_name], NODE_FAIL, f"node {node_name} failed (no heartbeat)"
            )

    def _node_returns(self, node_name: str, delay: float, cause: str):
        yield self.world.env.timeout(delay)
        node = self.world.cluster.nodes[node_name]
        node.down_causes.discard(cause)
        if node.down_causes or node.dead_until_swap:
            return
        if node.responsive or node.state != NodeState.DOWN:
            return
        node.responsive = True  # slurmd answers again; nothing the kernel would print
        self.world.set_node_state(node, NodeState.UP, "returned to service")

    # -- the cluster's own health automation -------------------------------------------------

    def repaired_by_automation(self, node_name: str, duration: float | None, cause: str) -> None:
        """A large run's health automation (random_failures): a node whose GPU or NIC failed is
        drained at once, on a live host, so no new work lands on it; the work on it ends as the
        fault makes it end. After `duration` the part is reset or replaced and the node is back;
        without one it stays drained."""
        world = self.world
        node = world.cluster.nodes[node_name]
        if node.state == NodeState.UP:
            state = NodeState.DRAINING if node.allocations else NodeState.DRAINED
            world.set_node_state(node, state, f"drained by the cluster's health check: {cause}")
            # The check tells the on-call what it did: someone files the repair and watches
            # the job come back.
            world.alert(
                "warning", node_name, f"{node_name}: drained by the health check after {cause}"
            )
        if duration is not None:
            world.env.process(self._automation_returns(node_name, duration))

    def _automation_returns(self, node_name: str, delay: float):
        yield self.world.env.timeout(delay)
        node = self.world.cluster.nodes[node_name]
        while node.allocations and node.state == NodeState.DRAINING:
            yield self.world.env.timeout(60.0)  # the repair starts once the node is empty
        for gpu in node.gpus:
            gpu.broken, gpu.xid, gpu.needs_reset, gpu.remap_pending = False, None, False, False
        if node.state in (NodeState.DRAINING, NodeState.DRAINED):
            self.world.set_node_state(node, NodeState.UP, "repaired by the cluster's automation")

    # -- slow work --------------------------------------------------------------------------

    def slow_alert(self, job: Job, factor: float):
        """A SimPy process: page about a job's step time once the slowdown shows in it."""
        world = self.world
        yield world.env.timeout(job.step_time * factor * 3)
        if job.state == RUNNING and world.step_factor(job) >= STRAGGLER_ALERT_RATIO:
            world.alert(
                "warning",
                job.name,
                f"{job.name}: step time {job.step_time * world.step_factor(job):.0f}s,"
                f" usually {job.step_time:.0f}s",
            )

    # -- a leaf switch flaps ----------------------------------------------------------------

    def flap_leaf(self, leaf: str, cause: str, slowdown: float, duration: float | None) -> None:
        world = self.world
        until = None if duration is None else world.now + duration
        self._flaps.setdefault(leaf, {})[cause] = (slowdown, until)
        for job in list(world.running_jobs()):
            if job.training and job.current is not None and job.current.training:
                self._flap_hits(job, leaf, cause)
        if duration is not None:
            world.env.process(self._flap_settles(leaf, cause, duration))

    def _flap_settles(self, leaf: str, cause: str, delay: float):
        yield self.world.env.timeout(delay)
        self._flaps.get(leaf, {}).pop(cause, None)

    def _flap_hits(self, job: Job, leaf: str, cause: str) -> None:
        """A gang behind a flapping leaf: when the link stays down past InfiniBand's retry
        window, NCCL on a rank behind it fails within seconds; a shorter flap only slows it."""
        behind = [n for n in job.nodes if self.world.cluster.nodes[n].leaf == leaf]
        if not behind:
            return
        slowdown, until = self._flaps[leaf][cause]
        remaining = None if until is None else until - self.world.now
        if remaining is None or remaining >= IB_RETRY_WINDOW:
            # No collective crosses the leaf meanwhile: the gang makes no steps.
            rank = job.ranks_on(behind[0])[0]
            held = remaining if remaining is not None else IB_RETRY_WINDOW * 2
            self.link_lost(job, behind[0], rank, f"{cause} on {leaf}", held)
        elif job.yours:
            self.world.env.process(self.slow_alert(job, slowdown))

    def link_lost(self, job: Job, node_name: str, rank: int, cause: str, held: float) -> None:
        """A rank's InfiniBand link is down for `held` seconds: no collective completes
        meanwhile, and once the link stays down past the retry window NCCL gives up."""
        self.stall(job, rank, clears_after=held, cause=cause)
        self.world.env.process(self._ib_retries_exhausted(job, job.current, rank, node_name))

    def _ib_retries_exhausted(self, job: Job, attempt, rank: int, node_name: str):
        yield self.world.env.timeout(IB_RETRY_WINDOW)
        if attempt is None or attempt.ended or attempt.crashed or job.current is not attempt:
            return
        nodes = self.world.cluster.nodes
        peers = [n for n in job.nodes if n != node_name] or [node_name]
        local, peer = nodes[node_name], nodes[peers[0]]
        pid = rank_place(self.world, job, rank)[2]
        # NCCL's proxy thread: a thread id comes from the same numbers as a pid.
        self.network_error(
            job, rank, peer.address, ib_completion_error(local, peer, rank, pid, local.spawn()),
            nccl_remote_error(local, peer),
        )  # fmt: skip

    def speaks_gloo(self, job: Job) -> bool:
        """Whether this job's collectives are the real gloo replica's (`--backend gloo`, the
        learner's job only): its texts are then all gloo's, since one job cannot print an
        NCCL/InfiniBand line from one rank and a gloo TCP line from another."""
        return job.yours and getattr(self.world.training, "backend", "") == "gloo"

    def network_error(self, job: Job, rank: int, peer_address: str, warn: str, raised: str) -> None:
        """A rank's link to a peer gives up. On NCCL the rank logs `warn` (the transport's
        warning) and raises `raised`; on gloo it raises gloo's TCP read error, with no
        warning first, as gloo prints none."""
        if self.speaks_gloo(job):
            self.crash(job, rank, gloo_read_error(peer_address))
            return
        # NCCL reports the error asynchronously: the watchdog thread catches it and the
        # process aborts, so the exit is SIGABRT and the page quotes the watchdog's line.
        caught = watchdog_exception(rank, raised)
        self.world.log(job, rank, warn)
        self.world.log(job, rank, caught)
        self.world.log(job, rank, TERMINATE)
        self.crash(job, rank, "", exitcode=SIGABRT, reported=caught)

    def training_started(self, job: Job) -> None:
        """A gang that starts training behind a leaf that is still flapping is hit too, and one
        on a code version that issues a mismatched collective meets it again."""
        divergence = job.divergence
        if divergence is not None and divergence.version == job.code_version and job.current:
            self.world.env.process(self._diverge_later(job, job.current))
        leaves = {self.world.cluster.nodes[n].leaf for n in job.nodes}
        for leaf in sorted(leaf for leaf in leaves if leaf in self._flaps):
            for cause in sorted(self._flaps[leaf]):
                self._flap_hits(job, leaf, cause)

    def leaf_flapping(self, leaf: str) -> bool:
        """Whether the leaf is still going down and up."""
        return bool(self._flaps.get(leaf))

    def any_leaf_slowdown(self) -> bool:
        """Whether any leaf is flapping now (most nights none is, and a step skips the leaves)."""
        return any(self._flaps.values())

    def leaf_slowdown(self, leaf: str | None) -> float:
        flaps = self._flaps.get(leaf, {}) if leaf else {}
        return max((factor for factor, _ in flaps.values()), default=1.0)

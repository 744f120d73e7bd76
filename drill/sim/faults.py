"""Fault primitives an incident schedules, and the signals each one leaves.

A fault never announces itself. A GPU that falls off the bus leaves an Xid in the node's kernel
log and a rank that stops; the job hangs until its collective timeout and fails with a watchdog
message; a retry that lands on the same GPU fails at start-up. The learner reads the signals.

Fire times (with seeded jitter) are fixed when the night is built, so a reference solution can
name them; targets chosen by a selector are drawn when the fault fires, from the placement of
that moment, with the fault's own seeded stream.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from drill.incident.models import Fault
from drill.incident.units import format_duration
from drill.sim.cluster import APP_XIDS, XID_NAMES
from drill.sim.jobs import FAILED, NODE_FAIL, RUNNING, Job
from drill.sim.rng import substream
from drill.sim.runner import xid_line

if TYPE_CHECKING:
    from drill.sim.world import World

PERSISTENT_XIDS = {48, 79}  # hardware that a reboot does not fix: drain and swap
CRASHING_XIDS = {13, 31, 43, 48, 94, 95}  # the process on that GPU dies; 79 leaves it stuck
XID_PROCESS_ERRORS = {
    13: "CUDA error: an illegal memory access was encountered",
    31: "CUDA error: an illegal memory access was encountered",
    43: "CUDA error: unspecified launch failure",
    48: "CUDA error: uncorrectable ECC error encountered",
    94: "CUDA error: uncorrectable ECC error encountered",
    95: "CUDA error: uncorrectable ECC error encountered",
}
STRAGGLER_ALERT_RATIO = 1.3


class FaultSchedule:
    def __init__(self, world: World):
        self.world = world
        self.times: dict[str, float] = {}
        self.chosen: dict[str, list[dict[str, Any]]] = {}
        self.fired: set[str] = set()
        self._leaf_slow: dict[str, float] = {}
        jitter_rng = substream(world.seed, "fault-jitter")
        for fault in world.incident.faults:
            base = world.moment(fault.at)
            # Whole seconds: a time a person can read on the clock and type back.
            self.times[fault.id] = float(round(base + jitter_rng.uniform(0, fault.jitter)))

    def start(self) -> None:
        for fault in self.world.incident.faults:
            self.world.env.process(self._fire_at(fault))
        for noise in self.world.incident.noise:
            self.world.env.process(self._noise_at(noise))

    def leaf_slowdown(self, leaf: str | None) -> float:
        return self._leaf_slow.get(leaf, 1.0) if leaf else 1.0

    # -- firing -----------------------------------------------------------------------------

    def _noise_at(self, noise):
        yield self.world.env.timeout(self.world.moment(noise.at))
        self.world.alert(noise.severity, noise.source, noise.text, noise=True)

    def _fire_at(self, fault: Fault):
        env = self.world.env
        yield env.timeout(max(0.0, self.times[fault.id] - env.now))
        if fault.kind == "random_failures":
            yield from self._random_failures(fault)
            return
        if fault.kind == "corrupt_checkpoint":
            self._corrupt_checkpoint(fault)
            return
        picks = self._select(fault)
        self.chosen[fault.id] = picks
        self.fired.add(fault.id)
        self.world.emit("fault", fault.id, f"fault {fault.id} ({fault.kind})", hidden=True)
        for pick in picks:
            self._apply(fault, pick)

    def _apply(self, fault: Fault, pick: dict[str, Any]) -> None:
        world = self.world
        node = world.cluster.nodes[pick["node"]]
        job = world.jobs.get(pick["job"]) if pick.get("job") else None
        rank = pick.get("rank")
        if fault.kind == "gpu_xid":
            self._gpu_xid(fault, node.name, pick["gpu"])
        elif fault.kind == "kill_rank":
            node.kernel_log.append(
                (world.now, f"Out of memory: Killed process {node.pid_base + pick['gpu']} (python)")
            )
            for victim, victim_rank in self._jobs_on_gpu(node.name, pick["gpu"]):
                self._crash(victim, victim_rank, "exitcode: -9, Signals.SIGKILL")
        elif fault.kind == "hang_rank":
            if job is not None and rank is not None and job.state == RUNNING:
                self.stall(job, rank, how="hang")
        elif fault.kind == "node_down":
            self.node_down(node.name, fault.duration, fault.persists_after_reboot is True)
        elif fault.kind == "straggler":
            self._straggler(fault, node.name, pick["gpu"])
        elif fault.kind == "link_flap":
            self._link_flap(fault, pick["leaf"])

    # -- target selection -------------------------------------------------------------------

    def _select(self, fault: Fault) -> list[dict[str, Any]]:
        world = self.world
        rng = substream(world.seed, f"target:{fault.id}")
        target = fault.target
        candidates: list[dict[str, Any]] = []
        if target.job:
            job = world.jobs[target.job]
            placement = job.placement or [
                (n, list(range(world.cluster.gpus_per_node)))
                for n in (job.attempts[-1].nodes if job.attempts else [])
            ]
            rank = 0
            for node, gpus in placement:
                for gpu in gpus:
                    leaf = world.cluster.nodes[node].leaf
                    candidates.append(
                        {"job": job.name, "rank": rank, "node": node, "gpu": gpu, "leaf": leaf}
                    )
                    rank += 1
            if target.rank is not None:
                candidates = [c for c in candidates if c["rank"] == target.rank] or candidates[:1]
        else:
            nodes = [n for n in world.cluster.in_service()]
            if target.node:
                nodes = [world.cluster.nodes[target.node]]
            elif target.leaf:
                nodes = [n for n in nodes if n.leaf == target.leaf]
            elif target.island:
                nodes = [n for n in nodes if n.island == target.island]
            for node in nodes:
                gpu = rng.randrange(node.gpu_count) if fault.kind in ("gpu_xid", "straggler") else 0
                owner = self._jobs_on_gpu(node.name, gpu)
                job_name, job_rank = (owner[0][0].name, owner[0][1]) if owner else (None, None)
                candidates.append(
                    {
                        "job": job_name,
                        "rank": job_rank,
                        "node": node.name,
                        "gpu": gpu,
                        "leaf": node.leaf,
                    }
                )
        if fault.kind in ("node_down",):
            candidates = _unique_by(candidates, "node")
        if fault.kind == "link_flap":
            candidates = _unique_by(candidates, "leaf")
            if target.leaf:
                candidates = [
                    {"leaf": target.leaf, "node": world.cluster.leaves[target.leaf][1][0]}
                ]
        if not candidates:
            return []
        count = _selection_size(target, len(candidates))
        return [candidates[i] for i in sorted(rng.sample(range(len(candidates)), count))]

    def _jobs_on_gpu(self, node_name: str, gpu: int) -> list[tuple[Job, int]]:
        found = []
        node = self.world.cluster.nodes[node_name]
        for job_name, gpus in sorted(node.allocations.items()):
            if gpu in gpus:
                job = self.world.jobs[job_name]
                ranks = job.ranks_on(node_name)
                found.append((job, ranks[gpus.index(gpu)] if ranks else 0))
        return found

    # -- the primitives ---------------------------------------------------------------------

    def _gpu_xid(self, fault: Fault, node_name: str, gpu_index: int) -> None:
        world = self.world
        node = world.cluster.nodes[node_name]
        gpu = node.gpus[gpu_index]
        xid = fault.xid or 79
        node.kernel_log.append((world.now, xid_line(gpu.bus_id, xid, node.pid_base + gpu_index)))
        persists = fault.persists_after_reboot
        if persists is None:
            persists = xid in PERSISTENT_XIDS
        if xid not in APP_XIDS and xid != 94:
            gpu.broken = True
            gpu.xid = xid
            gpu.clears_on_reboot = not persists
        for job, rank in self._jobs_on_gpu(node_name, gpu_index):
            if xid in CRASHING_XIDS or xid not in XID_NAMES:
                self._crash(job, rank, XID_PROCESS_ERRORS.get(xid, "CUDA error: unknown error"))
            elif job.training:
                self.stall(job, rank)

    def stall(
        self, job: Job, rank: int, clears_after: float | None = None, how: str = "kill"
    ) -> None:
        """A rank stops inside a collective: everyone else waits for it until the timeout.

        `how` says what happens to the real process behind that rank, when there is one: "kill"
        when it is gone (its GPU fell off the bus, its node stopped), "hang" when it is alive
        but stuck in software. A stall that clears by itself leaves the real processes alone.
        """
        world = self.world
        attempt = job.current
        if attempt is not None and job.training and not attempt.training:
            attempt.stall_on_start = rank  # the rank hangs as soon as training begins
            attempt.stall_how = how
            return
        if attempt is None or not job.training or not attempt.training or attempt.stall_wake:
            return
        attempt.stall_wake = world.env.event()
        attempt.stalled_at = world.now
        attempt.stalled_rank = rank
        world.logs[job.name].silent_from[rank] = world.now
        world.env.process(self._watchdog(job, attempt, rank))
        world.env.process(self._progress_alert(job, attempt))
        if clears_after is not None:
            world.env.process(self._unstall_after(job, attempt, clears_after))
        else:
            self._real_fault(job, attempt, rank, how)

    def _real_fault(self, job: Job, attempt, rank: int, how: str) -> None:
        """Do to the real worker process what the night did to the rank (a multi-process
        replica only), and keep what the surviving processes really raised."""
        hook = getattr(self.world.training, "rank_fault", None)
        if hook is None or not job.yours or not attempt.training:
            return
        texts = hook(job.name, rank, job.world, how)
        attempt.real_errors.extend(texts)
        for text in texts:
            # The surviving processes print this the moment they raise: it is in their logs
            # now, while the job as a whole fails when the simulation says it does.
            self.world.log(job, None, text)
            self.world.emit("job_log", job.name, text, real=True)

    def _unstall_after(self, job: Job, attempt, delay: float):
        yield self.world.env.timeout(delay)
        if attempt.ended or attempt.stall_wake is None:
            return
        wake = attempt.stall_wake
        attempt.stall_wake = None
        attempt.stalled_at = None
        self.world.logs[job.name].silent_from.pop(attempt.stalled_rank, None)
        wake.succeed()

    def _watchdog(self, job: Job, attempt, dead_rank: int):
        world = self.world
        stalled_at = attempt.stalled_at
        yield world.env.timeout(job.collective_timeout)
        if attempt.ended or attempt.stalled_at != stalled_at:
            return
        ms = int(job.collective_timeout * 1000)
        seq = job.step * 4 + 3  # a few collectives per step; any stable number reads true
        survivors = [r for r in range(job.world) if r != dead_rank]
        for rank in survivors:
            world.log(
                job,
                rank,
                f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq},"
                f" OpType=ALLREDUCE, NumelIn=8388608, NumelOut=8388608, Timeout(ms)={ms}) ran for"
                f" {ms + 17} milliseconds before timing out.",
            )
        reporter = survivors[0] if survivors else 0
        world.end_attempt(
            job,
            FAILED,
            f"[Rank {reporter}] Watchdog caught collective operation timeout: ALLREDUCE"
            f" (SeqNum={seq}) ran for {format_duration(job.collective_timeout)},"
            f" Timeout(ms)={ms}; {len(survivors)} of {job.world} ranks reported it",
        )

    def _progress_alert(self, job: Job, attempt):
        from drill.sim.world import PROGRESS_ALERT_AFTER

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

    def _crash(self, job: Job, rank: int, error: str) -> None:
        """A rank's process dies; the launcher sees it within its monitor interval."""
        world = self.world
        attempt = job.current
        if attempt is None:
            return
        node, gpu = job.rank_location(rank) if job.placement else ("?", 0)
        pid = world.cluster.nodes[node].pid_base + gpu if node in world.cluster.nodes else 0
        world.log(job, rank, f"[rank {rank}] RuntimeError: {error}")
        world.logs[job.name].silent_from[rank] = world.now
        self._real_fault(job, attempt, rank, "kill")

        def notice():
            from drill.sim.world import LAUNCHER_MONITOR_INTERVAL

            yield world.env.timeout(LAUNCHER_MONITOR_INTERVAL)
            if attempt.ended:
                return
            world.end_attempt(
                job,
                FAILED,
                f"ChildFailedError: rank {rank} (local_rank {gpu}) on {node} failed"
                f" (pid {pid}): {error}",
            )

        world.env.process(notice())

    def node_down(self, node_name: str, duration: float | None, persists: bool) -> None:
        world = self.world
        node = world.cluster.nodes[node_name]
        if not node.responsive:
            return
        node.responsive = False
        node.last_heartbeat = world.now
        node.dead_until_swap = persists
        for job_name in sorted(node.allocations):
            job = world.jobs[job_name]
            ranks = job.ranks_on(node_name)
            if job.training and ranks:
                self.stall(job, ranks[0])
        world.env.process(self._heartbeat_timeout(node_name))
        if duration is not None:
            world.env.process(self._node_returns(node_name, duration))

    def _heartbeat_timeout(self, node_name: str):
        world = self.world
        node = world.cluster.nodes[node_name]
        since = node.last_heartbeat
        yield world.env.timeout(world.incident.cluster.heartbeat_timeout)
        if node.responsive or node.last_heartbeat != since:
            return
        world.set_node_state(node, "down", "not responding")
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

    def _node_returns(self, node_name: str, delay: float):
        yield self.world.env.timeout(delay)
        node = self.world.cluster.nodes[node_name]
        if node.responsive or node.state != "down":
            return
        node.responsive = True
        node.kernel_log.append((self.world.now, "kernel: Linux version booted; node registered"))
        self.world.set_node_state(node, "up", "returned to service")

    def _straggler(self, fault: Fault, node_name: str, gpu_index: int) -> None:
        world = self.world
        node = world.cluster.nodes[node_name]
        gpu = node.gpus[gpu_index]
        gpu.throttled = fault.slowdown
        node.kernel_log.append(
            (world.now, f"GPU {gpu.bus_id}: clocks throttled (HW Slowdown: Active, thermal)")
        )
        for job, _rank in self._jobs_on_gpu(node_name, gpu_index):
            if job.yours:
                world.env.process(self._slow_alert(job, fault.slowdown))
        if fault.duration is not None:
            world.env.process(self._restore_gpu(node_name, gpu_index, fault.duration))

    def _slow_alert(self, job: Job, factor: float):
        world = self.world
        yield world.env.timeout(job.step_time * factor * 3)
        if job.state == RUNNING and world.step_factor(job) >= STRAGGLER_ALERT_RATIO:
            world.alert(
                "warning",
                job.name,
                f"{job.name}: step time {job.step_time * world.step_factor(job):.0f}s,"
                f" usually {job.step_time:.0f}s",
            )

    def _restore_gpu(self, node_name: str, gpu_index: int, delay: float):
        yield self.world.env.timeout(delay)
        self.world.cluster.nodes[node_name].gpus[gpu_index].throttled = 1.0

    def _link_flap(self, fault: Fault, leaf: str) -> None:
        world = self.world
        _, members = world.cluster.leaves[leaf]
        for name in members:
            node = world.cluster.nodes[name]
            node.link_events += 6
            node.kernel_log.append((world.now, "mlx5_core: mlx5_port_change: Link down"))
            node.kernel_log.append((world.now, "mlx5_core: mlx5_port_change: Link up"))
        self._leaf_slow[leaf] = fault.slowdown
        for job in list(world.running_jobs()):
            behind = [n for n in job.nodes if world.cluster.nodes[n].leaf == leaf]
            if not behind or not job.training:
                continue
            if fault.duration is None or fault.duration >= job.collective_timeout:
                self.stall(job, job.ranks_on(behind[0])[0], clears_after=fault.duration)
            elif job.yours:
                world.env.process(self._slow_alert(job, fault.slowdown))
        if fault.duration is not None:
            world.env.process(self._flap_ends(leaf, fault.duration))

    def _flap_ends(self, leaf: str, delay: float):
        yield self.world.env.timeout(delay)
        self._leaf_slow.pop(leaf, None)

    def _corrupt_checkpoint(self, fault: Fault) -> None:
        """Bit rot or a bad disk: bytes of the newest good checkpoint change after it was written."""
        world = self.world
        name = fault.target.job or world.incident.learner_job.name
        catalog = world.checkpoints.get(name)
        good = [r for r in catalog.live() if r.condition == "ok"] if catalog else []
        self.fired.add(fault.id)
        if not good:
            self.chosen[fault.id] = []
            return
        record = good[-1]
        record.condition = "corrupt"
        seed = substream(world.seed, f"corrupt:{fault.id}").randrange(2**31)
        world.training.corrupt(name, record.step, seed)
        self.chosen[fault.id] = [{"job": name, "step": record.step, "node": None, "gpu": None}]
        world.emit("fault", fault.id, f"fault {fault.id} (corrupt_checkpoint)", hidden=True)

    def _random_failures(self, fault: Fault):
        world = self.world
        rng = substream(world.seed, f"random-failures:{fault.id}")
        mtbf = fault.mtbf or world.incident.cluster.mtbf
        if not mtbf:
            return
        self.chosen[fault.id] = []
        self.fired.add(fault.id)
        while True:
            live = [n for n in world.cluster.in_service() if n.responsive and n.state == "up"]
            if not live:
                return
            yield world.env.timeout(rng.expovariate(len(live) / mtbf))
            live = [n for n in world.cluster.in_service() if n.responsive and n.state == "up"]
            if not live:
                return
            node = live[rng.randrange(len(live))]
            self.chosen[fault.id].append({"node": node.name, "leaf": node.leaf, "gpu": 0})
            node.kernel_log.append(
                (world.now, "mce: [Hardware Error]: Machine check events logged")
            )
            self.node_down(node.name, fault.duration, persists=False)


def _unique_by(items: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    seen: set = set()
    out = []
    for item in items:
        if item.get(key) not in seen:
            seen.add(item.get(key))
            out.append(item)
    return out


def _selection_size(target, available: int) -> int:
    if target.select == "all":
        return available
    if target.select == "count":
        return min(available, target.count or 1)
    if target.select == "percent":
        return max(1, min(available, round(available * (target.percent or 100) / 100)))
    return 1

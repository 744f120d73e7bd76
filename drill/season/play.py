"""Play a season: weeks of a fleet's failures, with the learner's standing policies acting.

The season runs in the same simulated world as a night (drill/sim/world.py), with the season's
length as the world's horizon instead of the night's, the night's own faults left out, and
interruptions striking nodes at random at the season's MTBF (times its `scale`, the nodes of a
bigger fleet each node stands for) with the season's mix of causes, by default the published
account's (drill/values/failure_account.py). What strikes is a fault kind of drill/faults (an
Xid, a link flap, a node that stops answering), so a season fails the way a night does; two
causes are the season's own: a NIC or host port that goes down (one node off the fabric until
it is repaired, its leaf untouched) and silent data corruption (nothing fails; the loss shows it
`sdc_found_after` later, and the job goes back to the newest checkpoint it kept from before the
corruption). Nobody is at the keyboard: the policies act at once, and an on-call person acts
after the season's response time when the policies leave it to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from drill.errors import UserError
from drill.faults import KINDS, Pick
from drill.faults.gpu_xid import GpuXid
from drill.faults.link_flap import LinkFlap
from drill.incident.models import Incident, check_season_world, season_world
from drill.incident.season import HARDWARE_CAUSES, Policies, Season
from drill.season.progress import kept_steps, training
from drill.sim import checkpointing, operations
from drill.sim.exposure import Exposure
from drill.sim.failures import Failures, rank_place
from drill.sim.jobs import FAILED, NODE_FAIL, REQUEUED, Job
from drill.sim.rng import substream
from drill.sim.torchrun import ib_completion_error, nccl_remote_error
from drill.sim.world import World
from drill.states import NodeState

XID_OF = {"gpu": 79, "gpu_memory": 48, "software": 13}
SAMPLE_EVERY = 3600.0  # the season's curve and its storage figures are read hourly


@dataclass(frozen=True)
class Strike:
    time: float
    cause: str
    node: str
    hit: bool  # it struck the learner's job
    kept_before: float  # training seconds the job kept just before it struck (work in flight too)
    kept_after: float  # and just after: what it keeps unless the stall clears by itself
    attempt: int | None  # the job's attempt it struck, if one was under way


def season_of(incident: Incident) -> Season:
    if incident.season is None:
        raise ValueError(f"incident {incident.id} has no `season:` section")
    return incident.season


def prepared(incident: Incident, policies: Policies) -> Incident:
    """The incident as the season's world sees it (drill/incident/models.py), validated
    again with the season's bounds: policies given on the command line (`--set`) change it
    after the file's own check, so a rule they break is a one-line error naming the policy."""
    season_of(incident)
    world = season_world(incident, policies)
    broken = check_season_world(world)
    if broken is not None:
        message, where = broken
        field = ".".join(str(part) for part in where)
        raise UserError(f"{incident.id}: the season's world breaks a rule at {field}: {message}")
    return world


class SeasonFailures(Failures):
    """A night's failures, and a node whose NIC is down: a gang that starts training on it fails
    in NCCL at its first collective, as one that crosses a dead port does."""

    def training_started(self, job: Job) -> None:
        super().training_started(job)
        ports_down = getattr(self.world, "ports_down", set())
        dead = [name for name in job.nodes if name in ports_down]
        if dead:
            nic_fails(self.world, job, dead[0])


def nic_fails(world: World, job: Job, node_name: str) -> None:
    """The rank on the node whose port went down raises NCCL's InfiniBand error."""
    attempt = job.current
    if attempt is None or attempt.ended or attempt.crashed or not attempt.training:
        return
    nodes = world.cluster.nodes
    rank = job.ranks_on(node_name)[0]
    peers = [n for n in job.nodes if n != node_name] or [node_name]
    local, peer = nodes[node_name], nodes[peers[0]]
    pid = rank_place(world, job, rank)[2]
    world.failures.network_error(
        job, rank, peer.address, ib_completion_error(local, peer, rank, pid, local.spawn()),
        nccl_remote_error(local, peer),
    )  # fmt: skip


class Unscored(Exposure):
    """A season has no learner at the keyboard and no night's score, so nothing a page shows is
    evidence against anyone: the night's exposure ticker (most of a season's engine time while a
    node stays broken) never starts."""

    def paged(self, alert) -> None:
        return


class SeasonWorld(World):
    """The world, with the standing policies and the on-call person watching the learner's job."""

    def __init__(self, incident: Incident, seed: int, season: Season, policies: Policies):
        self.season = season
        self.policies = policies
        self.strikes: list[Strike] = []
        self.under_repair: set[str] = set()
        self.ports_down: set[str] = set()  # nodes whose NIC is down until repaired
        self._failed_nodes: list[str] = []
        super().__init__(incident, seed)
        self.failures = SeasonFailures(self)  # nothing has run yet: no flap to carry over
        self.exposure = Unscored(self)
        self.mine: Job = self.jobs[incident.learner_job.name]
        self.env.process(self._strikes())

    # -- what strikes -----------------------------------------------------------------------

    def _strikes(self):
        season = self.season
        mtbf = season.mtbf or self.incident.cluster.mtbf
        if not mtbf:
            return
        rng = substream(self.seed, "season-strikes")
        causes = [c.cause for c in season.causes]
        shares = [c.share for c in season.causes]
        count = 0
        while True:
            live = self._live()
            if not live:
                yield self.env.timeout(SAMPLE_EVERY)
                continue
            yield self.env.timeout(rng.expovariate(len(live) * season.scale / mtbf))
            live = self._live()
            if not live:
                continue
            node = live[rng.randrange(len(live))]
            cause = rng.choices(causes, weights=shares)[0]
            gpu = rng.randrange(len(node.gpus))
            count += 1
            self._strike(node, cause, gpu, count)

    def _live(self):
        return [
            n
            for n in self.cluster.in_service()
            if n.responsive and n.state in (NodeState.UP, NodeState.DRAINING)
        ]

    def _strike(self, node, cause: str, gpu: int, count: int) -> None:
        job = self.mine
        if cause == "sdc" and node.name in job.nodes and training(job):
            # Nothing fails now: the strike is counted when the loss shows it.
            self.env.process(self._corrupted(node.name, self.now, job.step))
            return
        if cause == "sdc":
            hit = False  # corruption on a node the job's model does not pass through
        elif cause == "network":
            hit = bool(node.leaf) and any(
                self.cluster.nodes[n].leaf == node.leaf for n in job.nodes
            )
        else:
            hit = node.name in job.nodes
        before = self.kept_time()
        attempt = job.current.number if job.current is not None else None
        self._apply(node, cause, gpu, count)
        self.strikes.append(
            Strike(self.now, cause, node.name, hit, before, self.kept_time(), attempt)
        )

    def kept_time(self) -> float:
        """Training seconds the learner's job keeps now, the step in flight included."""
        job = self.mine
        kept = kept_steps(job) * job.step_time
        if training(job) and job.last_step_time is not None:
            kept += self.now - job.last_step_time  # the step in flight (or a write) is still its
        return kept

    def _apply(self, node, cause: str, gpu: int, count: int) -> None:
        fault_id = f"season-{count}"
        if cause in XID_OF:
            spec = GpuXid(id=fault_id, kind="gpu_xid", at=0.0, xid=XID_OF[cause])
            KINDS["gpu_xid"].fire(self, spec, [Pick(node=node.name, gpu=gpu)])
            if cause in HARDWARE_CAUSES and self.policies.auto_drain:
                self.take_out(node.name)
        elif cause == "network" and node.leaf:
            flap = LinkFlap(
                id=fault_id, kind="link_flap", at=0.0, duration=self.season.flap_duration
            )
            KINDS["link_flap"].fire(self, flap, [Pick(node=node.name, leaf=node.leaf)])
        elif cause == "nic":
            # One node's port: its own gang fails, its leaf's other nodes train on.
            self.ports_down.add(node.name)
            if node.name in self.mine.nodes:
                nic_fails(self, self.mine, node.name)
        elif cause == "node":
            node.kernel_log.append((self.now, "kernel: watchdog: BUG: soft lockup; node hung"))
            self.failures.node_down(
                node.name, self.season.node_back_after, persists=False, cause=fault_id
            )

    def _corrupted(self, node_name: str, struck_at: float, step: int):
        """Silent data corruption on the job's node at `step`: every step after it, and every
        checkpoint written after it, carry it. The loss shows it `sdc_found_after` later; then
        the bad GPU goes to repair, the checkpoints written since are deleted, and the job goes
        back to the newest one it still keeps from before the corruption (step 0 if retention
        deleted them all)."""
        yield self.env.timeout(self.season.sdc_found_after)
        job = self.mine
        washed = any(
            a.start is not None and a.start > struck_at and a.training and a.from_step <= step
            for a in job.attempts
        )
        if washed:
            # A restart since went back to a checkpoint from before it: the model is clean.
            self.strikes.append(Strike(self.now, "sdc", node_name, False, 0.0, 0.0, None))
            return
        before = self.kept_time()
        current = job.current.number if job.current is not None else None
        for record in job.checkpoints.live():
            if record.step > step:
                checkpointing.delete(self, job, record.step, by="the SDC rollback")
        good = job.checkpoints.latest_step
        self.resubmit(
            job,
            resume_from=good,
            why="silent data corruption found in the loss; back to a checkpoint from before it",
        )
        self.take_out(node_name)
        self.strikes.append(
            Strike(self.now, "sdc", node_name, True, before, self.kept_time(), current)
        )

    # -- the policies and the person --------------------------------------------------------

    def set_state(self, job: Job, state, reason: str = "") -> None:
        before = job.state
        super().set_state(job, state, reason)
        if job is not getattr(self, "mine", None) or before == state:
            return
        if state == REQUEUED:
            self._failed_nodes = list(job.attempts[-1].nodes)
            if self.policies.health_check:
                job.held = True
                self.env.process(self._health_check_then_release(job))
        elif state in (FAILED, NODE_FAIL):
            self._failed_nodes = list(job.attempts[-1].nodes)
            self.env.process(self._on_call(job))

    def progress_resumed(self, job: Job) -> None:
        super().progress_resumed(job)
        if job.restarts_used and job is self.mine:
            job.restarts_used = 0  # the retry budget is per interruption, as a watchdog resets

    def _health_check_then_release(self, job: Job):
        yield self.env.timeout(self.season.health_check_time)
        self._check(self._failed_nodes)
        job.held = False

    def _on_call(self, job: Job):
        """Paged: a person looks after the response time, checks the job's nodes, takes out the
        broken ones and restarts the job from its latest checkpoint."""
        yield self.env.timeout(self.season.on_call_response)
        if job.state not in (FAILED, NODE_FAIL):
            return
        yield self.env.timeout(self.season.health_check_time)
        self._check(self._failed_nodes)
        self.resubmit(job, resume_from="latest", why="restarted by the on-call person")

    def _check(self, names: list[str]) -> None:
        """The health check: a broken GPU, or a NIC whose port is down (what `ibstat` shows)."""
        for name in names:
            node = self.cluster.nodes[name]
            broken = any(g.broken for g in node.gpus) or name in self.ports_down
            if broken and name not in self.under_repair:
                self.take_out(name)

    def take_out(self, name: str) -> None:
        """A node with a broken GPU leaves service: a spare from its island replaces it if there
        is one, and it is back (as a spare, or in place) after the repair time."""
        if name in self.under_repair:
            return
        node = self.cluster.nodes[name]
        self.under_repair.add(name)
        spares = self.cluster.spares_in(node.island)
        if spares and node.leaf:
            operations.swap(self, node, spares[0])
            self.env.process(self._repaired(name, swapped=True))
        else:
            operations.drain(self, node)
            self.env.process(self._repaired(name, swapped=False))

    def _repaired(self, name: str, swapped: bool):
        yield self.env.timeout(self.season.repair_time)
        node = self.cluster.nodes[name]
        for gpu in node.gpus:
            gpu.broken = False
            gpu.xid = None
            gpu.needs_reset = False  # the repair includes what a reset would have cleared
            gpu.remap_pending = False
            gpu.throttles.clear()
        node.responsive = True
        node.last_heartbeat = self.now
        node.dead_until_swap = False
        node.down_causes.clear()
        self.ports_down.discard(name)
        self.under_repair.discard(name)
        if swapped:
            # Back in the spare pool. It stays on its island's member list (the scheduler's
            # free-GPU index counts on those lists only growing); as a spare it takes no work,
            # and a later swap puts it behind the leaf it replaces.
            node.out_for_repair = False
            if node.leaf:
                members = self.cluster.leaves[node.leaf][1]
                if name in members:
                    members.remove(name)
            node.leaf = None
            self.set_node_state(node, NodeState.SPARE, "repaired; back in the spare pool")
        elif not node.allocations:
            self.set_node_state(node, NodeState.UP, "repaired")

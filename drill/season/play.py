"""Play a season: weeks of a fleet's failures, with the learner's standing policies acting.

The season runs in the same simulated world as a night (drill/sim/world.py), with the season's
length as the world's horizon instead of the night's, the night's own faults left out, and
interruptions striking nodes at random at the season's MTBF with the season's mix of causes. What
strikes is a fault kind of drill/faults (an Xid, a link flap, a node that stops answering), so a
season fails the way a night does. Nobody is at the keyboard: the policies act at once, and an
on-call person acts after the season's response time when the policies leave it to them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from drill.faults import KINDS, Pick
from drill.faults.gpu_xid import GpuXid
from drill.faults.link_flap import LinkFlap
from drill.incident.models import Incident
from drill.incident.season import HARDWARE_CAUSES, Policies, Season
from drill.sim import operations
from drill.sim.jobs import FAILED, NODE_FAIL, REQUEUED, Job
from drill.sim.rng import substream
from drill.sim.world import World
from drill.states import NodeState

XID_OF = {"gpu": 79, "gpu_memory": 48, "software": 13}
SAMPLE_EVERY = 3600.0  # the season's curve and its storage figures are read hourly
DEFAULT_RESTARTS = 3  # automatic restarts per interruption, when the job's retry policy has none


@dataclass(frozen=True)
class Strike:
    time: float
    cause: str
    node: str
    hit: bool  # it struck the learner's job
    step: int  # the job's step when it struck
    training: bool  # the job was training then (not already down)
    since_step: float  # seconds since the job's last finished step (work in flight, lost)


def season_of(incident: Incident) -> Season:
    if incident.season is None:
        raise ValueError(f"incident {incident.id} has no `season:` section")
    return incident.season


def prepared(incident: Incident, policies: Policies) -> Incident:
    """The incident as the season's world sees it: the season's length as its horizon, the
    night's own faults, noise and hints left out, and the policies applied to the cluster's
    spares and the learner's job. (A copy is not validated again: the season's length is
    checked by its own bound, not the night's.)"""
    season = season_of(incident)
    islands = incident.cluster.islands
    if policies.spares is not None:
        islands = [i.model_copy(update={"spares": policies.spares}) for i in islands]
    cluster = incident.cluster.model_copy(update={"islands": islands})
    jobs = []
    for spec in incident.jobs:
        if spec.yours:
            checkpoint = spec.checkpoint.model_copy(
                update={
                    "every": policies.checkpoint_every or spec.checkpoint.every,
                    "keep": policies.keep or spec.checkpoint.keep,
                }
            )
            restarts = (spec.retry.max_restarts or DEFAULT_RESTARTS) if policies.auto_restart else 0
            retry = spec.retry.model_copy(update={"max_restarts": restarts})
            # The season's job is the long run: it trains for the whole season.
            steps = max(spec.steps, math.ceil(season.length / spec.step_time) + 1)
            spec = spec.model_copy(
                update={"checkpoint": checkpoint, "retry": retry, "steps": steps}
            )
        jobs.append(spec)
    night = incident.night.model_copy(update={"length": season.length})
    return incident.model_copy(
        update={
            "night": night,
            "cluster": cluster,
            "jobs": jobs,
            "faults": [],
            "noise": [],
            "hints": [],
        }
    )


class SeasonWorld(World):
    """The world, with the standing policies and the on-call person watching the learner's job."""

    def __init__(self, incident: Incident, seed: int, season: Season, policies: Policies):
        self.season = season
        self.policies = policies
        self.strikes: list[Strike] = []
        self.under_repair: set[str] = set()
        self._failed_nodes: list[str] = []
        super().__init__(incident, seed)
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
            yield self.env.timeout(rng.expovariate(len(live) / mtbf))
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
        attempt = job.current
        if cause == "network":
            hit = bool(node.leaf) and any(
                self.cluster.nodes[n].leaf == node.leaf for n in job.nodes
            )
        else:
            hit = node.name in job.nodes
        training = bool(
            hit and attempt is not None and attempt.training and attempt.stall_wake is None
        )
        since = self.now - job.last_step_time if training and job.last_step_time else 0.0
        self.strikes.append(Strike(self.now, cause, node.name, hit, job.step, training, since))
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
        elif cause == "node":
            node.kernel_log.append((self.now, "kernel: watchdog: BUG: soft lockup; node hung"))
            self.failures.node_down(
                node.name, self.season.node_back_after, persists=False, cause=fault_id
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
        for name in names:
            node = self.cluster.nodes[name]
            if any(g.broken for g in node.gpus) and name not in self.under_repair:
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
            gpu.throttles.clear()
        node.responsive = True
        node.last_heartbeat = self.now
        node.dead_until_swap = False
        node.down_causes.clear()
        self.under_repair.discard(name)
        if swapped:
            node.out_for_repair = False
            if node.leaf:
                members = self.cluster.leaves[node.leaf][1]
                if name in members:
                    members.remove(name)
            island = self.cluster.islands[node.island]
            if name in island:
                island.remove(name)
            node.leaf = None
            self.set_node_state(node, NodeState.SPARE, "repaired; back in the spare pool")
        elif not node.allocations:
            self.set_node_state(node, NodeState.UP, "repaired")

"""The world's scheduling pass as it was before it cost only what changed: the oracle of
tests/sim/test_world_pass.py, never used by the engine.

Every pass runs (nothing is skipped), answers every pending job with scheduler.plan (which
reads every queued job), writes each waiting job's reason as it goes, and looks for victims
to preempt whenever the first blocked job finds no room. Slow, and obviously the rules.
"""

from __future__ import annotations

from drill.engine.actions.context import Context
from drill.engine.actions.parser import parse
from drill.engine.drill import Drill
from drill.sim import preemption
from drill.sim.jobs import Job
from drill.sim.scheduler import Blocked, place, plan
from drill.sim.world import World


class EagerWorld(World):
    def add_job(self, job: Job, submit_time: float) -> None:
        super().add_job(job, submit_time)
        job.reasons_from = None  # reasons are written by each pass, never read from one

    def schedule_pass(self) -> None:
        pending = self.pending_jobs()
        if not pending:
            return
        self._place_every_requested(pending)
        preempted = False
        for decision in plan(self.cluster, self.pending_jobs(), self.running_jobs, self.env.now):
            if decision.placement is not None:
                self.start_attempt(decision.job, decision.placement)
                continue
            decision.job.reason = decision.reason
            if not preempted and decision.blocked is Blocked.RESOURCES:
                victims = preemption.choose_victims(self, decision.job)
                for victim in victims:
                    preemption.preempt(self, victim, by=decision.job)
                preempted = bool(victims)
                if victims:
                    decision.job.reason = (
                        f"resources: preempting {', '.join(v.name for v in victims)}"
                    )

    def _place_every_requested(self, pending: list[Job]) -> None:
        for job in pending:
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
                placement.sort(key=lambda pair: job.requested_nodes.index(pair[0]))
                self.start_attempt(job, placement)


class EagerDrill(Drill):
    """A Drill on the EagerWorld: the same engine, the straightforward pass."""

    def __post_init__(self) -> None:
        self.world = EagerWorld(self.incident, self.seed, self.training, variant=self.variant)
        self.ctx = Context(self.world, parse=parse)

"""Risk left behind: a broken node the learner knew about, left where other teams' work can land.

A node has evidence of a fault once the learner could see it: a real page named it (or the leaf
it sits behind) while it was broken, or a look at it showed the fault (drill/engine/actions
records looks here). From then, while it stays broken (operations.healthy: what an operator
could find) and schedulable (up and answering), the GPUs it offers to anyone but the learner's
own job are exposure. A node the learner puts back in service while broken counts from that
moment, whatever was seen before: putting it back says it is fine.

Other teams' attempts that start on such a node after its evidence, while a GPU they hold is
throttled or their leaf flaps, lose the slowdown's share of their GPUs for as long as it lasts.
The simulation does not slow their runs (they have no steps), so this is the loss they would
see, counted here.

The figures are settled at every learner action (before and after it, so its own changes count
to the second) and every TICK seconds while any node has evidence, so the sim's own changes (a
reboot finishing, a drain completing) count to within a tick. Nights with no evidence add no
events at all. A tick is 30 seconds, the usual scheduling interval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from drill.sim.jobs import RUNNING
from drill.sim.operations import healthy

if TYPE_CHECKING:
    from drill.sim.cluster import Node
    from drill.sim.pager import Alert
    from drill.sim.world_view import SimWorld as World

TICK = 30.0  # a scheduling pass's usual interval: where work could land meanwhile


@dataclass
class Exposed:
    """One node's evidence and what it cost while it was offered broken."""

    since: float  # when the learner could first see the fault (this time round)
    why: str  # what was wrong, in an operator's words, when it was last offered
    shown_by: str  # a page, a look, putting it back
    active: bool = True  # still broken since the evidence; a healthy node clears it
    seconds: float = 0.0  # schedulable while broken after the evidence
    gpu_seconds: float = 0.0  # the GPUs offered to others over that time
    gpus: int = 0  # the most GPUs it offered others at once


def fault_of(node: Node) -> str:
    """What an operator would say is wrong with the node, first found first."""
    if not node.responsive:
        return "no heartbeat"
    for gpu in node.gpus:
        if gpu.broken and gpu.xid is not None and not gpu.needs_reset:
            return f"Xid {gpu.xid} on GPU {gpu.index}"
    if node.shm_full:
        return "/dev/shm full"
    if not node.fabric_manager_up:
        return "fabric manager down"
    for gpu in node.gpus:
        if gpu.held_by is not None:
            return f"GPU {gpu.index} memory held by a leftover process"
        if gpu.needs_reset:
            return f"GPU {gpu.index} waiting for a reset"
        if gpu.throttled > 1.0:
            return f"GPU {gpu.index} throttled"
    if node.link_events:
        return "its InfiniBand links going down and up"
    return "a hardware fault"


def _named(name: str, text: str) -> bool:
    if name not in text:
        return False  # the common case, without a regex
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


class Exposure:
    def __init__(self, world: World):
        self.world = world
        self.nodes: dict[str, Exposed] = {}
        self.slowed: dict[str, float] = {}  # other team's job -> GPU seconds lost
        self._last = 0.0
        self._offered: dict[str, int] = {}  # node -> GPUs offered to others now
        self._slowing: dict[str, float] = {}  # job -> GPU seconds lost per second now
        self._ticking = False
        # The records still active, apart: a season sees hundreds of nodes fail and mend, and
        # each tick reads only the ones still broken since their evidence.
        self._active: dict[str, Exposed] = {}

    # -- evidence -----------------------------------------------------------------------------

    def saw(self, node: Node, shown_by: str) -> None:
        """The learner could see this node's fault from now (if it is broken now)."""
        self.settle()
        if healthy(node):
            return
        record = self.nodes.get(node.name)
        if record is None:
            record = self.nodes[node.name] = Exposed(self.world.now, fault_of(node), shown_by)
        elif not record.active:
            record.active, record.since = True, self.world.now
            record.why, record.shown_by = fault_of(node), shown_by
        self._active[node.name] = record
        self._rates()
        self._tick()

    def paged(self, alert: Alert) -> None:
        """A real page that names a node, or the leaf a node sits behind, is evidence for it."""
        if alert.noise:
            return
        text = f"{alert.source} {alert.text}"
        for node in self._named_nodes(text, leaves=True):
            self.saw(node, "a page named it")

    def looked(self, node: Node | None, text: str, *, cluster: bool) -> None:
        """A look: at a node (it shows the node's GPUs, clocks, memory and kernel log), or one
        whose output names a node on a line of its own (a rank's error, its step time). A look
        at the whole cluster shows a fault only for a leaf (the fabric's uplink downs): its
        per-node lines show states, not faults. A job's own placement line shows no fault."""
        if node is not None:
            self.saw(node, "a look showed it")
            return
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("team ") and ", nodes " in stripped:
                continue  # `status JOB`'s placement line: where it runs, not what is wrong
            for found in self._named_nodes(stripped, leaves=True, nodes=not cluster):
                self.saw(found, "a look showed it")

    def returned(self, node: Node) -> None:
        """The learner put the node back in service: broken, it counts from now."""
        self.saw(node, "you put it back in service")

    def _named_nodes(self, text: str, *, leaves: bool, nodes: bool = True) -> list[Node]:
        cluster = self.world.cluster
        found = []
        named_node = False
        for name, node in cluster.nodes.items():
            if _named(name, text):
                named_node = True
                if nodes:
                    found.append(node)
        if leaves and not (named_node and not nodes):
            for leaf, (_, members) in cluster.leaves.items():
                if _named(leaf, text):
                    found += [cluster.nodes[n] for n in members if cluster.nodes[n].link_events]
        return [node for node in found if not healthy(node)]

    # -- what it costs ------------------------------------------------------------------------

    def settle(self) -> None:
        """Count the time since the last settle at the rates then, and read the rates now."""
        now = self.world.now
        elapsed = now - self._last
        if elapsed > 0:
            for name, gpus in self._offered.items():
                record = self.nodes[name]
                record.seconds += elapsed
                record.gpu_seconds += gpus * elapsed
            for job, rate in self._slowing.items():
                self.slowed[job] = self.slowed.get(job, 0.0) + rate * elapsed
        self._last = now
        self._rates()

    def _rates(self) -> None:
        world = self.world
        # Every job the night has seen: asked by name, never walked (a season's ticks would
        # walk tens of thousands of finished jobs each time).
        jobs = world.jobs
        self._offered = {}
        for name, record in list(self._active.items()):
            node = world.cluster.nodes[name]
            if healthy(node):
                record.active = False  # fixed: a later fault needs its own evidence
                del self._active[name]
                continue
            if not node.schedulable:
                continue
            held = sum(
                len(gpus)
                for job, gpus in node.allocations.items()
                if job in jobs and jobs[job].yours
            )
            offered = max(0, node.gpu_count - held)
            if offered:
                self._offered[name] = offered
                record.gpus = max(record.gpus, offered)
                record.why = fault_of(node)  # what is wrong while it is offered
        self._slowing = {}
        seen = list(self._active)
        if not seen:
            return  # nothing seen broken: no one can be slowed by what was left in place
        # Only work on a node seen broken can be slowed by it: the jobs allocated there, read
        # in the running set's order (the order the night's sums are added in).
        nodes = world.cluster.nodes
        there = {job for name in seen for job in nodes[name].allocations}
        if not there:
            return
        flapping = world.failures.any_leaf_slowdown()
        for job in world.running_jobs():
            if job.name in there:
                rate = self._slowdown(job, flapping)
                if rate > 0:
                    self._slowing[job.name] = rate

    def _slowdown(self, job, flapping: bool) -> float:
        """GPU seconds per second an other team's attempt loses to a throttled GPU or flapping
        leaf (`flapping`: whether any leaf flaps now) on a node it landed on after the learner
        could see the fault there."""
        attempt = job.current
        if job.yours or job.state != RUNNING or attempt is None or attempt.start is None:
            return 0.0
        factor = 1.0
        failures = self.world.failures
        for name, gpus in job.placement:
            record = self.nodes.get(name)
            if record is None or not record.active or attempt.start < record.since:
                continue
            node = self.world.cluster.nodes[name]
            for index in gpus:
                if node.gpus[index].throttles:
                    factor = max(factor, node.gpus[index].throttled)
            if flapping:
                factor = max(factor, failures.leaf_slowdown(node.leaf))
        return (1.0 - 1.0 / factor) * job.gpus if factor > 1.0 else 0.0

    def _tick(self) -> None:
        if not self._ticking and self._active:
            self._ticking = True
            self.world.env.process(self._ticker())

    def _ticker(self):
        while self._active:
            yield self.world.env.timeout(TICK)
            self.settle()
        self._ticking = False

    def left_schedulable(self, seen_before: float) -> list[str]:
        """Nodes still broken and offered to other teams now, whose fault the learner could see
        before `seen_before`: what was left behind at the end of the night."""
        self.settle()
        return sorted(
            name
            for name, record in self.nodes.items()
            if record.active and name in self._offered and record.since <= seen_before
        )

    def kept_problems(self) -> list[str]:
        """Where the records kept active apart differ from the records' own flags (the
        invariants check it after every event of random nights)."""
        flagged = {name for name, record in self.nodes.items() if record.active}
        if flagged == set(self._active):
            return []
        return [f"exposure keeps {sorted(self._active)} active, its records say {sorted(flagged)}"]

    @property
    def risk_gpu_seconds(self) -> float:
        return sum(r.gpu_seconds for r in self.nodes.values())

    @property
    def slowed_gpu_seconds(self) -> float:
        return sum(self.slowed.values())

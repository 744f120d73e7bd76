"""The world's scheduling pass costs what changed and decides what the straightforward one does.

drill/sim/world.py keeps its queue grouped by shape, reads waiting jobs' reasons from what the
last pass decided, looks for preemption victims only when a lower class runs something it could
take, and skips a pass when nothing it reads changed since the last one. tests/sim/eager_world.py
is the pass before all that: every pass runs, plans every pending job, writes every reason and
looks for victims. Random nights (the invariant tests' clusters, faults and actions, with busier
queues and high-priority arrivals) are played in both, one SimPy event at a time: the same
events must happen at the same moments, and every job must show the same state and reason after
each event.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.incident.naming import layout
from drill.sim import preemption
from drill.sim.jobs import Job
from drill.sim.scheduler import Blocked, plan
from drill.sim.world import World
from tests.drillkit import build, job_spec
from tests.sim.eager_world import EagerDrill
from tests.sim.test_invariants import nights

# What changes a waiting job's filing or the pass's inputs without a state change, in the quick
# runs an operator types them in: a pass may come between any two of them.
QUEUE_CHANGES = [
    ["requeue train", "hold train", "wait 5m", "release train"],
    ["requeue train", "hold train", "release train"],
    ["requeue train", "hold train", "restart train --from latest", "wait 5m", "release train"],
    ["requeue other", "hold other", "wait 2m", "release other"],
    ["requeue train", "priority train high"],
    ["requeue train", "priority train low", "wait 5m", "priority train urgent"],
    ["priority other urgent"],
    ["requeue train", "restart train --from latest --exclude {node}", "uncordon {node}"],
    ["cordon {node}", "wait 2m", "uncordon {node}"],
    ["restart train --world {half}", "restart train --world {half}"],
]


@st.composite
def busy_nights(draw):
    incident, actions, seed = draw(nights())
    if draw(st.booleans()):
        nodes = [n for i in incident.cluster.islands for n in _names(incident, i.name)]
        gpus = incident.jobs[0].gpus
        actions = []
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, 3 * 3600 - 1))
            node = draw(st.sampled_from(nodes))
            for text in draw(st.sampled_from(QUEUE_CHANGES)):
                actions.append((at, text.format(node=node, half=max(1, gpus // 2))))
        actions.sort(key=lambda pair: pair[0])
    background = incident.background.model_copy(
        update={
            "arrivals_per_hour": draw(st.sampled_from([0.0, 6.0, 40.0, 120.0])),
            "high_priority_share": draw(st.sampled_from([0.0, 0.3])),
            "min_duration": 600.0,
            "max_duration": draw(st.sampled_from([3600.0, 10800.0])),
        }
    )
    return incident.model_copy(update={"background": background}), actions, seed


def _names(incident, island: str) -> list[str]:
    return [
        slot.name for slot in layout(incident.cluster) if slot.island == island and not slot.spare
    ]


def seen(d: Drill) -> dict[str, tuple[str, str, bool]]:
    return {name: (job.state, job.reason, job.held) for name, job in d.world.jobs.items()}


def same_so_far(ours: Drill, eager: Drill, shown: list[int]) -> None:
    assert ours.now == eager.now
    mine, theirs = ours.world.timeline, eager.world.timeline
    assert len(mine) == len(theirs), (
        f"at {ours.now:.0f}s: {mine[shown[0] :]} != {theirs[shown[0] :]}"
    )
    for a, b in zip(mine[shown[0] :], theirs[shown[0] :], strict=True):
        assert (type(a), a.time, a.text) == (type(b), b.time, b.text)
    shown[0] = len(mine)
    assert seen(ours) == seen(eager), f"at {ours.now:.0f}s"


def step_both(ours: Drill, eager: Drill, until: float, shown: list[int]) -> None:
    env, other = ours.world.env, eager.world.env
    while env.peek() < until and env.peek() < ours.night_end:
        assert env.peek() == other.peek()
        env.step()
        other.step()
        same_so_far(ours, eager, shown)
    if until > env.now:
        ours.advance_to(min(until, ours.night_end))
        eager.advance_to(min(until, eager.night_end))
        same_so_far(ours, eager, shown)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(busy_nights())
def test_the_world_pass_plays_every_night_as_the_straightforward_pass(night) -> None:
    incident, actions, seed = night
    ours, eager = Drill(incident, seed), EagerDrill(incident, seed)
    shown = [0]
    same_so_far(ours, eager, shown)
    for at, text in actions:
        step_both(ours, eager, at, shown)
        if ours.over:
            break
        assert ours.act(text).output == eager.act(text).output
        same_so_far(ours, eager, shown)
    step_both(ours, eager, ours.night_end, shown)


class CheckedWorld(World):
    """Before each pass, what the straightforward pass would do now; after it, if the pass was
    skipped, that must have been nothing: no start and no victim."""

    skipped = 0

    def schedule_pass(self) -> None:
        decisions = plan(self.cluster, self.pending_jobs(), self.running_jobs, self.env.now)
        heads = [d.job for d in decisions if d.blocked is Blocked.RESOURCES]
        victims = preemption.choose_victims(self, heads[0]) if heads else []
        passes = self._reasons.seq
        super().schedule_pass()
        if self.pending_jobs() and self._reasons.seq == passes:
            CheckedWorld.skipped += 1
            assert not [d.job.name for d in decisions if d.placement is not None]
            assert victims == []


def test_a_skipped_pass_would_have_started_and_preempted_nothing() -> None:
    """A busy small cluster: arrivals every few minutes, most passes find nothing new."""
    incident = build(
        islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 3}],
        cluster={"gpus_per_node": 4},
        jobs=[job_spec("train", yours=True, gpus=4, steps=300)],
        background={
            "utilization": 0.9,
            "arrivals_per_hour": 30,
            "sizes": [1, 2, 4, 8],
            "high_priority_share": 0.3,
        },
    )
    CheckedWorld.skipped = 0
    world = CheckedWorld(incident, 1)
    world.run_until(incident.night.length)
    world.run_rest_of_night()
    assert CheckedWorld.skipped > 10


def test_a_job_refiled_while_it_waits_keeps_the_reason_the_pass_gave_it() -> None:
    """Excluding a node, holding or changing a waiting job's class files it anew, and its
    reason stays what the last pass said until the next pass says otherwise."""
    incident = build(
        islands=[{"name": "a", "leaves": 1, "nodes_per_leaf": 1}],
        cluster={"gpus_per_node": 4},
        jobs=[
            job_spec("train", yours=True, gpus=4, steps=300),
            job_spec("waiting", gpus=4, steps=10),
        ],
        background={"utilization": 0.0, "arrivals_per_hour": 0},
    )
    world = World(incident, 1)
    waiting: Job = world.jobs["waiting"]
    assert waiting.reason == "resources: needs 4 GPUs on one node"
    waiting.exclude.add("gpu-a-1")
    assert waiting.reason == "resources: needs 4 GPUs on one node"
    world.schedule_pass()
    assert waiting.reason.startswith("excluded nodes: ")
    waiting.exclude.discard("gpu-a-1")
    waiting.held = True
    assert waiting.reason.startswith("excluded nodes: ")
    world.schedule_pass()
    assert waiting.reason == "held: `release` lets it schedule"
    waiting.held = False
    assert waiting.reason == "held: `release` lets it schedule"
    world.schedule_pass()
    assert waiting.reason == "resources: needs 4 GPUs on one node"

"""A takeaway that tells the night's story is shown only on a night that had it (audit defect
14): dead-rank's "the automatic restart ... crash-looped" is true when the learner let the job
restart onto the broken GPU, and false when they drained it first."""

from __future__ import annotations

from drill.engine import night_facts, shown_text
from drill.engine.drill import Drill
from drill.incident.library import resolve_incident

LOOPED = "The automatic restart landed on the same broken GPU and crash-looped."
LESSON = "Retries only help when the cause has gone away: a restart onto the broken GPU"


def dead_rank() -> Drill:
    return Drill.create(resolve_incident("dead-rank").incident, 1, "sim")


def shown(d: Drill) -> str:
    return "\n".join(shown_text.takeaways(d.world))


def test_a_night_left_alone_crash_loops_and_says_so():
    d = dead_rank()
    d.play_out()
    assert night_facts.start_up_failures(d.world) >= 2
    assert LOOPED in shown(d) and LESSON not in shown(d)


def test_a_night_drained_first_does_not_hear_about_a_crash_loop():
    d = dead_rank()
    while "gpu-dies" not in d.world.faults.fired_at:
        d.advance(60)
    node = d.world.faults.chosen["gpu-dies"][0].node
    assert d.act(f"drain {node}").accepted  # before the collective times out
    d.play_out()
    restarted = d.learner_job.attempts[-1]
    assert node not in restarted.nodes and restarted.training  # the retry went elsewhere
    assert not night_facts.crash_looped(d.world)
    assert LOOPED not in shown(d) and LESSON in shown(d)

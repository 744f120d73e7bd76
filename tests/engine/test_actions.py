"""Wrong actions get one clear line with a suggestion, never a crash, and cost nothing."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.actions.catalog import VERBS
from drill.engine.actions.parser import MAX_LINE
from drill.engine.drill import Drill
from tests.drillkit import build

CASES = [
    # unknown verbs, with the closest one
    ("statsu", "unknown action `statsu`; did you mean `status`?"),
    ("HEALHT gpu-a-1", "did you mean `health`?"),
    ("ckpt lsit train", "unknown action `ckpt lsit`; did you mean `ckpt list`?"),
    ("xyzzy now", "unknown action `xyzzy`; type `help` for the list"),
    ("ckpt", "usage: ckpt list|prune|rm|verify"),
    ("help frob", "no action named 'frob'"),
    # unknown names, with the closest one
    ("health gpu-a-9", "no node named 'gpu-a-9'; did you mean 'gpu-a-"),
    ("cordon gpu-b1", "no node named 'gpu-b1'; did you mean 'gpu-b-1'?"),
    ("swap spare-a-1", "no node named 'spare-a-1'"),
    ("status trian", "no job named 'trian'; did you mean 'train'?"),
    ("logs tran", "no job named 'tran'; did you mean 'train'?"),
    ("ack P3", "no page named 'P3'"),
    ("restart train --exclude gpu-a-1,gpu-q-7", "no node named 'gpu-q-7'"),
    ("restart train --bogus 1", "no option named '--bogus'"),
    ("set train colour red", "no setting named 'colour'"),
    ("priority train super", "no priority class named 'super'"),
    # bad numbers and values
    ("logs train --rank x", "rank must be a whole number, got 'x'"),
    ("logs train --rank 16", "rank must be between 0 and 15, got 16"),
    ("logs train --rank -1", "rank must be between 0 and 15, got -1"),
    ("wait ten", "expected a duration"),
    ("wait 10 min", "usage: wait [DURATION] [--until page]"),
    ("wait --until pages", "--until takes page, got 'pages'"),
    ("wait --until", "--until needs a value"),
    ("wait 13h --until page", "wait between 1s and 12h"),
    ("wait 0s", "wait between 1s and 12h"),
    ("wait 13h", "wait between 1s and 12h"),
    ("restart train --world many", "--world must be a whole number"),
    ("restart train --from 99999", "--from step must be between 0 and 200"),
    ("restart train --from latets", "--from step must be a step number, latest or scratch"),
    ("set train ckpt-every 0", "ckpt-every must be between 1 and 100000, got 0"),
    ("set train verify-on-resume maybe", "verify-on-resume takes yes or no"),
    ("ckpt verify train abc", "step must be a whole number"),
    ("ckpt prune train --keep 0", "--keep must be between 1 and 100"),
    # missing arguments: the usage line
    ("health", "usage: health NODE"),
    ("cordon", "usage: cordon NODE"),
    ("logs", "usage: logs JOB [--rank N]"),
    ("logs train --rank", "usage: logs JOB [--rank N]"),
    ("restart", "usage: restart JOB"),
    ("restart train --from", "--from needs a value"),
    ("priority train", "usage: priority JOB CLASS"),
    ("ckpt verify train", "usage: ckpt verify JOB STEP"),
    ("note", "usage: note TEXT"),
    ("wait", "usage: wait [DURATION] [--until page] (say how long, like `wait 5m`"),
    ("status train extra", "usage: status [JOB]"),
    ("hold train now", "usage: hold JOB"),
    ("ckpt prune train", "usage: ckpt prune JOB --keep N"),
    ("ckpt prune train 2", "usage: ckpt prune JOB --keep N"),
    ("ckpt prune train --keep", "--keep needs a value; usage: ckpt prune JOB --keep N"),
    ("logs train --from 3", "no option named '--from'"),
    ("quota scratch 2TB", "ask for an increase with a plus sign"),
    ("set train ckpt-keep 0", "ckpt-keep must be between 1 and 100, got 0"),
    ("set train", "usage: set JOB KEY VALUE"),
    ("restart train --include gpu-a-1", "gpu-a-1 is not on train's exclude list; it has: none"),
    ("restart train --include gpu-q-1", "no node named 'gpu-q-1'"),
    # impossible requests
    ("restart train --from 35", "train has no checkpoint at step 35; it has: 20"),
    ("restart train --world 12", "--world 12 does not fill whole nodes; use a multiple of 8"),
    ("restart train --world 3", "--world 3 cannot keep the global batch of 16 ranks"),
    ("uncordon gpu-a-1", "gpu-a-1 is up; uncordon works on cordoned or drained nodes"),
    ("hold train", "train is running; only a pending job can be held"),
    ("release train", "train is not held"),
    ("requeue ghost", "no job named 'ghost'"),
    ("ckpt rm train 30", "train has no checkpoint at step 30"),
    ("df", "no storage volumes"),
    # shapes the parser refuses
    ("", "type an action"),
    ("   ", "type an action"),
    ("status\x07", "control characters"),
    ("sta\ttus", "control characters"),
    ("note hi\x1b[31m", "control characters"),
    ("logs train\x00", "control characters"),
    ("note " + "x" * MAX_LINE, f"keep an action under {MAX_LINE}"),
]


@pytest.fixture
def drill_at_450():
    """The quiet night at 03:07:30: one checkpoint (step 20) exists, no pages yet."""
    d = Drill(build(), 1)
    d.advance(450)
    return d


@pytest.mark.parametrize(("line", "expected"), CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_rejection_is_one_clear_line_and_costs_nothing(drill_at_450, line, expected):
    before = drill_at_450.snapshot()
    result = drill_at_450.act(line)
    assert not result.accepted
    assert expected in result.output
    assert "\n" not in result.output and result.output.strip()
    assert drill_at_450.now == 450.0
    assert drill_at_450.snapshot() == before


def test_unknown_page_suggests_the_closest_one():
    d = Drill(
        build(faults=[{"id": "h", "kind": "hang_rank", "at": "10m", "target": {"job": "train"}}]), 1
    )
    d.advance(1000)
    assert [a.id for a in d.world.pager.alerts] == ["P1"]
    result = d.act("ack P2")
    assert not result.accepted
    assert result.output == "no page named 'P2'; did you mean 'P1'?"
    assert d.act("ack p1").accepted
    again = d.act("ack P1")
    assert not again.accepted and "already acknowledged at 03:" in again.output


def test_node_state_rules(drill_at_450):
    d = drill_at_450
    assert d.act("swap gpu-b-1").accepted
    for line, expected in [
        ("cordon gpu-b-1", "gpu-b-1 is down; only an up node can be cordoned"),
        ("drain gpu-b-1", "gpu-b-1 is already down"),
        ("reboot gpu-b-1", "gpu-b-1 is out for repair"),
        ("swap gpu-b-1", "gpu-b-1 is already out for repair"),
    ]:
        now = d.now
        result = d.act(line)
        assert not result.accepted, line
        assert expected in result.output
        assert d.now == now
    assert d.act("reboot gpu-b-3").accepted
    result = d.act("cordon gpu-b-3")
    assert not result.accepted and "rebooting" in result.output


def test_a_spare_can_be_promised_only_once(drill_at_450):
    d = drill_at_450
    first = d.act("swap gpu-b-1")
    assert first.accepted and "spare-b-1" in first.output
    second = d.act("swap gpu-b-2")
    assert not second.accepted
    assert "no spare left in island b" in second.output


def test_accepted_lines_are_case_and_space_tolerant_on_the_verb(drill_at_450):
    assert drill_at_450.act("  STATUS   train ").accepted
    assert drill_at_450.act("Ckpt LIST train").accepted


def test_every_verb_without_arguments_never_crashes(drill_at_450):
    for verb in VERBS:
        result = drill_at_450.act(verb)
        assert "\n" not in result.output or result.accepted, verb


# -- property: nothing a person types can crash the engine -------------------------------------

WORDS = st.sampled_from(
    [
        "train",
        "gpu-a-1",
        "gpu-b-4",
        "spare-a-1",
        "P1",
        "--rank",
        "--from",
        "--exclude",
        "--world",
        "--keep",
        "latest",
        "scratch",
        "0",
        "3",
        "16",
        "-1",
        "1e9",
        "10m",
        "yes",
        "ckpt-every",
        "high",
        "gpu-a-1,gpu-a-2",
        ",",
    ]
)
VERB_WORDS = st.sampled_from(sorted({v for name in VERBS for v in (name, name.split()[0])}))
SHAPED = st.builds(
    lambda verb, args: " ".join([verb, *args]),
    VERB_WORDS,
    st.lists(st.one_of(WORDS, st.text(min_size=1, max_size=8)), max_size=4),
)
LINES = st.one_of(st.text(max_size=80), SHAPED)


def fresh() -> Drill:
    d = Drill(build(), 1)
    d.advance(450)
    return d


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=4))
def test_arbitrary_lines_never_raise(lines):
    d = fresh()
    for line in lines:
        before = d.now
        result = d.act(line)  # must not raise
        if result.accepted:
            assert d.now == result.end >= result.time == before
        else:
            assert d.now == before
            assert result.end == result.time == before
            assert "\n" not in result.output

"""The worse-runbook generator: each class makes exactly its one mistake and keeps the rest of
the reference (its times, acknowledgements and note)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.worse_runbooks import EXTRA_SKIP, worse_runbooks
from drill.incident.library import incident_files
from drill.incident.loader import load_incident

DEAD_RANK = [
    "{fault.x.time}+5m ack all",
    "+0s status llm",
    "+0s health gpu-a-2",
    "+0s drain gpu-a-2",
    "+0s restart llm --from latest --exclude gpu-a-2",
    "+0s swap gpu-a-2",
    "+0s note drained and swapped",
]


def _by_class(reference):
    return {book.kind.name: list(book.lines) for book in worse_runbooks(reference)}


def test_uninformed_drops_only_the_looks():
    books = _by_class(DEAD_RANK)
    assert books["uninformed"] == [
        "{fault.x.time}+5m ack all",
        "+0s drain gpu-a-2",
        "+0s restart llm --from latest --exclude gpu-a-2",
        "+0s swap gpu-a-2",
        "+0s note drained and swapped",
    ]


def test_a_dropped_look_hands_its_time_to_the_next_line():
    books = _by_class(["03:10 status llm", "+2m health n1", "+0s cordon n1", "+0s note x"])
    assert books["uninformed"] == ["03:10+2m cordon n1", "+0s note x"]


def test_from_scratch_throws_the_checkpoint_and_the_skip_away():
    books = _by_class(["03:10 logs llm", "+0s restart llm --from 100 --skip 111-140 --world 8"])
    assert books["from-scratch"] == [
        "03:10 logs llm",
        "+0s restart llm --world 8 --from scratch",
    ]


def test_left_schedulable_keeps_the_exclude_and_drops_what_takes_the_node_out():
    books = _by_class(DEAD_RANK)
    assert books["left-schedulable"] == [
        "{fault.x.time}+5m ack all",
        "+0s status llm",
        "+0s health gpu-a-2",
        "+0s restart llm --from latest --exclude gpu-a-2",
        "+0s note drained and swapped",
    ]


def test_skip_extra_data_widens_the_range():
    books = _by_class(["03:10 logs llm", "+0s restart llm --from 100 --skip 111-140"])
    assert (
        books["skip-extra-data"][-1] == f"+0s restart llm --from 100 --skip 111-{140 + EXTRA_SKIP}"
    )


def test_a_class_that_does_not_apply_is_not_made():
    assert _by_class(["03:00 set llm ckpt-keep 3", "01:30 note cadence"]) == {}
    assert "left-schedulable" not in _by_class(["03:10 health n1", "+0s restart llm --from latest"])


_LINES = st.lists(
    st.sampled_from(
        [
            "+0s status llm",
            "+1m health n1",
            "03:20 logs llm",
            "+0s cordon n1",
            "+0s drain n1",
            "+0s restart llm --from latest --exclude n1",
            "+0s restart llm --from 50",
            "+2m ack all",
            "+0s note x",
        ]
    ),
    min_size=1,
    max_size=12,
)


@given(_LINES)
def test_every_class_keeps_the_paperwork_and_the_order(reference):
    """Invariant: whatever the reference, no class drops an ack or a note, reorders lines, or
    invents a line that is not the reference's or one of its restarts rewritten."""
    paperwork = [line.split(" ", 1)[1] for line in reference if " ack " in f" {line} "]
    paperwork += [line.split(" ", 1)[1] for line in reference if " note " in f" {line} "]
    for book in worse_runbooks(reference):
        texts = [line.split(" ", 1)[1] for line in book.lines]
        for text in paperwork:
            assert text in texts
        originals = [line.split(" ", 1)[1] for line in reference]
        position = -1
        for text in texts:
            if text.startswith("restart") and text not in originals:
                continue
            assert text in originals
            found = originals.index(text, position + 1)
            assert found > position
            position = found


def test_every_shipped_reference_gets_at_least_one_class():
    for path in incident_files([]):
        incident = load_incident(path).incident
        if incident.season is not None and not incident.reference:
            continue
        assert worse_runbooks(list(incident.reference)), f"{incident.id}: no worse class applies"


def test_lax_cadence_checkpoints_three_times_less_often():
    books = _by_class(["01:00 set llm ckpt-every 50", "+0s df scratch", "01:30 note cadence"])
    assert books["lax-cadence"][0] == "01:00 set llm ckpt-every 150"

"""The discipline lines say which change came without a look, when, and which look would have
counted (audit defect 29): a learner who scored 62% for discipline learns what to do next time.
The looks are the catalog's (`informed_by` in drill/engine/actions/catalog.py), never spelt in
the scoring text. Small real nights, built in code and played on the sim."""

from __future__ import annotations

from drill.engine.actions.catalog import VERBS, Of
from drill.engine.scoring.discipline import looks_that_count, measure_discipline
from tests.drillkit import build, drill, job_spec

PAGING = 300.0


def _xid_night():
    incident = build(
        jobs=[job_spec("train", yours=True, steps=5000)],
        faults=[
            {
                "id": "xid",
                "kind": "gpu_xid",
                "xid": 79,
                "at": "03:20",
                "target": {"job": "train", "select": "one"},
            }
        ],
    )
    return drill(incident)


def _page(d) -> float:
    while True:
        pages = [a for a in d.world.pager.alerts if not a.noise and a.severity != "info"]
        if pages:
            return min(a.time for a in pages)
        d.advance(5)


def test_a_change_without_its_look_says_when_and_which_look_would_have_counted():
    d = _xid_night()
    paged = _page(d)
    [pick] = d.world.faults.chosen["xid"]
    node = pick.node
    assert d.act("status train").accepted
    drain = d.act(f"drain {node}")
    assert drain.accepted
    out = measure_discipline(d, PAGING, d.now)
    assert out.changes == 1 and out.changes_after_look == 0
    assert out.uninformed == [
        f"drain {node} at {d.clock(drain.time)} came without a look at {node} after the first"
        f" sign of trouble at {d.clock(paged)}: `health`, `gpus`, `ibstat`, `diag`, `dmesg` or"
        f" `systemctl` of {node}, or `fabric` of its leaf or of every leaf would have counted"
    ]


def test_a_change_before_any_sign_of_trouble_says_so():
    d = _xid_night()
    d.advance(5 * 60)  # 03:05: the GPU is still fine
    node = next(iter(d.world.cluster.nodes))
    assert d.act(f"health {node}").accepted  # a look at a healthy node informs nothing later
    early = d.act(f"cordon {node}")
    assert early.accepted
    [line] = measure_discipline(d, PAGING, d.now).uninformed
    assert line == (
        f"cordon {node} at {d.clock(early.time)} came before any sign of trouble you could see"
        f" (a page, or a look that showed the fault); after one, `health`, `gpus`, `ibstat`,"
        f" `diag`, `dmesg` or `systemctl` of {node}, or `fabric` of its leaf or of every leaf"
        " would have counted"
    )


def test_every_look_the_catalog_names_is_in_the_words_with_what_it_must_be_of():
    for verb in VERBS.values():
        for need in verb.informed_by or ():
            words = looks_that_count(need.by, "n1")
            for by in need.by:
                assert by.shown in words, (verb.name, words)
            if any(b.of == Of.THAT for b in need.by):
                assert " of n1" in words, (verb.name, words)
            assert "\u2014" not in words


def test_the_debrief_shows_the_line_not_just_a_count():
    from drill.engine.scoring.outcome import Outcome
    from drill.engine.scoring.score import build_score

    line = (
        "drain n1 at 03:31:00 came without a look at n1 after the first sign of trouble at"
        " 03:25:00: `health` or `gpus` of n1, or `fabric` of its leaf or of every leaf would"
        " have counted"
    )
    base = dict(end_time=7200.0, completed=True, alive=True, recovered=True, final_step=300,
                target_steps=300, baseline_step=300, effective_step=300, pace=12.0)  # fmt: skip
    par = Outcome(**base, changes=2, changes_after_look=2, discipline=1.0, notes=1)
    mine = Outcome(
        **base, changes=2, changes_after_look=1, uninformed_changes=1, uninformed_lines=[line]
    )
    result = build_score(mine, par, par, weights={}, night_length=7200, job_gpus=16, clock=str)
    why = result.component("discipline").why
    assert why.startswith(
        "1 of 2 changes came after a look that informs them, made after the first sign of"
        f" trouble; {line}; no notes written."
    )


def test_counts_in_the_discipline_line_are_written_as_a_person_writes_them():
    """Audit defect 12: "1 note(s) written", "3 hint(s) used"."""
    from drill.engine.scoring.outcome import Outcome
    from drill.engine.scoring.score import build_score

    base = dict(end_time=7200.0, completed=True, alive=True, recovered=True, final_step=300,
                target_steps=300, baseline_step=300, effective_step=300, pace=12.0)  # fmt: skip
    par = Outcome(**base, changes=1, changes_after_look=1, discipline=1.0)
    mine = Outcome(
        **base, changes=1, changes_after_look=1, notes=1, hints_used=3, pages_due=1,
        pages_acked_in_time=1,
    )  # fmt: skip
    result = build_score(mine, par, par, weights={}, night_length=7200, job_gpus=16, clock=str)
    why = result.component("discipline").why
    assert "(s)" not in why, why
    for said in (
        "1 of 1 change came",
        "1 of 1 page acknowledged",
        "1 note written",
        "3 hints used",
    ):
        assert said in why, why

"""The integrity sentence says what happened to damaged checkpoints (learner audit, defect 28):
full-disk said "1 bad checkpoint(s) were caught before they were loaded" although restarts had
already failed loading that torn checkpoint."""

from __future__ import annotations

from drill.engine.drill import Drill
from drill.engine.scoring.outcome import measure
from drill.engine.scoring.par import step_clock
from drill.engine.scoring.score import _why_bad_checkpoints
from tests.scoring.nights import incident

LOAD_FAILED = "PytorchStreamReader failed reading zip archive"


def _night(lines: list[str] | None = None) -> Drill:
    from drill.engine.headless import play
    from drill.engine.timed import parse_text

    inc = incident("full-disk")
    d = Drill.create(inc, 1, "sim")
    if lines:
        play(d, parse_text("\n".join(lines), "test", {f.id for f in inc.faults}))
    else:
        d.advance(inc.night.length)
    return d


def _words(d: Drill) -> tuple[int, str]:
    inc = d.incident
    outcome = measure(d, inc.scoring.paging_target, step_clock(inc, d.seed))
    return outcome.failed_loads, _why_bad_checkpoints(outcome)


def test_restarts_that_failed_on_the_torn_checkpoint_are_counted_not_called_caught():
    d = _night()  # nobody acts: the automatic restarts both meet the torn step 200
    failed = [a for a in d.learner_job.attempts if LOAD_FAILED in a.why]
    count, words = _words(d)
    assert count == len(failed) == 2, [a.why for a in d.learner_job.attempts]
    assert "2 restarts failed on a damaged checkpoint." in words
    assert "caught before" not in words and "(s)" not in words
    assert "No attempt trained from bad bytes." in words


def test_the_reference_night_says_one_restart_failed_and_the_verify_found_it():
    inc = incident("full-disk")
    d = _night(list(inc.reference))
    count, words = _words(d)
    assert count == 1
    assert words.strip() == (
        "1 restart failed on a damaged checkpoint. Verifying found 1 bad checkpoint."
        " No attempt trained from bad bytes."
    )

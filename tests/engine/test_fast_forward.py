"""Fast-forward, `wait --until page`: the night runs until the first thing the learner would
notice (drill/engine/signals.py), costs the time that ran, is refused past an open page, scores
like the plain wait of the same length, and replays to the same moment."""

from __future__ import annotations

import json

import pytest

from drill.engine.drill import Drill
from drill.engine.scoring.discipline import measure_discipline
from drill.incident.library import resolve_incident
from drill.saves import read_save
from drill.session import Session
from tests.drillkit import build, job_spec

FULL_DISK_FIRST_PAGE = 53 * 60 + 44  # 03:53:44: the first write that does not fit


@pytest.fixture(scope="module")
def full_disk():
    return resolve_incident("full-disk")


def quiet(**fields) -> Drill:
    """One job that never finishes in the night, no background, no pages unless asked."""
    return Drill(build(jobs=[job_spec("train", yours=True, steps=5000)], **fields), 1)


def test_it_stops_at_the_first_page_and_costs_the_time_to_it():
    d = quiet(noise=[{"at": "17m", "source": "gpu-b-2", "text": "fan speed high"}])
    d.advance(125.0)
    result = d.act("wait --until page")
    assert result.accepted, result.output
    assert (result.time, result.end, d.now) == (125.0, 17 * 60, 17 * 60)
    assert result.output == "waited 14m55s: page P1 (warning) at 03:17:00"
    assert [a.id for a in d.world.pager.alerts] == ["P1"]


def test_in_full_disk_it_stops_where_the_job_fails_and_is_paged(full_disk):
    d = Drill(full_disk.incident, 1)
    result = d.act("wait --until page")
    assert result.end == pytest.approx(FULL_DISK_FIRST_PAGE, abs=1.0)
    assert result.output == ("waited 53m44s: page P1 (warning), llm-pretrain requeued at 03:53:44")


def test_with_no_signal_it_runs_to_the_end_of_the_night():
    d = quiet()
    result = d.act("wait --until page")
    assert result.accepted
    assert result.end == d.night_end == 7200.0
    assert result.output == "waited 2h: the night ended with no new page"
    assert d.over


def test_a_duration_is_its_limit():
    d = quiet(noise=[{"at": "50m", "source": "gpu-b-2", "text": "fan speed high"}])
    result = d.act("wait 30m --until page")
    assert result.end - result.time == 1800.0
    assert result.output == "waited 30m: no new page, and train did not stop"
    assert d.act("wait 30m --until page").end == 3000.0  # the page came first this time


def test_it_stops_when_the_learners_job_stops_without_a_page():
    d = Drill(build(jobs=[job_spec("train", yours=True, steps=100)]), 1)  # done by 03:18
    result = d.act("wait --until page")
    assert result.output.endswith("train completed at " + d.clock(result.end))
    assert not d.world.pager.alerts and d.over


def test_another_teams_job_stopping_does_not_stop_it():
    d = Drill(
        build(
            jobs=[
                job_spec("train", yours=True, steps=5000),
                job_spec("eval", team="research", gpus=8, steps=60),  # done at about 03:11
            ]
        ),
        1,
    )
    result = d.act("wait 1h --until page")
    assert d.world.jobs["eval"].state == "completed"
    assert result.end == 3600.0


def test_it_is_refused_while_a_page_is_open_and_runs_once_it_is_acknowledged():
    d = quiet(
        noise=[
            {"at": "2m", "source": "gpu-b-2", "text": "fan speed high"},
            {"at": "40m", "source": "gpu-b-1", "text": "fan speed high"},
        ]
    )
    d.advance(300.0)
    refused = d.act("wait --until page")
    assert not refused.accepted
    assert refused.output == (
        "P1 is open; fast-forward never runs past an open page: `ack P1` first"
    )
    assert d.now == 300.0 and refused.end == refused.time
    assert d.act("wait 5m").accepted  # a plain wait is the learner's own call, as before
    assert d.act("ack P1").accepted
    assert d.act("wait --until page").end == 2400.0


def test_it_scores_like_the_plain_wait_of_the_same_length(full_disk):
    """The score's stance on waiting is unchanged: neither a look nor a change, judged only
    through the pages' acknowledgement times. Fast-forward earns nothing a wait would not."""
    after = ["ack all", "df", "ckpt list llm-pretrain", "note scratch filled", "wait 20m"]
    fast, plain = Drill(full_disk.incident, 1), Drill(full_disk.incident, 1)
    waited = fast.act("wait --until page")
    assert plain.act("wait 53m45s").end == pytest.approx(waited.end, abs=1.0)
    for line in after:
        assert fast.act(line).accepted and plain.act(line).accepted, line
    one = measure_discipline(fast, 900.0, fast.end_time)
    two = measure_discipline(plain, 900.0, plain.end_time)
    assert one == two
    # P2 (scratch full, paged at the 03:55 sample now that the monitor reads the volume as it
    # is) and the two restart pages waited 20m, over target.
    assert one.pages_due == 3 and one.pages_acked_in_time == 1


def test_a_save_replays_to_the_same_events(full_disk, tmp_path):
    path = tmp_path / "night.jsonl"
    live = Session.start(full_disk, 1, "sim", path)
    try:
        for seconds in (61.5, 7.25, 300.0):  # the TUI's ticks slice time any way they like
            live.drill.advance(seconds)
        for line in ("wait --until page", "ack all", "wait 1m --until page", "wait --until page"):
            assert live.act(line).accepted, line
        events = [e.to_json() for e in live.drill.world.timeline]
        ends = [r.to_json() for r in live.results]  # as the save holds them: to the ms
    finally:
        live.close()
    save = read_save(path)
    assert [a.text for a in save.actions][-1] == "wait --until page"
    again = Session.for_replay(full_disk, save)
    try:
        again.replay(save, verify=True)  # any difference in an outcome stops it
        assert [r.to_json() for r in again.results] == ends
        assert [e.to_json() for e in again.drill.world.timeline] == events
    finally:
        again.close()


def test_drill_run_plays_a_fast_forward_line_and_replay_verifies_it(tmp_path):
    from tests.clikit import run_drill

    actions = tmp_path / "night.actions"
    actions.write_text("03:00 wait --until page\n+0s ack all\n+0s wait 30m --until page\n")
    save = tmp_path / "night.jsonl"
    args = ("run", "full-disk", "--backend", "sim", "--actions", str(actions))
    done = run_drill(*args, "--save", str(save), "--json")
    assert done.returncode == 0, done.stderr
    played = json.loads(done.stdout)["actions"]
    assert [(a["text"], a["accepted"]) for a in played] == [
        ("wait --until page", True),
        ("ack all", True),
        ("wait 30m --until page", True),
    ]
    assert played[0]["end"] == pytest.approx(FULL_DISK_FIRST_PAGE, abs=1.0)
    assert played[0]["result"].startswith("waited 53m44s: page P1 (warning)")
    assert played[1]["time"] == played[0]["end"]  # `+0s` counts from where it stopped
    # The fill monitor's 03:55 sample sees the full volume (it reads it now, like `df`).
    assert played[2]["result"].startswith("waited 1m11s: page P2 (critical)")
    verified = run_drill("replay", str(save), "--verify")
    assert verified.returncode == 0, verified.stderr

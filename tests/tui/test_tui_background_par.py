"""Par and floor are measured in the background while the learner plays (drill/tui/driver.py),
so the debrief does not measure them again; the early debrief says how long the rest of the
night takes; leaving while par is measured stops it cleanly.

Each test points the saves folder at a fresh one (the replica's baseline copied in, so it is
not trained again) so that par is not already cached by another test. The function that plays
and measures a night (par._measured) is wrapped, not replaced, to count how often it runs."""

from __future__ import annotations

import re
import shutil

import pytest
from textual.worker import WorkerState

from drill.engine.scoring import par
from drill.saves_dir import cache_dir
from tests.tui.tuikit import make_app, screen_name, sync, to_night, type_line, until


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A saves folder with no par in it: the shared baselines copied in, nothing else."""
    shared = cache_dir()
    mine = tmp_path / "saves" / "cache"
    mine.mkdir(parents=True)
    for entry in shared.glob("baseline-*"):
        if entry.is_dir():
            shutil.copytree(entry, mine / entry.name)
    monkeypatch.setenv("DRILL_SAVES_DIR", str(tmp_path / "saves"))
    return mine


@pytest.fixture
def measured(monkeypatch) -> list[str]:
    """The nights par._measured played, by name ("nobody" is the floor, "reference" par)."""
    calls: list[str] = []
    real = par._measured

    def counted(incident, seed, backend, lines, name, *args, **kwargs):
        calls.append(name)
        return real(incident, seed, backend, lines, name, *args, **kwargs)

    monkeypatch.setattr(par, "_measured", counted)
    return calls


def _par_file(app):
    driver = app.driver
    key = par.cache_key(driver.spec.incident, driver.spec.seed, driver.spec.backend)
    return cache_dir() / "par" / f"{key}.json"


async def _end_early(pilot):
    """`debrief` typed, and the night ended; returns once the score shows."""
    app = pilot.app
    await type_line(pilot, "debrief")
    await pilot.press("y")
    await until(
        pilot,
        lambda: screen_name(app) == "DebriefScreen" and app.screen.result is not None,
        timeout=120,
    )


@sync
async def test_par_is_measured_while_the_learner_plays_and_not_again_at_the_debrief(
    tmp_path, fresh_cache, measured
):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "status llm-pretrain")
        # Before the learner types debrief: on disk, measured once (floor and par).
        await until(pilot, lambda: _par_file(app).is_file(), timeout=60)
        assert sorted(measured) == ["nobody", "reference"]
        await _end_early(pilot)
        assert app.screen.result.score is not None
    assert sorted(measured) == ["nobody", "reference"]  # the debrief did not measure again


@sync
async def test_the_debrief_waits_for_the_background_par_and_says_so(
    tmp_path, fresh_cache, measured
):
    app = make_app("dead-rank", tmp_path=tmp_path)
    incident = app.loaded.incident
    key = par.cache_key(incident, incident.seeds[0], "sim")
    hold = par._lock_for(("par", key))
    hold.acquire()  # the background par starts and waits here, as if it were still measuring
    try:
        async with app.run_test(size=(120, 50)) as pilot:
            await to_night(pilot)
            await until(pilot, lambda: app.driver.par_running())
            seen: list[str] = []
            await type_line(pilot, "debrief")
            await pilot.press("y")
            await until(pilot, lambda: screen_name(app) == "DebriefScreen")
            screen = app.screen
            show = screen.show_progress
            screen.show_progress = lambda p: (seen.append(p.text), show(p))[1]
            await until(pilot, lambda: any("in the background" in t for t in seen))
            assert screen.result is None
            assert "started in the background" in str(screen.query_one("#score-total").render())
            hold.release()
            await until(pilot, lambda: screen.result is not None, timeout=120)
    finally:
        if hold.locked():
            hold.release()
    assert any(re.search(r"started in the background \d+ s ago", t) for t in seen), seen
    assert sorted(measured) == ["nobody", "reference"]  # once, by the background worker


@sync
async def test_the_early_debrief_shows_the_rest_of_the_night_with_a_time_estimate(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await to_night(pilot)
        await type_line(pilot, "wait 10m")
        app.driver.lock.acquire()  # hold the scoring worker back, to watch every report
        try:
            await type_line(pilot, "debrief")
            await pilot.press("y")
            await until(pilot, lambda: screen_name(app) == "DebriefScreen")
            screen = app.screen
            seen: list[tuple[str, float | None]] = []
            show = screen.show_progress
            screen.show_progress = lambda p: (seen.append((p.text, p.overall)), show(p))[1]
        finally:
            app.driver.lock.release()
        await until(pilot, lambda: screen.result is not None, timeout=120)
    playing = [(t, f) for t, f in seen if t.startswith("Playing out the rest of the night")]
    assert any(re.search(r"about \d+ (s|min)( \d+ s)? left", t) for t, _ in playing), playing
    assert any(re.search(r"\d\d:\d\d of \d\d:\d\d", t) for t, _ in playing), playing
    shares = [f for _, f in playing if f is not None]
    assert shares == sorted(shares) and shares[-1] > 0  # the bar moves forward only


@sync
async def test_leaving_while_par_is_measured_stops_it_and_leaves_no_thread(
    tmp_path, fresh_cache, measured
):
    pytest.importorskip("torch")
    app = make_app("failures-at-scale", tmp_path=tmp_path, backend="inprocess")
    incident = app.loaded.incident
    # Held while the night opens, so the worker starts measuring only once the night is on
    # screen (its longest par: about 10 s of replica nights here).
    hold = par._lock_for(("par", par.cache_key(incident, incident.seeds[0], "inprocess")))
    hold.acquire()
    try:
        async with app.run_test(size=(120, 50)) as pilot:
            await to_night(pilot)
            assert app.driver.par_running() and not measured
            hold.release()
            await until(pilot, lambda: measured, timeout=60)
            await pilot.press("ctrl+q", "y")
            await until(pilot, lambda: app.driver.closed, timeout=60)
    finally:
        if hold.locked():
            hold.release()
    driver = app.driver
    # The measurement returned before the app was gone, and gave up part way.
    assert driver.par_done.is_set() and not driver.par_measured
    assert driver.par_worker.state in (WorkerState.SUCCESS, WorkerState.CANCELLED)
    # Which night it was in when the learner left depends on the machine's speed (the floor's
    # night may be done and the reference's begun): what matters is that none was kept.
    assert not driver.error and not driver.failed, (driver.error, driver.failure)
    assert not _par_file(app).exists()

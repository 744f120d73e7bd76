"""A learner's replica that cannot start, with Enter pressed while the cluster was getting
ready: the learner is not left on a night screen that waits forever. The briefing comes back
with the one-line refusal, Enter takes them back to the incidents, Quit stays beside it."""

from __future__ import annotations

from textual.widgets import Button, Static

from tests.tui.tuikit import SIZE, make_app, sync, until

BROKEN = "tests.replica.learner_replicas:slow_raiser"


@sync
async def test_enter_during_warm_up_with_a_broken_replica_lands_on_the_refusal(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path, backend="inprocess", replica=BROKEN)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: type(app.screen).__name__ == "BriefingScreen")
        await pilot.pause()
        assert not (app.driver.warm or app.driver.error), "Enter must land during the warm-up"
        await pilot.press("enter")
        # Under load the refusal can come before the night screen draws: either order is fine.
        await until(
            pilot,
            lambda: type(app.screen).__name__ == "NightScreen" or app.driver.error is not None,
            loud=False,
        )
        await until(pilot, lambda: app.driver.error is not None, timeout=120, loud=False)
        await until(pilot, lambda: type(app.screen).__name__ == "BriefingScreen", loud=False)
        status = str(app.screen.query_one("#status", Static).render())
        assert status.startswith("Could not start the night: replica " + BROKEN), status
        assert "RuntimeError: my factory is broken: no GPU found" in status
        assert "Back to the incidents" in str(app.screen.query_one("#start", Button).label)
        assert app.screen.query_one("#quit", Button)
        assert app.driver.session is None and not list(tmp_path.glob("*.jsonl"))
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "PickerScreen", loud=False)

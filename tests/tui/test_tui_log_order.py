"""The night's log reads as it happened: a command and its answer first, then what it caused
(audit defect 11). Live and on a resumed night alike."""

from __future__ import annotations

import re

from drill.saves import read_save
from tests.tui.tuikit import log_text, make_app, sync, to_night, type_line, until

WIDE = (180, 50)  # wide enough that no log line wraps
STAMP = re.compile(r"^(\d\d):(\d\d):(\d\d) ")


def _stamped(text: str) -> list[tuple[int, str]]:
    """Every log line that starts with a clock, as (seconds, line)."""
    out = []
    for line in text.splitlines():
        if found := STAMP.match(line):
            hours, minutes, seconds = (int(part) for part in found.groups())
            out.append((hours * 3600 + minutes * 60 + seconds, line))
    return out


def _check_order(text: str) -> None:
    stamped = _stamped(text)
    times = [seconds for seconds, _ in stamped]
    assert times == sorted(times), "\n".join(line for _, line in stamped)
    lines = text.splitlines()
    restart = next(i for i, line in enumerate(lines) if "> restart llm-pretrain" in line)
    pending = next(i for i, line in enumerate(lines) if "pending: restarted by you" in line)
    drain = next(i for i, line in enumerate(lines) if "> drain gpu-a-2" in line)
    draining = next(i for i, line in enumerate(lines) if "draining: drained by you" in line)
    assert drain < draining and restart < pending, text
    assert "resubmitted" in lines[restart + 1]  # the answer right under its command


@sync
async def test_a_command_and_its_answer_come_before_what_it_caused(tmp_path):
    app = make_app("dead-rank", tmp_path=tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await to_night(pilot)
        await type_line(pilot, "drain gpu-a-2")
        await type_line(pilot, "restart llm-pretrain --from latest --exclude gpu-a-2")
        await type_line(pilot, "wait 2m")
        _check_order(log_text(app))
        await pilot.press("ctrl+q", "y")
        await until(pilot, lambda: app.driver.closed)

    # The same night carried on from its save prints its log in the same order.
    from drill.incident.library import resolve_incident

    again = make_app(resume=read_save(tmp_path / "dead-rank.jsonl"), tmp_path=tmp_path)
    again.loaded = resolve_incident("dead-rank")
    async with again.run_test(size=WIDE) as pilot:
        await to_night(pilot)
        _check_order(log_text(again))

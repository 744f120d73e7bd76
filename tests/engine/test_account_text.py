"""The account as text (`drill run` without --json): its "What happened" part lists the pages,
the nodes' changes and the learner's job, read from the night's typed events; the world's own
records (which fault fired), steps and other teams' jobs stay out."""

from __future__ import annotations

import re

from drill.engine.account import account, render_text
from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.timed import parse_text


def what_happened(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("What happened:") + 1
    return lines[start : lines.index("", start)]


def test_what_happened_lists_pages_nodes_and_the_learners_job_only(dead_rank):
    d = Drill(dead_rank, 1)
    play(
        d, parse_text("\n".join(dead_rank.reference), "reference", {f.id for f in dead_rank.faults})
    )
    shown = what_happened(render_text(d, account(d)))
    mine = d.learner_job.name
    pages = d.world.pager.alerts
    assert pages and all(f"  {d.clock(a.time)} {a.text[:140]}" in shown for a in pages)
    assert any(f"{mine} training from" in line for line in shown)
    assert any(" down" in line or " drained" in line for line in shown), shown
    assert not any(re.fullmatch(r"  \S+ step \d+", line) for line in shown)  # the curve has them
    assert not any(f"fault {f.id} (" in line for f in dead_rank.faults for line in shown)
    others = [j for j in d.world.jobs.values() if not j.yours]
    assert others and not any(f" {j.name} " in line for j in others for line in shown)

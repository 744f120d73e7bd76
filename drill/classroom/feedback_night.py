"""One graded night's part of a learner's feedback page: the night's debrief (the score with
every component against the reference and doing nothing, the loss curve, the timeline, the
takeaways, their opinion answer) and their runbook, built by drill/report.py and
drill/runbook.py from the night the grading worker has just replayed, so nothing is replayed
twice. The page itself (drill/classroom/feedback.py) puts the nights together."""

from __future__ import annotations

import re

from drill.night_record import NightRecord
from drill.report import night_sections, reference_timeline
from drill.text_safety import visible


def night_feedback(save, loaded, drill) -> str:
    record = NightRecord(save, loaded, drill, save.score is not None, save.score)
    record.losses = list(drill.learner_job.losses)
    if save.backend != "sim":
        record.baseline = drill.baseline_losses()
    html = "\n".join(night_sections(record, reference_timeline(record), key_concepts=False))
    # One page holds several nights: each night's element ids get the night's id in front.
    html = re.sub(r' id="([a-z-]+)"', lambda m: f' id="{loaded.incident.id}-{m.group(1)}"', html)
    # Under the page's own "Night N" heading, the night's sections are one level down.
    html = re.sub(r"<(/?)h2>", r"<\1h3>", html)
    return visible(html)

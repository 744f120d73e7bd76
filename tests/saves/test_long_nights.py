"""Save times have no day limit (issue 20): a night may last as long as the schema allows
(MAX_NIGHT, 60 days), and its save must read, replay, verify and resume past the first day.
Save times stopped at 86,400 s, so a 48 h night ran and then could not be replayed."""

from __future__ import annotations

import json

from drill.saves.reader import MAX_TIME
from drill.values.bounds import HOUR, MAX_NIGHT
from tests.clikit import run_drill
from tests.drillkit import incident_dict, job_spec
from tests.saves.savekit import cut_after, records

# Times relative to the previous action's end: the last ones land on the night's second day.
ACTIONS = """\
+1h status train
+26h status train
+2h health gpu-a-1
+10h note still training on day two
"""


def two_day_incident(folder):
    data = incident_dict(
        length="48h",
        jobs=[job_spec("train", yours=True, steps=2_500, step_time="1m")],
        id="two-day-night",
    )
    path = folder / "two-day-night.yaml"
    path.write_text(json.dumps(data))  # JSON is YAML
    return path


def test_the_save_time_limit_is_the_longest_night():
    assert MAX_TIME == MAX_NIGHT


def test_a_48_hour_night_saves_replays_verifies_and_resumes(tmp_path):
    incident = two_day_incident(tmp_path)
    actions = tmp_path / "night.actions"
    actions.write_text(ACTIONS)
    save = tmp_path / "two-days.jsonl"
    done = run_drill(
        "run", str(incident), "--backend", "sim", "--actions", str(actions),
        "--save", str(save), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = records(save)
    times = [r["time"] for r in rows if r["type"] == "action"]
    assert len(times) == 4 and max(times) > 24 * HOUR, times

    for command in (["replay", str(save)], ["replay", str(save), "--verify"]):
        done = run_drill(*command)
        assert done.returncode == 0, done.stderr

    cut = cut_after(save, tmp_path / "cut.jsonl", 2)
    done = run_drill("run", "--resume", str(cut), "--actions", str(actions), "--json")
    assert done.returncode == 0, done.stderr
    assert records(cut) == rows, "the resumed night is not the night that would have been"

"""The picker's best scores come quickly whatever lies in the saves folder: it reads only each
save's header and score line, from a bounded number of bytes at either end, so a hostile or
huge save is skipped or cheap, and the first frame never waits on it (issue 20: a blank screen
for 150 s with an 80 KB save in the folder)."""

from __future__ import annotations

import json
import time

import pytest

from drill.saves import best_scores, read_save
from drill.saves.folder import HEAD_BYTES, TAIL_BYTES
from drill.tui.screens.picker import load_entries
from tests.saves.savekit import play_night, records, write_records


@pytest.fixture(scope="module")
def night(tmp_path_factory):
    save, _ = play_night(tmp_path_factory.mktemp("night"))
    return save


def cpu_seconds(call):
    start = time.process_time()
    result = call()
    return result, time.process_time() - start


def test_the_picker_skips_an_80_kb_pathological_save_in_under_a_second(night, tmp_path):
    folder = tmp_path / "saves"
    folder.mkdir()
    (folder / "good.jsonl").write_bytes(night.read_bytes())
    header = night.read_text().splitlines()[0]
    # The issue's line: an unterminated string of `\"` pairs, 80 KB, last in the file and in
    # the middle of another.
    hostile = '{"type": "action", "text": "' + '\\"' * 40_000
    (folder / "hostile-last.jsonl").write_text(header + "\n" + hostile + "\n")
    (folder / "hostile-middle.jsonl").write_text(
        night.read_text().replace("\n", "\n" + hostile + "\n", 1)
    )
    total = records(night)[-1]["score"]["total"]

    (entries, problems), took = cpu_seconds(lambda: load_entries(folder))
    assert took < 1.0, f"the picker's entries took {took:.2f} CPU seconds"
    assert problems == []
    assert {e.loaded.incident.id: e.best for e in entries}["dead-rank"] == total

    scores, took = cpu_seconds(lambda: best_scores(folder))
    assert took < 0.2, f"best scores took {took:.2f} CPU seconds"
    assert scores == {"dead-rank": total}


def test_a_huge_save_costs_the_picker_only_its_two_ends(night, tmp_path):
    """A save near the 50 MB limit, every line valid: reading it whole takes seconds; the
    picker parses at most HEAD_BYTES + TAIL_BYTES of it."""
    rows = records(night)
    action = next(r for r in rows if r["type"] == "action")
    filler = [
        {**action, "n": n, "time": action["time"], "end": action["time"], "result": "x" * 1_900_000}
        for n in range(1, 21)
    ]
    actions = [r for r in rows if r["type"] == "action"]
    filler += [dict(row, n=n) for n, row in enumerate(actions, start=len(filler) + 1)]
    big = [rows[0], *filler, rows[-1]]
    path = write_records(tmp_path / "big.jsonl", big)
    assert path.stat().st_size > 30_000_000
    assert read_save(path).score is not None  # a real, whole save

    scores, took = cpu_seconds(lambda: best_scores(tmp_path))
    assert scores == {"dead-rank": rows[-1]["score"]["total"]}
    assert took < 0.05, f"best scores read the whole save: {took:.2f} CPU seconds"
    assert HEAD_BYTES + TAIL_BYTES < 1_000_000


def test_a_score_line_followed_by_the_debriefs_words_still_counts(night, tmp_path):
    rows = records(night) + [
        {"type": "text", "key": f"debrief.{i}", "value": "why"} for i in range(5)
    ]
    write_records(tmp_path / "debriefed.jsonl", rows)
    assert best_scores(tmp_path) == {"dead-rank": rows[len(records(night)) - 1]["score"]["total"]}


def test_an_unfinished_save_has_no_best_score(night, tmp_path):
    rows = [r for r in records(night) if r["type"] != "score"]
    write_records(tmp_path / "unfinished.jsonl", rows)
    assert best_scores(tmp_path) == {}
    assert json.loads(night.read_text().splitlines()[-1])["type"] == "score"

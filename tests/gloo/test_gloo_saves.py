"""A gloo night's save is the night's, not the run's: two runs of the same inputs write the
same save, and `drill replay --verify` (which runs the real processes again) passes on it.

The survivors' own gloo error lands in action results (`status tiny-train` shows how the
attempt ended), and it used to carry the peer's ephemeral port, so no gloo save verified.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.clikit import run_drill

pytestmark = pytest.mark.slow  # every test here starts real torch processes


def gloo_night(save: Path, incident: str, *, reference: bool = True) -> dict:
    played = ["--reference"] if reference else []
    done = run_drill(
        "run", incident, *played, "--backend", "gloo", "--ranks", "2", "--seed", "1",
        "--json", "--save", str(save), timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def lines(save: Path) -> list[dict]:
    rows = [json.loads(line) for line in save.read_text(encoding="utf-8").splitlines()]
    rows[0].pop("origin", None)  # the machine it was made on: the same here, but not the night
    return rows


def verify(save: Path) -> str:
    done = run_drill("replay", str(save), "--verify", timeout=600)
    assert done.returncode == 0, done.stderr + done.stdout[-2000:]
    return done.stdout


def test_two_gloo_tutorial_nights_write_the_same_save_and_it_verifies(tmp_path):
    started = time.monotonic()
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    first = gloo_night(one, "tutorial")
    second = gloo_night(two, "tutorial")
    # The real text is there, in a result, so the comparison below covers it.
    results = " ".join(r.get("result", "") for r in lines(one) if r["type"] == "action")
    # Said on the job's own network: the peer is the killed rank's node, not 127.0.0.1.
    assert re.search(r"Connection closed by peer \[10(\.\d+){3}\]:<port>", results), results[:2000]
    assert "127.0.0.1" not in results
    assert lines(one) == lines(two)
    assert first["timeline"] == second["timeline"]
    assert "Verified" in verify(one)
    print(f"tutorial on gloo: two nights and a verify in {time.monotonic() - started:.0f}s")


def test_a_gloo_dead_rank_night_verifies(tmp_path):
    started = time.monotonic()
    save = tmp_path / "dead-rank.jsonl"
    # Nobody acts, so the survivors' timeout is said at the collective timeout (the reference
    # restarts before it, and then they have said nothing to check).
    data = gloo_night(save, "dead-rank", reference=False)
    assert any(e["kind"] == "job_log" for e in data["timeline"]), "no real text to check"
    assert "Verified" in verify(save)
    print(f"dead-rank on gloo: a night and a verify in {time.monotonic() - started:.0f}s")

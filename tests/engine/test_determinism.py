"""Same incident, seed and actions: the same night, in any process, whatever the hash seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from drill.engine.account import account
from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.timed import parse_text
from tests.drillkit import REPO


def run_cli(*args: str, hashseed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    return subprocess.run(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_hash_seed_does_not_change_the_night():
    args = ("run", "incidents/dead-rank.yaml", "--reference", "--json")
    one = run_cli(*args, hashseed="1")
    two = run_cli(*args, hashseed="12345")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert one.stdout == two.stdout
    data = json.loads(one.stdout)
    assert data["recovered"] is True
    assert len(data["timeline"]) > 10


def reference_night(incident, seed: int) -> dict:
    d = Drill(incident, seed)
    actions = parse_text(
        "\n".join(incident.reference), "reference", {f.id for f in incident.faults}
    )
    return account(d, play(d, actions))


def test_same_seed_twice_in_one_process_gives_identical_accounts(dead_rank):
    first = reference_night(dead_rank, 1)
    second = reference_night(dead_rank, 1)
    assert first == second
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


def background(data: dict) -> dict[str, int]:
    return {name: job["gpus"] for name, job in data["jobs"].items() if not job["yours"]}


def test_another_seed_changes_the_background_load(dead_rank):
    one = background(reference_night(dead_rank, 1))
    two = background(reference_night(dead_rank, 2))
    assert one and two
    assert one != two


def test_another_seed_changes_what_the_learner_sees_in_queue(dead_rank):
    def queue_rows(seed: int) -> list[str]:
        d = Drill(dead_rank, seed)
        d.advance(60)
        out = d.act("queue").output
        return sorted(line.split()[0] for line in out.splitlines()[1:])

    assert queue_rows(1) == queue_rows(1)
    assert queue_rows(1) != queue_rows(2)

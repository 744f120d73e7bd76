"""Golden replays: each shipped incident's reference and graded runbooks, saved once, must
replay through today's engine to the same results and the same score. A failure names the first
line that differs; if the change was meant, run tests/golden/regenerate.py and review the diff."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = sorted(Path(__file__).resolve().parent.glob("*.jsonl"))


def test_every_shipped_incident_has_goldens():
    stems = {p.name.split("--")[0] for p in GOLDEN}
    shipped = {p.stem for p in (REPO / "drill" / "incidents").glob("*.yaml")}
    assert shipped <= stems, (
        f"missing goldens for {sorted(shipped - stems)}; run tests/golden/regenerate.py"
    )


@pytest.mark.slow
@pytest.mark.parametrize("save", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_replays_verify(save):
    done = subprocess.run(
        [sys.executable, "-m", "drill", "replay", str(save), "--verify"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr

"""A replica night depends only on its incident, seed and actions, never on what the process
played before: `drill play` plays several nights in one process (next incident, replay), and
each one's save must verify later in a fresh process.

The night whose checkpoint bytes showed it: corrupt-checkpoint's reference verifies checkpoint
hashes, and a checkpoint holds torch's global RNG state. The replica check that runs before a
night is remembered per process, and a night that skipped it started from a different RNG state
than a fresh process does, so its checkpoints hashed differently and the replay failed."""

from __future__ import annotations

from pathlib import Path

from tests.clikit import run_drill

SAVE = Path(__file__).resolve().parent / "corrupt-checkpoint--reference.jsonl"


def test_a_golden_replays_in_process_after_another_night_in_the_same_process():
    # The golden was written by a fresh process; each replay here is a night played in this
    # one, the second after the first (and after whatever this worker ran before).
    for attempt in (1, 2):
        done = run_drill("replay", str(SAVE), "--verify", "--across-versions", "--json")
        assert done.returncode == 0, f"replay {attempt} in one process: {done.stderr}"

"""Golden replays: each shipped incident's reference and graded runbooks, saved once, must
replay through today's engine to the same results and the same score, and come to what
expected.txt says in words a person wrote. A failure names the first line that differs; if the
change was meant, run tests/golden/regenerate.py, review the diff, and update expected.txt."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.clikit import run_drill_process

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
GOLDEN = sorted(HERE.glob("*.jsonl"))


def expectations() -> dict[str, dict]:
    rows = {}
    for line in (HERE / "expected.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, recovered, step, match, total = line.split()
        rows[name] = {
            "recovered": {"yes": True, "no": False}[recovered],
            "final_step": int(step),
            "match": None if match == "-" else match,
            "total": float(total),
        }
    return rows


def test_every_shipped_incident_has_goldens():
    stems = {p.name.split("--")[0] for p in GOLDEN}
    shipped = {p.stem for p in (REPO / "drill" / "incidents").glob("*.yaml")}
    assert shipped <= stems, (
        f"missing goldens for {sorted(shipped - stems)}; run tests/golden/regenerate.py"
    )


def test_every_golden_has_written_expectations():
    assert set(expectations()) == {p.stem for p in GOLDEN}


def replay(save: Path, *more: str) -> subprocess.CompletedProcess:
    # --across-versions: a golden was saved by the engine of its day, and the question is
    # whether today's engine still plays it the same (verify alone stops at line 1).
    # A real process each: a golden is about what a fresh `drill replay` gives. (Nights in one
    # process give the same bytes too: test_nights_in_one_process.py.)
    return run_drill_process("replay", str(save), "--verify", "--across-versions", "--json", *more)


@pytest.mark.slow
@pytest.mark.parametrize("save", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_replays_verify(save):
    done = replay(save)
    assert done.returncode == 0, done.stderr
    night = json.loads(done.stdout)
    found = {
        "recovered": night["recovered"],
        "final_step": night["replica"]["final_step"],
        "match": night["replica"]["match"],
        "total": night["score"]["total"],
    }
    assert found == expectations()[save.stem]


def other_machine(save: Path, folder: Path, edit) -> Path:
    """The golden as another machine might have written it: its header names another CPU, and
    `edit` changes the text the way that machine's rounding would have."""

    def elsewhere(origin):
        return {**origin, "cpu": "Some Other CPU", "cpu_kernels": "AVX2"}

    return _with_origin(save, folder / save.name, edit, elsewhere)


def this_machine(save: Path, path: Path, edit) -> Path:
    """The golden as if this machine had written it (the goldens were made on whichever
    machine last regenerated them, which need not be the one running the tests), edited."""
    from drill.saves.origin import current_origin

    return _with_origin(save, path, edit, lambda origin: current_origin(True))


def _with_origin(save: Path, path: Path, edit, origin) -> Path:
    lines = save.read_text().splitlines()
    header = json.loads(lines[0])
    header["origin"] = origin(header["origin"])
    lines[0] = json.dumps(header, sort_keys=True)
    path.write_text(edit("\n".join(lines)) + "\n")
    return path


@pytest.mark.slow
def test_a_golden_from_another_machine_verifies_with_its_last_digits_different(tmp_path):
    """Issue 12's case: relative distance 4.70e-04 here, 5.81e-04 in the file."""
    save = HERE / "preempted-job--reference.jsonl"
    assert "relative distance 5.81e-04" in save.read_text()

    def to_470(text):
        return text.replace("distance 5.81e-04", "distance 4.70e-04")

    elsewhere = other_machine(save, tmp_path, to_470)
    done = replay(elsewhere)
    assert done.returncode == 0, done.stderr
    # The same edit with this machine's origin in the header is a real difference.
    here = this_machine(save, tmp_path / "here.jsonl", to_470)
    differs = replay(here)
    assert differs.returncode == 1
    assert re.search(r"components\[integrity\]\.why", differs.stderr), differs.stderr
    # This machine's own figure (5.81e-04 where the goldens were made) against the edited one.
    shown = r"the replay gives .*distance ([0-9.e+-]+)\).*the save has .*distance 4\.70e-04\)"
    found = re.search(shown, differs.stderr)
    assert found and found.group(1) != "4.70e-04", differs.stderr


@pytest.mark.slow
def test_a_golden_from_another_machine_still_fails_on_a_decision(tmp_path):
    save = HERE / "preempted-job--reference.jsonl"
    elsewhere = other_machine(
        save, tmp_path, lambda text: text.replace('"weights": "close"', '"weights": "bitexact"', 1)
    )
    done = replay(elsewhere)
    assert done.returncode == 1
    assert "`score.components[integrity]" in done.stderr and "weights" in done.stderr
    assert "compared within tolerance" in done.stderr

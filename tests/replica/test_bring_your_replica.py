"""Bring your own replica, through the real command line: a night of dead-rank trained by the
shipped spiral MLP, and learners' replicas refused before the night, one line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from drill.engine.replica_training import ReplicaTraining
from tests.clikit import run_drill
from tests.drillkit import build, job_spec

REPO = Path(__file__).resolve().parents[2]
BAD = "tests.replica.learner_replicas"


def drill(*args: str, cwd: Path = REPO, timeout: float = 600) -> subprocess.CompletedProcess:
    # In this process (tests/clikit.py); docs/bring-your-replica.md's example is the
    # real-process sample (tests/replica/test_bring_your_replica_doc.py).
    return run_drill(*args, cwd=cwd, timeout=timeout)


@pytest.fixture(scope="module")
def mlp_night(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlp")
    save = tmp / "night.jsonl"
    done = drill(
        "run", "dead-rank", "--reference", "--replica", "spiral-mlp", "--json",
        "--save", str(save), "--saves-dir", str(tmp / "saves"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), save, tmp


def test_dead_rank_with_the_spiral_mlp_is_scored_from_its_own_training(mlp_night) -> None:
    from replica.interface import load_replica
    from replica.trainer import Trainer

    data, _, _ = mlp_night
    replica = data["replica"]
    assert replica["replica"] == "spiral-mlp" and replica["backend"] == "inprocess"
    assert replica["final_step"] == 300 and replica["match"] == "bitexact"
    # The undisturbed MLP, trained here on its own: the night's figures are its losses.
    undisturbed = Trainer(load_replica("spiral-mlp", {})).train(300)
    assert replica["baseline_loss"] == undisturbed[-1]
    assert replica["final_loss"] == undisturbed[-1]
    # Not the GPT's numbers: the GPT ends a default night near 0.53.
    gpt = Trainer(load_replica("addition-gpt", {})).train(3)
    assert undisturbed[0] != gpt[0]
    parts = {c["name"]: c for c in data["score"]["components"]}
    # The integrity verdict is this replica's match against its own undisturbed run, and par
    # was played with the same replica.
    verdict = parts["integrity"]["value"]
    assert verdict.get("weights", verdict.get("match")) == replica["match"]
    par = parts["integrity"]["par"]
    assert par.get("weights", par.get("match")) == "bitexact"
    # Progress is read from the replica (bit for bit the undisturbed run here: at its own step).
    assert "progress" in parts and isinstance(parts["progress"]["value"]["steps_behind"], int)
    assert parts["progress"]["value"] == parts["progress"]["par"]
    assert data["score"]["total"] >= 90


def test_the_save_remembers_the_replica_and_replays_with_it(mlp_night) -> None:
    data, save, tmp = mlp_night
    header = json.loads(save.read_text().splitlines()[0])
    assert header["replica"] == "spiral-mlp"
    again = drill("replay", str(save), "--verify", "--json", "--saves-dir", str(tmp / "saves"))
    assert again.returncode == 0, again.stderr
    replayed = json.loads(again.stdout)["replica"]
    assert replayed["replica"] == "spiral-mlp"
    assert replayed["weights_sha256"] == data["replica"]["weights_sha256"]
    # Carry on the night before its score: another replica is refused.
    unfinished = tmp / "unfinished.jsonl"
    lines = save.read_text().splitlines(keepends=True)
    unfinished.write_text(
        "".join(
            line for line in lines if '"type": "score"' not in line and '"type": "text"' not in line
        )
    )
    other = drill("run", "--resume", str(unfinished), "--replica", "addition-gpt")
    assert other.returncode == 2 and "this night ran replica spiral-mlp" in other.stderr


@pytest.mark.parametrize(
    ("factory", "text"),
    [
        ("unseeded_init", "is not deterministic"),
        ("noisy_data", "is not deterministic"),
        ("no_loss", "is missing loss"),
        ("slow", "is too slow for a night"),
    ],
)
def test_a_bad_replica_is_refused_before_the_night(tmp_path, factory: str, text: str) -> None:
    save = tmp_path / "night.jsonl"
    done = drill(
        "run", "dead-rank", "--reference", "--replica", f"{BAD}:{factory}",
        "--save", str(save), "--saves-dir", str(tmp_path / "saves"), timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], done.stderr
    assert lines[0].startswith("drill: replica ")
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not save.exists(), "no save is written for a night that never started"


def test_the_incident_can_name_the_replica(tmp_path) -> None:
    incident = build(jobs=[job_spec("train", yours=True, steps=30, replica_factory="spiral-mlp")])
    t = ReplicaTraining(incident, cache_dir=tmp_path)
    try:
        assert t.replica.name == "spiral-mlp" and t.replica.global_batch == 64
    finally:
        t.close()


def test_settings_out_of_bounds_are_refused_by_validate_and_run(tmp_path) -> None:
    source = (REPO / "incidents" / "dead-rank.yaml").read_text()
    assert "    yours: true\n" in source
    for setting, value, bound in (
        ("width", 1_000_000_000_000, "at most 512"),
        ("global_batch", 4_000_000, "at most 1024"),
    ):
        path = tmp_path / f"huge-{setting}.yaml"
        path.write_text(
            source.replace(
                "    yours: true\n", f"    yours: true\n    replica: {{{setting}: {value}}}\n"
            )
        )
        checked = drill("validate", str(path), timeout=120)
        assert checked.returncode == 2, checked.stdout + checked.stderr
        said = checked.stdout + checked.stderr
        assert f"replica setting {setting} is {value}" in said and bound in said
        assert f"{path.name}:" in said  # located in the file
        ran = drill(
            "run", str(path), "--save", str(tmp_path / f"{setting}.jsonl"),
            "--saves-dir", str(tmp_path / "saves"), timeout=120,
        )  # fmt: skip
        assert ran.returncode == 2 and f"replica setting {setting} is {value}" in ran.stderr
        assert "Traceback" not in ran.stderr


def test_choosing_a_replica_imports_neither_torch_nor_the_replica(tmp_path) -> None:
    # What play and run do at start-up: read the project config, check the name, copy the
    # incident. The factory's module (and torch) load only when the replica backend starts.
    (tmp_path / "pyproject.toml").write_text('[tool.drill]\nreplica = "spiral-mlp"\n')
    code = f"""
import sys
from pathlib import Path
from drill.incident.library import resolve_incident
from drill.replica_choice import choose_replica, project_replica
loaded = resolve_incident("dead-rank")
assert project_replica(Path({str(tmp_path)!r})) == "spiral-mlp"
chosen = choose_replica(loaded, None, folder=Path({str(tmp_path)!r}))
assert chosen.incident.learner_job.replica_factory == "spiral-mlp"
typed = choose_replica(loaded, "someones.replica:make")  # the command line may name code
assert typed.incident.learner_job.replica_factory == "someones.replica:make"
assert loaded.incident.learner_job.replica_factory is None  # the original is untouched
bad = [m for m in sys.modules if m.split(".")[0] in ("torch", "someones") or m == "replica.spiral_mlp"]
assert not bad, bad
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[tool.drill]\nreplica = 3\n", "must be a string"),
        ("[tool.drill]\nreplca = 'x:y'\n", "unknown key 'replca'"),
        ("[tool.drill]\nreplica = 'not a name'\n", "is not a replica name"),
        ("[tool.drill]\nreplica = 'myweek.replica:make'\n", "a file cannot name code"),
        ("[tool.drill\n", "not valid TOML"),
    ],
)
def test_a_bad_project_config_is_one_line(tmp_path, text: str, said: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    done = drill("run", "dead-rank", "--backend", "sim", cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "pyproject.toml" in lines[0], done.stderr

"""Par and floor caches that cannot go stale, in the folder the caller names.

The key is a hash of the engine, simulation, incident-loader and replica source, the incident's
content, the seed and the backend: change any of them and a cached par is never served again.
The engine never picks a folder itself; the session layer hands it saves/cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from drill.engine.drill import Drill
from drill.engine.scoring import par
from drill.fingerprint import fingerprint_of, source_files, source_fingerprint
from tests.drillkit import REPO, build, job_spec


def quiet_night():
    return build(jobs=[job_spec("train", yours=True, steps=60)], length="30m")


# -- the fingerprint ----------------------------------------------------------------------------


def test_the_fingerprint_covers_what_decides_a_night_only():
    names = [name for name, _ in source_files()]
    assert names == sorted(names)
    for expected in (
        "drill/engine/scoring/par.py",
        "drill/engine/actions/dispatch.py",
        "drill/sim/world.py",
        "drill/incident/yaml_source.py",
        "drill/incident/loader.py",
        "drill/faults/gpu_xid.py",
        "drill/values/units.py",
        "drill/states.py",
        "replica/trainer.py",
    ):
        assert expected in names
    allowed = (
        "drill/engine/",
        "drill/sim/",
        "drill/faults/",
        "drill/incident/",
        "drill/values/",
        "replica/",
    )
    assert all(
        (name.startswith(allowed) or name == "drill/states.py") and name.endswith(".py")
        for name in names
    ), names
    assert not [name for name in names if name.startswith("drill/tui/")]
    assert not [name for name in names if "__pycache__" in name]


def test_every_source_file_under_those_folders_is_in_it():
    on_disk = {
        path.relative_to(REPO).as_posix()
        for folder in (
            "drill/engine",
            "drill/sim",
            "drill/faults",
            "drill/incident",
            "drill/values",
            "replica",
        )
        for path in (REPO / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    } | {"drill/states.py"}
    assert {name for name, _ in source_files()} == on_disk


def test_one_byte_anywhere_changes_the_fingerprint():
    files = source_files()
    base = fingerprint_of(files)
    assert base == source_fingerprint()
    assert len(base) == 64 and int(base, 16) >= 0
    for index in (0, len(files) // 2, len(files) - 1):
        name, data = files[index]
        changed = [*files[:index], (name, data + b" "), *files[index + 1 :]]
        assert fingerprint_of(changed) != base, name
    # Renaming a file, or moving bytes from one file to the next, is a change too.
    name, data = files[0]
    assert fingerprint_of([(name + "x", data), *files[1:]]) != base
    (a, da), (b, db), *rest = files
    assert fingerprint_of([(a, da + db[:1]), (b, db[1:]), *rest]) != base
    # The order files are found in is not.
    assert fingerprint_of(list(reversed(files))) == base


def test_the_fingerprint_is_the_same_in_another_process_with_another_hash_seed():
    code = "from drill.fingerprint import source_fingerprint; print(source_fingerprint())"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == source_fingerprint()


def test_engine_version_is_the_fingerprint_not_a_hand_bumped_number():
    import drill

    assert source_fingerprint() == drill.ENGINE_VERSION


# -- the key ------------------------------------------------------------------------------------


def test_the_key_changes_with_source_incident_seed_and_backend(monkeypatch):
    night = quiet_night()
    key = par.cache_key(night, 1, "sim")
    assert key.startswith("test-night-s1-sim-")
    assert par.cache_key(night, 1, "sim") == key
    assert par.cache_key(night, 2, "sim") != key
    assert par.cache_key(night, 1, "inprocess") != key
    longer = build(jobs=[job_spec("train", yours=True, steps=61)], length="30m")
    assert par.cache_key(longer, 1, "sim") != key
    monkeypatch.setattr(par, "source_fingerprint", lambda: "0" * 64)
    assert par.cache_key(night, 1, "sim") != key


# -- the cache ----------------------------------------------------------------------------------


def test_a_par_cached_for_other_source_is_never_served(tmp_path, monkeypatch):
    night = quiet_night()
    par_first, floor_first = par.par_and_floor(night, 1, "sim", cache_dir=tmp_path)
    (entry,) = (tmp_path / "par").glob("*.json")
    assert entry.name == par.cache_key(night, 1, "sim") + ".json"

    # The folder really is the cache: an entry under the current key is what gets read.
    data = json.loads(entry.read_text())
    data["par"]["final_step"] = 12345
    entry.write_text(json.dumps(data))
    assert par.par_and_floor(night, 1, "sim", cache_dir=tmp_path)[0].final_step == 12345

    # The same night after a change to the engine's source: the old entry is not read.
    monkeypatch.setattr(par, "source_fingerprint", lambda: "f" * 64)
    par_again, floor_again = par.par_and_floor(night, 1, "sim", cache_dir=tmp_path)
    assert par_again == par_first and floor_again == floor_first
    assert len(list((tmp_path / "par").glob("*.json"))) == 2


def test_without_a_cache_folder_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DRILL_SAVES_DIR", str(tmp_path / "saves"))
    night = build(jobs=[job_spec("train", yours=True, steps=61)], length="30m")
    first = par.par_and_floor(night, 3, "sim")
    assert par.par_and_floor(night, 3, "sim") == first
    assert par.reference_actions(night, 3, "sim") == []
    assert list(tmp_path.rglob("*")) == []


def test_the_drill_carries_the_folder_it_was_given(tmp_path):
    assert Drill.create(quiet_night(), 1, "sim").cache_dir is None
    assert Drill.create(quiet_night(), 1, "sim", cache_dir=tmp_path).cache_dir == tmp_path


def test_the_session_hands_the_engine_saves_cache(tmp_path, monkeypatch):
    from drill.incident.library import resolve_incident
    from drill.session import Session

    monkeypatch.setenv("DRILL_SAVES_DIR", str(tmp_path))
    session = Session.start(resolve_incident("tutorial"), 1, "sim", tmp_path / "night.jsonl")
    try:
        assert session.drill.cache_dir == tmp_path / "cache"
    finally:
        session.close()


@pytest.mark.parametrize("given", [None, "folder"])
def test_the_replica_baseline_goes_where_it_is_told(tmp_path, given):
    from drill.engine.replica_training import ReplicaTraining
    from drill.incident.library import resolve_incident

    folder = tmp_path / "cache" if given else None
    training = ReplicaTraining(resolve_incident("tutorial").incident, cache_dir=folder)
    try:
        if folder is None:
            # No folder given: the baseline lives and dies with this run, never in ./saves.
            assert training.cache_dir.is_relative_to(training.run_dir)
        else:
            assert training.cache_dir == folder
    finally:
        training.close()
    assert not Path(training.run_dir).exists()

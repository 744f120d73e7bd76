"""The wheel is the game: built, installed into a fresh venv outside the checkout, and played.

Nothing here may lean on the checkout being importable: every command runs from a folder
outside the repo, with no PYTHONPATH, through the fresh venv's own `drill` script. A wheel that
forgot its incidents (or found them relative to the source tree) fails here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from drill.fingerprint import source_fingerprint

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.name for p in (REPO / "drill" / "incidents").iterdir() if p.is_file())

pytestmark = pytest.mark.slow


def run(args: list[str | Path], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    # A clean environment: no PYTHONPATH or active venv pointing back at the checkout.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONNOUSERSITE"] = "1"
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("wheel")
    dist = root / "dist"
    run([sys.executable, "-m", "pip", "wheel", REPO, "--no-deps", "-q", "-w", dist], cwd=root)
    (wheel,) = dist.glob("threeam_drill-*.whl")

    venv = root / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=root)
    pip = venv / "bin" / "pip"
    # The CPU torch this suite runs on, by exact version, so pip takes the local wheel instead
    # of resolving the range to a multi-GB CUDA build.
    torch = metadata.version("torch").split("+")[0]
    run([pip, "install", "-q", f"torch=={torch}"], cwd=root)
    run([pip, "install", "-q", wheel], cwd=root)

    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return {"wheel": wheel, "venv": venv, "cwd": elsewhere, "saves": root / "saves"}


def drill(installed: dict[str, Path], *args: str) -> subprocess.CompletedProcess:
    return run(
        [installed["venv"] / "bin" / "drill", *args, "--saves-dir", installed["saves"]]
        if args[0] == "run"
        else [installed["venv"] / "bin" / "drill", *args],
        cwd=installed["cwd"],
    )


def test_the_wheel_holds_the_shipped_incidents_schema_and_guide(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    assert {"README.md", "schema.json", "dead-rank.yaml", "tutorial.yaml"} <= set(SHIPPED)
    missing = [name for name in SHIPPED if f"drill/incidents/{name}" not in names]
    assert not missing, f"the wheel lacks {missing}"


def test_drill_runs_from_the_installed_wheel_not_the_checkout(installed):
    python = installed["venv"] / "bin" / "python"
    code = (
        "import drill, drill.paths, drill.fingerprint, json;"
        "print(json.dumps([drill.__file__, str(drill.paths.incidents_dir()),"
        " drill.fingerprint.source_fingerprint()]))"
    )
    done = run([python, "-c", code], cwd=installed["cwd"])
    module, incidents, fingerprint = json.loads(done.stdout)
    site = installed["venv"].resolve()
    assert Path(module).resolve().is_relative_to(site), module
    assert Path(incidents).resolve().is_relative_to(site), incidents
    assert not Path(module).resolve().is_relative_to(REPO.resolve())
    # The same source gives the same fingerprint, read from the wheel's files.
    assert fingerprint == source_fingerprint()


def _shipped_in_order() -> list[str]:
    """The checkout's shipped incidents in the learning path's order, as `drill list` sorts."""
    from drill.incident.library import shipped_incident_files
    from drill.incident.loader import load_incident

    found = [load_incident(path).incident for path in shipped_incident_files()]
    return [i.id for i in sorted(found, key=lambda i: (i.order, i.id))]


def test_drill_list_from_another_folder(installed):
    done = drill(installed, "list", "--json")
    ids = [row["id"] for row in json.loads(done.stdout)]
    assert ids == _shipped_in_order()
    assert ids[:4] == ["tutorial", "dead-rank", "full-disk", "preempted-job"]
    plain = drill(installed, "list")
    assert "dead-rank" in plain.stdout


def test_drill_run_dead_rank_reference_on_the_sim_backend(installed):
    done = drill(installed, "run", "dead-rank", "--backend", "sim", "--reference", "--json")
    data = json.loads(done.stdout)
    assert data["incident"] == "dead-rank"
    assert data["recovered"] is True
    assert data["score"]["total"] > 0
    # Its par came from a cache in the folder it was given, not from ./saves.
    assert list((installed["saves"] / "cache" / "par").glob("dead-rank-*.json"))
    assert not (installed["cwd"] / "saves").exists()


def test_a_course_gradebook_from_the_installed_wheel(installed):
    """The gradebook's migrations ship inside the package and run from code, from any folder."""
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    assert "drill/classroom/gradebook/migrations/env.py" in names
    assert "drill/classroom/gradebook/migrations/versions/0001_first_gradebook.py" in names
    drill(installed, "course", "new", "week6", "--night", "tutorial")
    done = drill(installed, "course", "report", "--course", "week6")
    assert "No saves collected yet" in done.stdout
    assert (installed["cwd"] / "week6" / "gradebook.sqlite").is_file()

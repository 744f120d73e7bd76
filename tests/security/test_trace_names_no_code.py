"""A trace never names code: its rows are data. A module path where a number belongs is one
located line, exit 2; in a job's name or user it is only text. Nothing is imported either way.
(Traces never named code; this holds the line.)"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from tests.security.conftest import one_line

REPO = Path(__file__).resolve().parents[2]
HEADER = "job_id,user,num_inst,submit_time,duration,num_gpu\n"


def incident_with_trace(folder: Path, rows: str) -> Path:
    data = yaml.safe_load((REPO / "incidents" / "dead-rank.yaml").read_text())
    data["id"] = "traced"
    data.setdefault("background", {}).update({"utilization": 0, "trace": "jobs.csv"})
    data["background"].pop("arrivals_per_hour", None)
    (folder / "jobs.csv").write_text(HEADER + rows)
    path = folder / "traced.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_a_module_path_where_a_number_belongs_is_located(planted, cli) -> None:
    path = incident_with_trace(planted.folder, "j1,alice,1,60,600,1\nj2,bob,plant:make,90,600,1\n")
    for argv in (["validate", str(path)], ["run", str(path), "--backend", "sim"]):
        code, out, err = cli(*argv)
        said = one_line(out + err)
        assert code == 2 and "jobs.csv:3:" in said, said
    assert not planted.ran.exists() and "plant" not in sys.modules


def test_a_module_path_as_a_job_name_is_only_text(planted, cli) -> None:
    path = incident_with_trace(planted.folder, "plant:make,subprocess:run,1,60,600,1\n")
    code, out, err = cli("validate", str(path))
    assert code == 0, out + err
    code, out, err = cli("run", str(path), "--backend", "sim", "--save", "night.jsonl")
    assert code == 0, err
    assert not planted.ran.exists() and "plant" not in sys.modules

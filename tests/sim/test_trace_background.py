"""Background work read from a trace file in the peer simulator's columns (background.trace)."""

from __future__ import annotations

import pytest
import yaml

from drill.engine.drill import Drill
from drill.incident.errors import IncidentError
from drill.incident.loader import load_incident
from drill.states import JobState
from tests.drillkit import incident_dict

HEADER = "job_id,user,gpu_type,num_inst,submit_time,duration,num_cpu,num_gpu\n"
ROWS = [
    "7,ua,V100,1,120,600,4,0.25\n",  # a quarter of a GPU: one whole GPU here
    "8,ub,CPU,1,130,600,4,0\n",  # CPU work: left out
    "9,uc,T4,1,300,900,8,2\n",
    "10,ud,V100,1,400,900,8,12\n",  # wider than a node of 8: two whole nodes
    "11,ue,V100,1,999999,60,1,1\n",  # after the night: never submitted
]


def incident_file(tmp_path, trace: str = "jobs.csv", rows=ROWS):
    (tmp_path / "jobs.csv").write_text(HEADER + "".join(rows))
    data = incident_dict(background={"utilization": 0, "trace": trace})
    path = tmp_path / "night.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_trace_jobs_arrive_at_their_submit_times_with_whole_gpus(tmp_path):
    incident = load_incident(incident_file(tmp_path)).incident
    assert len(incident.background.trace_jobs) == 5
    drill = Drill(incident, 1)
    drill.advance(1000)
    jobs = drill.world.jobs
    assert jobs["ua-t7"].gpus == 1 and jobs["ua-t7"].submit_time == 120
    assert "ub-t8" not in jobs
    assert jobs["uc-t9"].gpus == 2
    assert jobs["ud-t10"].gpus == 16
    assert "ue-t11" not in jobs
    assert jobs["ua-t7"].state == JobState.COMPLETED  # 600 s of work, done by now


@pytest.mark.parametrize("trace", ["../jobs.csv", "/etc/jobs.csv", "a/../../jobs.csv"])
def test_a_trace_path_out_of_the_folder_is_refused(tmp_path, trace):
    path = incident_file(tmp_path, trace=trace)
    with pytest.raises(IncidentError) as caught:
        load_incident(path)
    assert "trace" in str(caught.value.problems[0])


def test_a_trace_linked_out_of_the_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "real.csv").write_text(HEADER + "".join(ROWS))
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "link.csv").symlink_to(outside / "real.csv")
    data = incident_dict(background={"utilization": 0, "trace": "link.csv"})
    path = inside / "night.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(IncidentError, match="in this file's folder"):
        load_incident(path)


def test_a_bad_row_is_named_with_its_line(tmp_path):
    path = incident_file(tmp_path, rows=["1,u,V100,1,zero,60,1,1\n"])
    with pytest.raises(IncidentError, match=r"jobs.csv:2: a number is missing"):
        load_incident(path)


def test_a_trace_longer_than_the_queue_budget_is_refused(tmp_path, monkeypatch):
    from drill.incident import loader

    monkeypatch.setattr(loader, "MAX_QUEUED_JOBS", 3)
    with pytest.raises(IncidentError, match="trace jobs arrive in this night"):
        load_incident(incident_file(tmp_path))


def test_editing_only_the_trace_gives_the_night_new_par(tmp_path):
    # Par and floor are cached by the incident's fingerprint: the trace's rows must be part of it.
    from drill.engine.scoring.par import incident_fingerprint

    before = incident_fingerprint(load_incident(incident_file(tmp_path)).incident)
    again = incident_fingerprint(load_incident(incident_file(tmp_path)).incident)
    longer = [ROWS[0].replace(",600,", ",900,"), *ROWS[1:]]
    edited = incident_fingerprint(load_incident(incident_file(tmp_path, rows=longer)).incident)
    assert before == again and edited != before

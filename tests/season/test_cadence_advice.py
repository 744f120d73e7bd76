"""The cadence advice quotes the simulator's measured check against Young's formula."""

from __future__ import annotations

from drill.incident.library import resolve_incident
from drill.runbook import CadenceAdvice
from drill.season import measured
from drill.season.advice import cadence_lines, job_young, measured_lines


def test_the_measured_lines_quote_the_measurements():
    text = "\n".join(measured_lines())
    rows = {row[0]: row for row in measured.ROWS}
    for factor in (0.25, 1.0, 4.0):
        assert f"{rows[factor][3]:.1%}" in text  # measured
        assert f"{rows[factor][5]:.1%}" in text  # the curve
    assert f"{measured.LEAST_AT:.2f} times Young's interval" in text
    assert f"{measured.NIGHTS} seeded 12-hour nights" in text
    assert "\u2014" not in text


def test_the_debrief_sets_the_jobs_young_interval_beside_its_cadence():
    incident = resolve_incident("fleet-season").incident
    write, mtbf, young = job_young(incident)
    # 70B parameters at 14 bytes on a 10GB/s volume; 16 nodes at 500h each.
    assert round(write) == 98 and mtbf == 500 * 3600 / 16
    lines = cadence_lines(incident, 20)
    assert f"every {round(young / 60)} steps" in lines[0] and "every 20 steps" in lines[0]
    assert lines[1:3] == measured_lines()
    assert "drill season fleet-season" in lines[-1]


def test_the_runbook_cadence_section_carries_them():
    advice = CadenceAdvice(45.0, 3600.0, 2, 570.0, 50, 600.0, 12.0, 3, 10**11)
    assert advice.lines()[-2:] == measured_lines()

"""The cadence advice quotes the simulator's measured check against Young's formula."""

from __future__ import annotations

import math

from drill.incident.library import resolve_incident
from drill.runbook import CadenceAdvice
from drill.season import measured
from drill.season.advice import ASYNC_COPY, cadence_lines, job_young, measured_lines
from drill.values.units import format_duration


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
    # 70B parameters at 14 bytes on a 10GB/s volume; 16 nodes at 6,335h each, each standing
    # for 32 of the published fleet's.
    assert round(write) == 98 and mtbf == 6335 * 3600 / 32 / 16
    lines = cadence_lines(incident, 20)
    assert f"every {round(young / 60)} steps" in lines[0] and "every 20 steps" in lines[0]
    assert lines[2:4] == measured_lines()
    assert "drill season fleet-season" in lines[-1]


def test_the_advice_says_what_its_rate_is_based_on_not_the_nights_fault():
    """Row 19: dead-rank's fault is scripted 25 minutes in; the advice's MTBF is the cluster's
    stated one, and it says so, and says what asynchronous checkpointing does to C."""
    incident = resolve_incident("dead-rank").incident
    lines = cadence_lines(incident, 50)
    hours = round(incident.cluster.mtbf / 3600)
    assert lines[0].startswith(
        f"- Based on the cluster's stated failure rate (one failure per node every {hours}h),"
        " not on tonight's fault"
    )
    assert (
        lines[1].startswith("- With asynchronous checkpointing") and "C in the formula" in lines[1]
    )
    write, mtbf, _ = job_young(incident)
    assert f"{format_duration(math.sqrt(2 * ASYNC_COPY * mtbf))}" in lines[1]
    # A night whose failures are drawn at the rate says that instead.
    drawn = cadence_lines(resolve_incident("failures-at-scale").incident, 240)[0]
    assert "the rate tonight's failures were drawn at" in drawn and "scripted" not in drawn
    for line in lines:
        assert "\u2014" not in line


def test_the_runbook_cadence_section_carries_them():
    advice = CadenceAdvice(45.0, 3600.0, 2, 570.0, 50, 600.0, 12.0, 3, 10**11)
    assert advice.lines()[-2:] == measured_lines()

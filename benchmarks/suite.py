"""What every benchmark shares: rows of figures, each a ratio against a reference measured in the
same run, handed to `python -m benchmarks` as one JSON line when it runs the script.

A row: the benchmark, what was measured and its value, the reference and its value, their
ratio, and the target the issue sets for that ratio or value (None where there is none).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import time
from collections.abc import Callable

ROWS_MARK = "BENCH-ROWS "
ROWS_ENV = "DRILL_BENCH_ROWS"  # set by benchmarks/__main__.py: print the rows as JSON too


def row(
    benchmark: str,
    measure: str,
    value: float,
    unit: str,
    reference: str,
    ref_value: float,
    *,
    target: str = "",
    ratio: float | None = None,
) -> dict:
    if ratio is None:
        ratio = value / ref_value if ref_value else float("nan")
    return {
        "benchmark": benchmark,
        "measure": measure,
        "value": value,
        "unit": unit,
        "reference": reference,
        "ref_value": ref_value,
        "ratio": ratio,
        "target": target,
    }


def peak_mb() -> float:
    """This process's peak resident memory so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def hand_over(rows: list[dict]) -> None:
    """Give the rows to the suite runner when it started this script; a no-op otherwise."""
    if os.environ.get(ROWS_ENV):
        print(ROWS_MARK + json.dumps({"rows": rows, "peak_mb": peak_mb()}), flush=True)


def interleaved(
    a: Callable[[], object], b: Callable[[], object], rounds: int
) -> tuple[list[float], list[float]]:
    """Time `a` and `b` alternately, `rounds` times each, so drift in the machine's load hits
    both sides alike. Returns every time of each side, in seconds."""
    ta: list[float] = []
    tb: list[float] = []
    for index in range(rounds):
        # Alternate who goes first, so neither side always runs on a warmer cache.
        pair = ((a, ta), (b, tb)) if index % 2 == 0 else ((b, tb), (a, ta))
        for fn, times in pair:
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    return ta, tb


def median(values: list[float]) -> float:
    return statistics.median(values)

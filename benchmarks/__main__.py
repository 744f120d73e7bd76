"""Every benchmark in benchmarks/, one table: `python -m benchmarks [--quick] [--json]`.

Each benchmark runs as its own process (so its imports and peak memory are its own) and hands
back rows: a figure, the reference it is compared with (measured in the same run), the ratio and
the issue's target. --quick runs smaller sizes and skips the benchmarks that start many fresh
interpreters (a whole night process, gloo workers), for a smoke test under a minute; CI runs
it. --json prints the rows for machines instead of the table. Nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from suite import ROWS_ENV, ROWS_MARK  # noqa: E402

# (script, arguments for the full run, arguments for --quick or None to skip it there)
BENCHMARKS: list[tuple[str, list[str], list[str] | None]] = [
    ("bench_engine.py", [], ["--quick"]),
    ("bench_scale.py", [], ["--quick"]),
    ("bench_grid.py", [], ["--quick"]),
    ("bench_peer.py", [], ["--quick"]),
    ("bench_replica.py", [], ["--quick"]),
    ("bench_scoring.py", [], ["--quick"]),
    ("bench_tui.py", ["--repeat", "5"], ["--repeat", "1"]),
    ("bench_course.py", [], ["--quick"]),
    ("bench_night_process.py", ["5"], None),
    ("bench_gloo.py", ["--worlds", "2", "--steps", "50"], None),
]


def run_one(script: str, args: list[str], timeout: float) -> tuple[list[dict], str]:
    env = {**os.environ, ROWS_ENV: "1", "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, str(HERE / script), *args],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return [], f"{script}: stopped after {timeout:.0f} s"
    took = time.perf_counter() - start
    payload = None
    for line in done.stdout.splitlines():
        if line.startswith(ROWS_MARK):
            payload = json.loads(line[len(ROWS_MARK) :])
    if done.returncode != 0 or payload is None:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return [], f"{script}: exit {done.returncode}: {tail[0]}"
    rows = payload["rows"]
    for r in rows:
        r["script"] = script
    rows.append(
        {
            "script": script,
            "benchmark": script.removeprefix("bench_").removesuffix(".py"),
            "measure": "peak memory of the benchmark process",
            "value": payload["peak_mb"],
            "unit": "MB",
            "reference": "",
            "ref_value": None,
            "ratio": None,
            "target": "",
            "seconds": took,
        }
    )
    return rows, ""


def number(value) -> str:
    if value is None:
        return ""
    if value != value:  # nan
        return "n/a"
    return f"{value:,.3f}" if abs(value) < 10 else f"{value:,.1f}"


def table(rows: list[dict]) -> str:
    head = ("benchmark", "measure", "value", "unit", "reference", "ref", "ratio", "target")
    lines = [head]
    for r in rows:
        lines.append(
            (
                r["benchmark"],
                r["measure"],
                number(r["value"]),
                r["unit"],
                r["reference"],
                number(r["ref_value"]),
                "" if r["ratio"] is None else f"{r['ratio']:.2f}x",
                r["target"],
            )
        )
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    out = []
    for index, line in enumerate(lines):
        out.append(" | ".join(str(cell).ljust(widths[i]) for i, cell in enumerate(line)))
        if index == 0:
            out.append("-|-".join("-" * w for w in widths))
    return "\n".join(out)


def machine() -> str:
    cores = os.cpu_count() or 0
    return f"{platform.machine()}, {cores} cores, Python {platform.python_version()}, {platform.system()}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, under a minute")
    parser.add_argument("--json", action="store_true", help="rows as JSON instead of a table")
    parser.add_argument("--only", default="", help="comma-separated scripts to run (bench_x.py)")
    args = parser.parse_args()
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    rows: list[dict] = []
    problems: list[str] = []
    started = time.perf_counter()
    for script, full, quick in BENCHMARKS:
        if only and script not in only:
            continue
        chosen = quick if args.quick else full
        if chosen is None:
            continue
        got, problem = run_one(script, chosen, timeout=120 if args.quick else 1800)
        rows += got
        if problem:
            problems.append(problem)
        if not args.json:
            print(f"  ran {script}" + (f": {problem}" if problem else ""), file=sys.stderr)
    summary = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "mode": "quick" if args.quick else "full",
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
        "problems": problems,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['date']}, {summary['machine']}, {summary['mode']} run")
        print(table(rows))
        for problem in problems:
            print(f"problem: {problem}")
        print(f"{summary['seconds']} s in all")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Fleet-sized worlds: issue 17's scale targets, each against a smaller run of the same shape.

    .venv/bin/python benchmarks/bench_scale.py [--quick] [--no-cli]

- fleet day: 4,096 nodes of 8 GPUs in 16 islands, 20,000 background jobs over one simulated
  day (benchmarks/fleet.py), built and played headless on the sim backend. Target under 20 s
  wall and under 1 GiB peak. Reference: the same day at a quarter of the nodes and jobs, in the
  same run; the ratio of their costs per event says whether cost grows with events (near 1) or
  with nodes times jobs (growing with size).
- season: 16,384 GPUs (2,048 nodes) for 54 simulated days, a node failing about every three
  hours across the fleet. Target under 60 s. Reference: the same fleet for an eighth of the days.
- drill validate and drill test --backend sim on the fleet day as an incident file, each a
  fresh process; reference: a fresh process that only imports drill. Target: seconds.

--quick shrinks every size (a 1,024-node day, a 5-day season) and skips the CLI runs.
It asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import fleet  # noqa: E402
from suite import hand_over, peak_mb, row  # noqa: E402

from drill.engine.drill import Drill  # noqa: E402


def play_night(incident) -> tuple[float, int, int]:
    """(wall seconds to build and play the whole night, SimPy events, jobs seen)."""
    start = time.perf_counter()
    drill = Drill.create(incident, 1, "sim")
    events = [0]
    env = drill.world.env
    original = env.step

    def step() -> None:
        events[0] += 1
        original()

    env.step = step  # type: ignore[method-assign]
    drill.play_out()
    drill.world.run_rest_of_night()
    return time.perf_counter() - start, events[0], len(drill.world.jobs)


def fleet_day(quick: bool) -> list[dict]:
    nodes, jobs = (1024, 5000) if quick else (4096, 20_000)
    before = peak_mb()
    small_s, small_events, _ = play_night(fleet.day_fleet(jobs=jobs // 4, nodes=nodes // 4))
    big_s, big_events, seen = play_night(fleet.day_fleet(jobs=jobs, nodes=nodes))
    name = f"fleet day, {nodes} nodes x 8 GPUs, {seen} jobs"
    reference = f"{nodes // 4} nodes, {jobs // 4} jobs a day"
    return [
        row("scale", f"{name}: wall", big_s, "s", reference, small_s, target="< 20 s"),
        row(
            "scale",
            f"{name}: cost per event",
            big_s / big_events * 1e6,
            "us/event",
            reference,
            small_s / small_events * 1e6,
            target="ratio near 1",
        ),
        row(
            "scale",
            f"{name}: peak memory",
            peak_mb(),
            "MB",
            "the process before the fleet nights",
            before,
            target="< 1024 MB",
        ),
    ]


def season(quick: bool) -> list[dict]:
    days = 5 if quick else 54
    small_s, _, _ = play_night(fleet.season_fleet(days=days / 8))
    big_s, events, _ = play_night(fleet.season_fleet(days=days))
    return [
        row(
            "scale",
            f"season, 16384 GPUs, {days} days, a failure every 3 h: wall ({events} events)",
            big_s,
            "s",
            f"the same fleet for {days / 8:g} days",
            small_s,
            target="< 60 s",
        )
    ]


def cli_runs() -> list[dict]:
    """`drill validate` and `drill test --backend sim` on the fleet day, as fresh processes."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-fleet-") as folder:
        path = Path(folder) / "fleet-bench.yaml"
        data = fleet.fleet_data(
            islands=16,
            leaves=16,
            nodes_per_leaf=16,
            length=fleet.DAY,
            arrivals_per_hour=20_000 / 24,
        )
        path.write_text(yaml.safe_dump(data, sort_keys=False))

        def timed(*args: str) -> float:
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, *args], cwd=REPO, check=False, capture_output=True, timeout=900
            )
            return time.perf_counter() - start

        floor = timed("-c", "import drill.cli")
        for name, args in (
            ("drill validate", ["-m", "drill", "validate", str(path)]),
            (
                "drill test --backend sim",
                ["-m", "drill", "test", "--backend", "sim", "--saves-dir", folder, str(path)],
            ),
        ):
            rows.append(
                row(
                    "scale",
                    f"{name} on the 4096-node fleet day",
                    timed(*args),
                    "s",
                    "a process that imports drill",
                    floor,
                    target="seconds",
                )
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-cli", action="store_true", help="skip drill validate and test")
    args = parser.parse_args()
    rows = fleet_day(args.quick) + season(args.quick)
    if not (args.quick or args.no_cli):
        rows += cli_runs()
    for r in rows:
        print(
            f"{r['measure']}: {r['value']:.2f} {r['unit']}; {r['reference']}:"
            f" {r['ref_value']:.2f}; ratio {r['ratio']:.2f} (target {r['target']})"
        )
    hand_over(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""How long the score takes once the night is over, with the ensemble and without it.

    .venv/bin/python benchmarks/bench_scoring.py [--quick] [--repeat N]

A two-hour night (fleet-season) and, in the full run, a four-hour one (failures-at-scale) are
played with their reference solution on the sim backend, untimed. Then the time from the end of
the night to the Score is timed both ways on fresh copies of the same night: without the
ensemble (measure the night, score it against par and floor) and with it (the same, plus the
learner's actions played again on the ensemble's variant nights, drill/engine/scoring/ensemble.py). Par
and floor, with their own ensembles, are computed once before the timing, as the saves cache
keeps them. The issue's target for the two-hour night is under 2 s with the ensemble. It
asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from suite import hand_over, median, row  # noqa: E402

from drill.engine.drill import Drill  # noqa: E402
from drill.engine.headless import play  # noqa: E402
from drill.engine.scoring import ensemble  # noqa: E402
from drill.engine.scoring.outcome import measure  # noqa: E402
from drill.engine.scoring.par import par_and_floor, score_against, score_drill, step_clock  # noqa: E402
from drill.engine.timed import parse_text  # noqa: E402
from drill.incident.loader import load_incident  # noqa: E402

INCIDENTS = REPO / "drill" / "incidents"


def played(name: str) -> Drill:
    """The night played to its end with the reference solution: where the debrief starts."""
    incident = load_incident(INCIDENTS / f"{name}.yaml").incident
    drill = Drill(incident, incident.seeds[0])
    actions = parse_text(
        "\n".join(incident.reference), "reference", {f.id for f in incident.faults}
    )
    play(drill, actions)
    return drill


def without_ensemble(drill: Drill) -> None:
    incident = drill.incident
    mine = measure(drill, incident.scoring.paging_target, step_clock(incident, drill.seed))
    par, floor = par_and_floor(incident, drill.seed, drill.backend)
    score_against(incident, mine, par, floor)


def timed(name: str, repeat: int) -> list[dict]:
    warm = played(name)
    score_drill(warm)  # par, floor and their ensembles, once, as the cache would hold them
    plain, full = [], []
    for _ in range(repeat):
        for scorer, times in ((without_ensemble, plain), (score_drill, full)):
            drill = played(name)
            start = time.perf_counter()
            scorer(drill)
            times.append(time.perf_counter() - start)
    length = warm.incident.night.length / 3600
    return [
        row(
            "scoring",
            f"{name} ({length:.0f}h night): end of night to score, ensemble of"
            f" {ensemble.ENSEMBLE_NIGHTS} nights",
            median(full),
            "s",
            "the same without the ensemble",
            median(plain),
            target="< 2 s" if length <= 2 else "",
        )
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the two-hour night only, once")
    parser.add_argument("--repeat", type=int, default=0, help="timed runs of each side")
    args = parser.parse_args()
    repeat = args.repeat or (1 if args.quick else 3)
    names = ["fleet-season"] if args.quick else ["fleet-season", "failures-at-scale"]
    rows = [r for name in names for r in timed(name, repeat)]
    for r in rows:
        print(
            f"{r['measure']}: {r['value']:.2f} s, without the ensemble {r['ref_value']:.2f} s"
            f" (adds {r['value'] - r['ref_value']:.2f} s)"
        )
    hand_over(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The peer's trace through drill's scheduler, side by side with the peer simulator's figures.

    .venv/bin/python benchmarks/bench_peer.py [--quick] [--jobs N] [--gpus G]

The peer is alibaba clusterdata's cluster-trace-gpu-v2020 simulator (benchmarks/peer/README.md:
20,000 jobs on 6,500 GPUs, FIFO 274.4 s and SJF 164.4 s wall on this machine kind). The trace
comes from the peer's own generator (benchmarks/peer/gen_pai_trace.py, seeded) and goes through
drill/sim/trace_pool.py with the peer's assumptions: one pool, no topology, a FIFO queue (with
EASY backfill, exact run times as limits), GPUs in quarter units so fractional requests fit,
1,000 arrivals a minute, completion time per job. The pass is drill/sim/starts_pass.py: the
queue grouped by request shape, only the jobs that start found.

Rows: our wall time against the peer's recorded FIFO figure (target: at least 10x faster, only
meaningful at the peer's size); our average job completion time against an exact FIFO with
EASY backfill on a pure pool (tests/sim/pool_oracle.py, written apart from the scheduler; target
within 5 percent), and our wall time against that oracle's. The full run plays the peer's size,
20,000 jobs on 6,500 GPUs; --quick 1,000 on 325 (the same load per GPU).
It asserts nothing.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from suite import hand_over, row  # noqa: E402

from drill.sim.trace import read_trace  # noqa: E402
from drill.sim.trace_pool import play_pool, request  # noqa: E402
from tests.sim.pool_oracle import easy_backfill  # noqa: E402

GENERATOR = REPO / "benchmarks" / "peer" / "gen_pai_trace.py"
PEER_FIFO_WALL = 274.4  # seconds, median of 3, benchmarks/peer/README.md
PEER_FIFO_JCT = 5964.83
PER_GPU, NODE_UNITS, GAP = 4, 16, 0.06


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--gpus", type=int, default=0)
    args = parser.parse_args()
    # The full run plays the peer's own size; --quick a twentieth of it, the load per GPU the same.
    # Most of the full run's minutes go to the exact oracle, which visits every queued job at
    # every instant something arrives or ends.
    jobs = args.jobs or (1000 if args.quick else 20_000)
    gpus = args.gpus or round(6500 * jobs / 20_000)
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as folder:
        path = Path(folder) / "trace.csv"
        subprocess.run(
            [sys.executable, str(GENERATOR), "-n", str(jobs), "-o", str(path)],
            check=True,
            capture_output=True,
        )
        trace = read_trace(path)
    start = time.perf_counter()
    ours = play_pool(trace, gpus, per_gpu=PER_GPU, node_units=NODE_UNITS, arrival_gap=GAP)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    exact = easy_backfill(
        [(i * GAP, request(j, PER_GPU, NODE_UNITS), j.duration) for i, j in enumerate(trace)],
        gpus * PER_GPU,
    )
    exact_s = time.perf_counter() - start
    exact_jct = sum(exact) / len(exact)
    name = f"{jobs} jobs on {gpus} GPUs"
    rows = [
        row(
            "peer",
            f"{name}: average JCT ({ours.passes} passes)",
            ours.average_jct,
            "s",
            "exact FIFO with EASY backfill, one pool",
            exact_jct,
            target="within 5%",
        ),
        row("peer", f"{name}: wall", ours_s, "s", "the exact pool oracle's wall", exact_s),
    ]
    if jobs == 20_000 and gpus == 6500:
        rows.append(
            row(
                "peer",
                f"{name}: wall",
                ours_s,
                "s",
                f"peer FIFO, recorded (JCT {PEER_FIFO_JCT} s)",
                PEER_FIFO_WALL,
                target="<= 0.1x",
            )
        )
    for r in rows:
        print(
            f"{r['measure']}: {r['value']:.2f} {r['unit']}; {r['reference']}:"
            f" {r['ref_value']:.2f}; ratio {r['ratio']:.3f} {r['target']}"
        )
    hand_over(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

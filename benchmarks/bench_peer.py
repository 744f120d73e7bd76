"""The peer's own sample of its trace through drill's scheduler, beside the peer simulator.

    .venv/bin/python benchmarks/bench_peer.py [--quick] [--jobs N] [--gpus G] [--peer-dir DIR]

The peer is alibaba clusterdata's cluster-trace-gpu-v2020 simulator (benchmarks/peer/README.md:
20,000 jobs on 6,500 GPUs, FIFO 274.4 s and SJF 164.4 s wall on this machine kind). Its trace
comes from its own generator (benchmarks/peer/gen_pai_trace.py, seeded: all 100,000 rows), and
the jobs played are the ones the peer plays: its seeded shuffle of every row, the first 20,000,
in its arrival order at 1,000 a minute (benchmarks/peer_sample.py). They go through
drill/sim/trace_pool.py with the peer's assumptions: one pool, no topology, a FIFO queue (with
EASY backfill, exact run times as limits), GPUs in quarter units so fractional requests fit,
completion time per job. The pass is drill/sim/starts_pass.py: the queue grouped by request
shape, only the jobs that start found.

Rows: our average job completion time against an exact FIFO with EASY backfill on a pure pool
(tests/sim/pool_oracle.py, written apart from the scheduler; target within 5 percent), our wall
against that oracle's, and our wall against the peer FIFO's. The peer's FIFO is a greedy scan
without reservation, drill's pool EASY backfill, so the two JCTs differ by design. When the
peer's source is beside the generator (its simulator.py in --peer-dir, by default the
generator's folder) the peer runs here, in the same run, and we divide by its wall; otherwise by
its recorded wall, and the row says "recorded". The full run plays the peer's size; --quick
1,000 jobs on 325 GPUs (the same load per GPU). It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from peer_sample import peer_sample  # noqa: E402
from suite import hand_over, row  # noqa: E402

from drill.sim.trace import read_trace  # noqa: E402
from drill.sim.trace_pool import play_pool, request  # noqa: E402
from tests.sim.pool_oracle import easy_backfill  # noqa: E402

GENERATOR = REPO / "benchmarks" / "peer" / "gen_pai_trace.py"
PEER_SOURCE = "simulator.py"  # the peer's own code, when it sits beside the generator
PEER_FIFO_WALL = 274.4  # seconds, median of 3, benchmarks/peer/README.md
PEER_FIFO_JCT = 5964.83
PER_GPU, NODE_UNITS = 4, 16
HOW = "the peer's FIFO a greedy scan without reservation, drill's pool EASY backfill"

# Runs the peer's own Simulator as its run_simulator.py sets it up (one big node, seed 42,
# 1,000 arrivals a minute, no spares, balancing node order), FIFO only (its policy 8, with the
# LGF preemption policy the script pairs it with), timed from the trace's read as the script
# times it.
PEER_DRIVER = """
import json, logging, sys, time
sys.path.insert(0, sys.argv[1])
logging.basicConfig(level=logging.WARNING)
from simulator import Simulator
jobs, gpus = int(sys.argv[3]), int(sys.argv[4])
start = time.perf_counter()
simulator = Simulator(
    csv_file=sys.argv[2], alloc_policy=8, preempt_policy=2, sort_node_policy=3, num_nodes=1,
    random_seed=42, max_time=int(1e9), num_spare_node=0, pattern=0, hetero=False,
    num_gpus=gpus, num_cpus=round(23.22 * gpus), describe_file=None, log_file=None,
    export_job_stats=False, export_cluster_util=False, arrival_rate=1000,
    num_jobs_limit=jobs, gpu_type_matching=0, verbose=0,
)
((done, jct, wait, makespan),) = simulator.simulator_go(repeat=1)
print(json.dumps({"wall": time.perf_counter() - start, "jct": jct, "jobs": done}))
"""


def run_peer(peer_dir: Path, trace: Path, jobs: int, gpus: int) -> dict | str:
    """The peer FIFO's wall and average JCT on `trace`, or why it did not run."""
    with tempfile.TemporaryDirectory(prefix="bench-peer-run-") as folder:
        done = subprocess.run(
            [sys.executable, "-c", PEER_DRIVER, str(peer_dir), str(trace), str(jobs), str(gpus)],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        return (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--jobs", type=int, default=0)
    parser.add_argument("--gpus", type=int, default=0)
    parser.add_argument(
        "--peer-dir",
        type=Path,
        default=GENERATOR.parent,
        help="where the peer's source (simulator.py and its modules) would be",
    )
    args = parser.parse_args()
    # The full run plays the peer's own size; --quick a twentieth of it, the load per GPU the same.
    # Most of the full run's minutes go to the exact oracle, which visits every queued job at
    # every instant something arrives or ends.
    jobs = args.jobs or (1000 if args.quick else 20_000)
    gpus = args.gpus or round(6500 * jobs / 20_000)
    peer_here = (args.peer_dir / PEER_SOURCE).is_file()
    with tempfile.TemporaryDirectory(prefix="bench-peer-") as folder:
        path = Path(folder) / "pai_job_duration_estimate_100K.csv"
        subprocess.run(
            [sys.executable, str(GENERATOR), "-o", str(path)], check=True, capture_output=True
        )
        every_row = read_trace(path)
        peer = run_peer(args.peer_dir, path, jobs, gpus) if peer_here else None
    trace, arrivals = peer_sample(every_row, jobs)
    start = time.perf_counter()
    ours = play_pool(trace, gpus, per_gpu=PER_GPU, node_units=NODE_UNITS, arrivals=arrivals)
    ours_s = time.perf_counter() - start
    start = time.perf_counter()
    exact = easy_backfill(
        [(arrivals[i], request(j, PER_GPU, NODE_UNITS), j.duration) for i, j in enumerate(trace)],
        gpus * PER_GPU,
    )
    exact_s = time.perf_counter() - start
    exact_jct = sum(exact) / len(exact)
    name = f"the peer's {jobs} jobs on {gpus} GPUs"
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
    against = None  # the peer FIFO's wall: run here, or its recorded figure at its own size
    if isinstance(peer, dict):
        against = (f"peer FIFO, run here (JCT {peer['jct']:.2f} s; {HOW})", peer["wall"])
    elif jobs == 20_000 and gpus == 6500:
        why = f"; its source beside the generator did not run: {peer}" if peer else ""
        against = (f"peer FIFO, recorded (JCT {PEER_FIFO_JCT} s; {HOW}){why}", PEER_FIFO_WALL)
    if against is not None:
        rows.append(row("peer", f"{name}: wall", ours_s, "s", *against, target="<= 0.1x"))
    for r in rows:
        print(
            f"{r['measure']}: {r['value']:.2f} {r['unit']}; {r['reference']}:"
            f" {r['ref_value']:.2f}; ratio {r['ratio']:.3f} {r['target']}"
        )
    hand_over(rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

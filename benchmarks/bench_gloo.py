"""The real gloo backend against the in-process trainer, on this machine.

    python benchmarks/bench_gloo.py [--worlds 1 2 4] [--steps 100]

For each world size: how long a GlooGroup takes to start (spawn, import torch in every worker,
rendezvous), the time of one step (median of --steps, including the parent's round trip over
the pipes), the in-process Trainer's step at the same world size, how long stop() takes, and
the relative L2 distance between the two runs' weights after --steps steps. Then, for two
ranks, how long kill_rank takes to bring back the survivor's error. Prints; asserts nothing.
Start-up is dominated by `import torch` in each worker, which competes for the CPU cores when
several workers start at once.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from suite import hand_over, row  # noqa: E402

from replica.config import ReplicaConfig  # noqa: E402
from replica.distributed.launcher import GlooGroup  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--worlds", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--steps", type=int, default=100)
    args = ap.parse_args()

    from replica.match import match
    from replica.trainer import Trainer

    config = ReplicaConfig()
    rows = []
    print(f"{'world':>5} {'start s':>8} {'step ms':>8} {'inproc ms':>9} {'stop s':>7} rel L2")
    for world in args.worlds:
        with tempfile.TemporaryDirectory() as run_dir:
            g = GlooGroup(config, world, run_dir, timeout=30)
            t0 = time.perf_counter()
            g.start()
            start_s = time.perf_counter() - t0
            times = []
            for _ in range(args.steps):
                t0 = time.perf_counter()
                g.step()
                times.append(time.perf_counter() - t0)
            params = g.parameters()
            t0 = time.perf_counter()
            g.stop()
            stop_s = time.perf_counter() - t0
        ref = Trainer(config, world)
        ref_times = []
        for _ in range(args.steps):
            t0 = time.perf_counter()
            ref.train_step()
            ref_times.append(time.perf_counter() - t0)
        result = match(params, ref.parameters_copy())
        print(
            f"{world:>5} {start_s:>8.2f} {statistics.median(times) * 1000:>8.1f} "
            f"{statistics.median(ref_times) * 1000:>9.1f} {stop_s:>7.2f} "
            f"{result.rel_l2:.2e} ({result.kind})"
        )
        rows.append(
            row(
                "gloo",
                f"gloo step, {world} real ranks (start-up {start_s:.1f} s)",
                statistics.median(times) * 1000,
                "ms",
                f"in-process step, world {world}",
                statistics.median(ref_times) * 1000,
            )
        )

    with tempfile.TemporaryDirectory() as run_dir:
        g = GlooGroup(config, 2, run_dir, timeout=10)
        g.start()
        g.step()
        t0 = time.perf_counter()
        texts = g.kill_rank(1)
        print(f"kill_rank(1) on 2 ranks: {time.perf_counter() - t0:.3f} s to the survivor's error")
        for text in texts:
            print(f"  {text}")
    hand_over(rows)


if __name__ == "__main__":
    main()

"""Train the replica under torchrun: the same per-rank code as GlooGroup, no control channel.

One machine, two ranks:

    torchrun --standalone --nproc-per-node 2 -m replica.distributed.standalone \\
        --steps 100 --out /tmp/run

Two machines (run on each, HOST being the first machine's address):

    torchrun --nnodes 2 --nproc-per-node N --rdzv-backend c10d \\
        --rdzv-endpoint HOST:29500 -m replica.distributed.standalone --steps 100 --out DIR

torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT; this script joins with the env://
rendezvous on gloo, trains --steps steps with RankTrainer (replica/distributed/rank.py), and
rank 0 writes checkpoints into --out with CheckpointStore: every --save-every steps if given,
and always at the end. With --resume, every rank first loads the newest checkpoint in --out
(verified against its manifest), so a job restarted by torchrun (--max-restarts) continues
where it stopped instead of starting over; a run that already reached --steps does nothing.
The world size must divide the config's global batch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import timedelta


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m replica.distributed.standalone",
        description="Train the replica data-parallel under torchrun (gloo, env:// rendezvous).",
    )
    p.add_argument("--steps", type=int, required=True, help="train until this step count")
    p.add_argument("--out", required=True, help="run directory for checkpoints (rank 0 writes)")
    p.add_argument(
        "--config-json",
        default="{}",
        help="replica settings as JSON, e.g. '{\"seed\": 1}'; unknown keys are refused",
    )
    p.add_argument(
        "--replica",
        default=None,
        help="module:factory of the replica to train (default: the shipped addition GPT)",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="process group timeout in seconds")
    p.add_argument("--save-every", type=int, default=0, help="also save every N steps (0: no)")
    p.add_argument("--log-every", type=int, default=10, help="rank 0 prints the loss every N")
    p.add_argument(
        "--resume", action="store_true", help="load the newest checkpoint in --out first"
    )
    args = p.parse_args(argv)
    if args.steps < 0 or args.save_every < 0 or args.log_every < 0:
        p.error("--steps, --save-every and --log-every must not be negative")
    return args


def _env_int(name: str) -> int:
    value = os.environ.get(name)
    if value is None:
        raise SystemExit(
            f"{name} is not set: run this under torchrun, for example\n"
            "  torchrun --standalone --nproc-per-node 2 -m replica.distributed.standalone "
            "--steps 100 --out /tmp/run"
        )
    return int(value)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rank = _env_int("RANK")
    world = _env_int("WORLD_SIZE")

    import torch.distributed as dist

    from replica.checkpoint import CheckpointStore
    from replica.determinism import configure_determinism
    from replica.distributed.rank import RankTrainer
    from replica.interface import load_replica

    configure_determinism()
    replica = load_replica(args.replica, json.loads(args.config_json))
    trainer = RankTrainer(replica, world, rank)
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.timeout))
    store = CheckpointStore(args.out, config_hash=trainer.config_hash)
    if args.resume:
        latest = store.latest()
        if latest is not None:
            trainer.load_full_state(store.load(latest, verify=True))
            if rank == 0:
                print(f"resumed from {store.path(latest).name}", flush=True)
    t0 = time.perf_counter()
    start_step = trainer.step
    while trainer.step < args.steps:
        loss = trainer.train_step()
        if rank == 0 and args.log_every and trainer.step % args.log_every == 0:
            print(f"step {trainer.step} loss {loss:.4f}", flush=True)
        if rank == 0 and args.save_every and trainer.step % args.save_every == 0:
            store.save(trainer)
    if rank == 0 and store.latest() != trainer.step:
        record = store.save(trainer)
        print(f"saved {record.path}", flush=True)
    if rank == 0:
        steps = trainer.step - start_step
        dt = time.perf_counter() - t0
        per = f", {dt / steps * 1000:.1f} ms per step" if steps else ""
        print(f"world {world}: {steps} steps in {dt:.2f} s{per}", flush=True)
    # Nobody leaves before rank 0 has written: a launcher that reaps the job when the first
    # rank exits must not cut the save short.
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

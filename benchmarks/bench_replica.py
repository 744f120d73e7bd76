"""Replica benchmarks: each measurement is taken against a plain-torch reference in the same run.

    python benchmarks/bench_replica.py [--quick] [DIRECTORY_FOR_CHECKPOINT_FILES]

- step: Trainer.train_step against a plain loop doing the same micro-batches with gradient
  accumulation (same model, same optimizer, same data function). Target ratio <= 1.15.
- save: CheckpointStore.save (atomic: temp file, fsync, rename, directory fsync, manifest,
  latest) against torch.save of the same state plus one fsync. Target ratio <= 1.5.
- load: CheckpointStore.load against torch.load(weights_only=True) of the same file.
  Target ratio <= 1.5.

Replica and reference runs are interleaved in rounds and the median round is reported, so
drift in machine load hits both sides alike. --quick runs 3 rounds of fewer calls and skips
the default night. This prints numbers; it asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import torch  # noqa: E402
from suite import hand_over, row  # noqa: E402

from replica.checkpoint import CheckpointStore  # noqa: E402
from replica.config import DEFAULT_NIGHT_STEPS, ReplicaConfig  # noqa: E402
from replica.data import global_batch  # noqa: E402
from replica.model import build_model  # noqa: E402
from replica.trainer import Trainer, make_optimizer  # noqa: E402

QUICK = "--quick" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--quick"]
ROUNDS = 3 if QUICK else 7
CALLS = 0.25 if QUICK else 1.0  # share of the full run's calls per round


def per_call_ms(fn: Callable[[], object], calls: int) -> float:
    calls = max(2, int(calls * CALLS))
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t0) / calls * 1000


def interleaved(
    a: Callable[[], object], b: Callable[[], object], calls: int
) -> tuple[float, float]:
    ta, tb = [], []
    for _ in range(ROUNDS):
        ta.append(per_call_ms(a, calls))
        tb.append(per_call_ms(b, calls))
    return statistics.median(ta), statistics.median(tb)


class PlainLoop:
    """What a person would write: accumulate loss / n over the micro-batches, then step."""

    def __init__(self, config: ReplicaConfig, *, precomputed: bool) -> None:
        self.config = config
        self.model = build_model(config)
        self.opt = make_optimizer(self.model, config)
        self.micro = config.global_batch // config.ranks
        self.step_no = 0
        self.batches = [global_batch(config, s) for s in range(64)] if precomputed else None

    def step(self) -> None:
        if self.batches is not None:
            x, y = self.batches[self.step_no % len(self.batches)]
        else:
            x, y = global_batch(self.config, self.step_no)
        self.opt.zero_grad(set_to_none=True)
        for r in range(self.config.ranks):
            sl = slice(r * self.micro, (r + 1) * self.micro)
            (self.model.loss(x[sl], y[sl]) / self.config.ranks).backward()
        self.opt.step()
        self.step_no += 1


def measure_io(trainer: Trainer, base: str | None, label: str, rows: list) -> float:
    """Save and load rows for one directory; returns the checkpoint size in KiB."""
    with tempfile.TemporaryDirectory(dir=base) as tmp:
        store = CheckpointStore(Path(tmp) / "run", config_hash=trainer.config_hash)
        raw = Path(tmp) / "raw.pt"

        def raw_save() -> None:
            with open(raw, "wb") as f:
                torch.save(trainer.full_state(), f)
                f.flush()
                os.fsync(f.fileno())

        ours, ref = interleaved(lambda: store.save(trainer), raw_save, 20)
        rows.append(("save, atomic" + label, ours, "torch.save + fsync", ref, 1.5))
        ours, ref = interleaved(lambda: store.save(trainer, atomic=False), raw_save, 20)
        rows.append(("save, non-atomic" + label, ours, "torch.save + fsync", ref, None))

        store.save(trainer)
        step = trainer.step
        path = store.path(step)

        def raw_load() -> None:
            torch.load(path, map_location="cpu", weights_only=True)

        ours, ref = interleaved(lambda: store.load(step, verify=True), raw_load, 40)
        rows.append(("load, verify=True" + label, ours, "torch.load weights_only", ref, 1.5))
        ours, ref = interleaved(lambda: store.load(step, verify=False), raw_load, 40)
        rows.append(("load, verify=False" + label, ours, "torch.load weights_only", ref, 1.5))
        return path.stat().st_size / 1024


def main() -> None:
    config = ReplicaConfig()
    trainer = Trainer(config)  # sets one thread and deterministic algorithms for everyone
    rows: list[tuple[str, float, str, float, float | None]] = []

    plain = PlainLoop(config, precomputed=False)
    plain_pre = PlainLoop(config, precomputed=True)
    for _ in range(20):  # warm up allocator and kernels
        trainer.train_step()
        plain.step()
        plain_pre.step()
    ours, ref = interleaved(trainer.train_step, plain.step, 40)
    rows.append(("train step (4 ranks)", ours, "plain accumulation loop", ref, 1.15))
    ours2, ref2 = interleaved(trainer.train_step, plain_pre.step, 40)
    rows.append(("train step (4 ranks)", ours2, "plain loop, data precomputed", ref2, None))

    night = Trainer(config)
    t0 = time.perf_counter()
    night.train(20 if QUICK else DEFAULT_NIGHT_STEPS)
    night_s = time.perf_counter() - t0
    night_steps = 20 if QUICK else DEFAULT_NIGHT_STEPS

    # Checkpoint I/O is measured where tempfile puts files (pass a directory to measure
    # another disk), and again in /dev/shm when it exists: memory has no journal to commit, so
    # that row shows what the atomic protocol costs apart from the disk's fsync latency.
    size_kib = measure_io(trainer, ARGS[0] if ARGS else None, "", rows)
    if Path("/dev/shm").is_dir() and not QUICK:
        measure_io(trainer, "/dev/shm", " [/dev/shm]", rows)

    params = sum(p.numel() for p in trainer.model.parameters())
    print(
        f"replica: {config.layers} layer(s), width {config.width}, {config.heads} heads, "
        f"context {config.context}, global batch {config.global_batch} on {config.ranks} ranks, "
        f"{params} parameters, checkpoint {size_kib:.0f} KiB, torch {torch.__version__}, "
        f"{torch.get_num_threads()} thread"
    )
    print(f"night: {night_steps} steps in {night_s:.2f} s ({night_steps / night_s:.0f} steps/s)")
    print()
    print(f"{'measure':<31} {'ms':>7}  {'reference':<29} {'ms':>7} {'ratio':>6}  target")
    for name, ours, ref_name, ref, target in rows:
        ratio = ours / ref
        verdict = (
            "" if target is None else f"<={target:.2f}" + (" ok" if ratio <= target else " MISS")
        )
        print(f"{name:<31} {ours:7.3f}  {ref_name:<29} {ref:7.3f} {ratio:6.2f}  {verdict}")
    hand_over(
        [
            row(
                "replica",
                name,
                ours,
                "ms",
                ref_name,
                ref,
                target="" if target is None else f"<= {target:g}x",
            )
            for name, ours, ref_name, ref, target in rows
        ]
    )


if __name__ == "__main__":
    main()

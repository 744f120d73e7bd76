"""The undisturbed run that a drill's outcome is compared against, trained once and cached.

The cache file is keyed by (config hash, backend, world size, steps) and holds the full loss
curve plus the weights at the requested steps. It is written atomically (temp file, fsync,
rename), so a second process never reads half a file, and an exclusive lock around
check-train-write makes a second process wait for the first instead of training twice. It is
loaded with weights_only=True like every other file the replica reads. A cache file that is
unreadable, or that lacks some of the requested steps, is simply retrained and replaced.

Backends: "inprocess" trains with replica.trainer.Trainer in this process. "gloo" trains with a
replica.distributed.GlooGroup of `world_size` real worker processes (its run directory is a
temporary folder, removed afterwards). With world size 1 or 2 the two backends give the same
bits; with more ranks gloo adds the rank gradients in its own order and the runs are close,
not bit-exact (docs/replica.md, "Real processes"), which is why the backend is in the key.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import torch

from replica.config import ReplicaConfig
from replica.trainer import Trainer

CACHE_FORMAT = 1
BACKENDS = ("inprocess", "gloo")
# Process group timeout for the gloo baseline: nothing is injected, so a timeout is a bug.
GLOO_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Baseline:
    # losses[k - 1] is the loss of step k (the step that brought the counter to k).
    losses: list[float]
    # Parameter tensors by step, for the steps that were asked for.
    weights: dict[int, dict[str, torch.Tensor]]
    # True when this came from the cache file rather than from training in this call.
    cached: bool = False


def cache_key(config: ReplicaConfig, backend: str, world_size: int, steps: int) -> dict:
    return {
        "format": CACHE_FORMAT,
        "config_hash": config.config_hash(),
        "backend": backend,
        "world_size": world_size,
        "steps": steps,
    }


def cache_path(cache_dir: str | os.PathLike[str], key: dict) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(cache_dir) / f"baseline-{digest}.pt"


def load_or_train_baseline(
    config: ReplicaConfig,
    *,
    backend: str = "inprocess",
    world_size: int | None = None,
    steps: int,
    keep_steps: Iterable[int] = (),
    cache_dir: str | os.PathLike[str],
) -> Baseline:
    if backend not in BACKENDS:
        raise ValueError(
            f"baseline backend {backend!r} is not available; known: {', '.join(BACKENDS)}"
        )
    world = config.ranks if world_size is None else int(world_size)
    if steps < 0:
        raise ValueError(f"steps must not be negative, got {steps}")
    keep = sorted(set(int(s) for s in keep_steps))
    bad = [s for s in keep if not 0 <= s <= steps]
    if bad:
        raise ValueError(f"keep_steps {bad} are outside 0..{steps}")

    key = cache_key(config, backend, world, steps)
    path = cache_path(cache_dir, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(path.with_suffix(".lock")):
        cached = _read(path, key)
        if cached is not None and set(keep) <= cached.weights.keys():
            return Baseline(cached.losses, {s: cached.weights[s] for s in keep}, cached=True)
        # Keep what an earlier caller asked for too, so callers do not evict each other.
        want = sorted(set(keep) | (set(cached.weights) if cached else set()))
        train = _train_gloo if backend == "gloo" else _train
        trained = train(config, world, steps, want)
        _write_atomic(path, {"key": key, "losses": trained.losses, "weights": trained.weights})
        return Baseline(trained.losses, {s: trained.weights[s] for s in keep})


def _train(config: ReplicaConfig, world: int, steps: int, keep: list[int]) -> Baseline:
    trainer = Trainer(config, world)
    weights: dict[int, dict[str, torch.Tensor]] = {}
    wanted = set(keep)
    if 0 in wanted:
        weights[0] = trainer.parameters_copy()
    for _ in range(steps):
        trainer.train_step()
        if trainer.step in wanted:
            weights[trainer.step] = trainer.parameters_copy()
    return Baseline([loss for _, loss in trainer.losses], weights)


def _train_gloo(config: ReplicaConfig, world: int, steps: int, keep: list[int]) -> Baseline:
    from replica.distributed.launcher import GlooGroup

    weights: dict[int, dict[str, torch.Tensor]] = {}
    wanted = set(keep)
    losses: list[float] = []
    with tempfile.TemporaryDirectory(prefix="replica-baseline-") as run_dir:
        group = GlooGroup(config, world, run_dir, timeout=GLOO_TIMEOUT_S)
        group.start()
        try:
            if 0 in wanted:
                weights[0] = group.parameters()
            for _ in range(steps):
                losses.append(group.step())
                if group.step_count in wanted:
                    weights[group.step_count] = group.parameters()
        finally:
            group.stop()
    return Baseline(losses, weights)


def _read(path: Path, key: dict) -> Baseline | None:
    if not path.is_file():
        return None
    try:
        doc = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:
        return None  # unreadable: retrain and replace
    if not isinstance(doc, dict) or doc.get("key") != key:
        return None
    return Baseline(list(doc["losses"]), dict(doc["weights"]))


def _write_atomic(path: Path, obj: dict) -> None:
    buf = io.BytesIO()
    torch.save(obj, buf)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(buf.getbuffer())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """An advisory lock where the platform has flock; atomic writes keep readers safe anyway."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock, still no torn reads
        yield
        return
    with open(lock_path, "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)

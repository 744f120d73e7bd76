"""The undisturbed run that a drill's outcome is compared against, trained once and cached.

Works for any replica (replica/interface.py). The cache key holds the replica's identity (its
factory, settings, code digest and config hash), the backend, the world size and the number of
steps, so two replicas, or two configurations of one, never share a baseline.

What is kept, in one folder per key:

    baseline-<digest>/curve.json          the key and the loss of every step (written last)
    baseline-<digest>/anchors/            full checkpoints every ANCHOR_EVERY steps
    baseline-<digest>/weights-NNNNNN.pt   parameters at a step `match` asked for

The loss curve is what the score reads for every step (the effective step is the baseline step
that reached the learner's loss), so all of it is kept; it is a few kilobytes of JSON and needs
no torch to read. Weights are kept only at the steps `match` compares: the last step is stored
while training, and any other step is computed when first asked for, from the nearest anchor at
or before it (at most ANCHOR_EVERY - 1 steps of training), then stored. Resume from a checkpoint
is bit-exact, so a step computed from an anchor is the step the straight run reached.

Files are written atomically (temp file, fsync, rename); an exclusive lock around
check-train-write makes a second process wait for the first instead of training twice. Weights
and anchors are loaded with weights_only=True like every other file the replica reads. A cache
that is unreadable, or whose key differs, is retrained and replaced; a weights file that does not
load is computed again.

Backends: "inprocess" trains with replica.trainer.Trainer in this process. "gloo" trains with a
replica.distributed.GlooGroup of `world_size` real worker processes. With world size 1 or 2 the
two backends give the same bits; with more ranks gloo adds the rank gradients in its own order
and the runs are close, not bit-exact (docs/replica.md, "Real processes"), which is why the
backend is in the key.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from replica.config import ReplicaConfig
from replica.interface import LoadedReplica

CACHE_FORMAT = 2
BACKENDS = ("inprocess", "gloo")
# Process group timeout for the gloo baseline: nothing is injected, so a timeout is a bug.
GLOO_TIMEOUT_S = 60.0
# A full checkpoint every this many steps: any step's weights are then at most this many
# steps of training away. 50 keeps a default night's cache near 1.2 MB (it was 18.5 MB with
# every step's weights) and a step that is not stored yet costs at most about 0.4 s here.
ANCHOR_EVERY = 50
CURVE = "curve.json"


@dataclass(frozen=True)
class Baseline:
    # losses[k - 1] is the loss of step k (the step that brought the counter to k).
    losses: list[float]
    # Parameter tensors by step, for the steps that were asked for.
    weights: dict[int, dict[str, Any]] = field(default_factory=dict)
    # True when this came from the cache alone, with no training in this call.
    cached: bool = False


def _as_replica(replica: LoadedReplica | ReplicaConfig) -> LoadedReplica:
    from replica.trainer import as_replica

    return as_replica(replica)


def cache_key(
    replica: LoadedReplica | ReplicaConfig, backend: str, world_size: int, steps: int
) -> dict[str, Any]:
    loaded = _as_replica(replica)
    return {
        "format": CACHE_FORMAT,
        "replica": loaded.identity(),
        "config_hash": loaded.config_hash,
        "backend": backend,
        "world_size": world_size,
        "steps": steps,
        "anchor_every": ANCHOR_EVERY,
    }


def cache_path(cache_dir: str | os.PathLike[str], key: dict) -> Path:
    """The folder of one baseline."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
    return Path(cache_dir) / f"baseline-{digest}"


def load_or_train_baseline(
    replica: LoadedReplica | ReplicaConfig,
    *,
    backend: str = "inprocess",
    world_size: int | None = None,
    steps: int,
    keep_steps: Iterable[int] = (),
    cache_dir: str | os.PathLike[str],
) -> Baseline:
    """The undisturbed run's loss curve, and its weights at `keep_steps` (only those)."""
    if backend not in BACKENDS:
        raise ValueError(
            f"baseline backend {backend!r} is not available; known: {', '.join(BACKENDS)}"
        )
    loaded = _as_replica(replica)
    world = loaded.ranks if world_size is None else int(world_size)
    if steps < 0:
        raise ValueError(f"steps must not be negative, got {steps}")
    keep = sorted(set(int(s) for s in keep_steps))
    bad = [s for s in keep if not 0 <= s <= steps]
    if bad:
        raise ValueError(f"keep_steps {bad} are outside 0..{steps}")

    key = cache_key(loaded, backend, world, steps)
    folder = cache_path(cache_dir, key)
    folder.parent.mkdir(parents=True, exist_ok=True)
    cache = _Cache(folder, key, loaded, backend, world, steps)
    with _exclusive(folder.with_name(folder.name + ".lock")):
        losses = cache.read_curve()
        trained = losses is None
        if losses is None:
            cache.reset()
            losses = cache.train_all(want=set(keep) | {steps})
        weights = {}
        for s in keep:
            params = cache.read_weights(s)
            if params is None:
                params = cache.compute_weights(s)
                trained = True
            weights[s] = params
    return Baseline(losses, weights, cached=not trained)


class _Cache:
    def __init__(
        self, folder: Path, key: dict, replica: LoadedReplica, backend: str, world: int, steps: int
    ) -> None:
        self.folder = folder
        self.key = key
        self.replica = replica
        self.backend = backend
        self.world = world
        self.steps = steps
        self.anchors = folder / "anchors"

    # ----- reading ----------------------------------------------------------------------

    def read_curve(self) -> list[float] | None:
        try:
            doc = json.loads((self.folder / CURVE).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("key") != self.key:
            return None
        losses = doc.get("losses")
        if not isinstance(losses, list) or len(losses) != self.steps:
            return None
        return [float(v) for v in losses]

    def read_weights(self, step: int) -> dict[str, Any] | None:
        import torch

        path = self._weights_path(step)
        if not path.is_file():
            return None
        try:
            params = torch.load(path, map_location="cpu", weights_only=True)
        except Exception:
            return None  # damaged: computed again from an anchor
        return params if isinstance(params, dict) else None

    # ----- writing ----------------------------------------------------------------------

    def reset(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
        self.anchors.mkdir(parents=True)

    def train_all(self, want: set[int]) -> list[float]:
        """Train every step once: losses, anchors, and weights at `want`."""
        train = self._train_gloo if self.backend == "gloo" else self._train_inprocess
        losses = train(want)
        _write_atomic(
            self.folder / CURVE,
            json.dumps({"key": self.key, "losses": losses}, sort_keys=True).encode(),
        )
        return losses

    def compute_weights(self, step: int) -> dict[str, Any]:
        """Weights at `step`, trained from the nearest anchor at or before it, then stored."""
        anchor = (step // ANCHOR_EVERY) * ANCHOR_EVERY
        if anchor and not self._anchor_ok(anchor):
            # An anchor that does not verify cannot be trusted to resume: start again.
            self.reset()
            self.train_all(want={step, self.steps})
            params = self.read_weights(step)
            if params is None:  # pragma: no cover - just written
                raise RuntimeError(f"baseline weights at step {step} could not be read back")
            return params
        if self.backend == "gloo":
            params = self._gloo_from(anchor, step)
        else:
            params = self._inprocess_from(anchor, step)
        self._write_weights(step, params)
        return params

    def _anchor_ok(self, step: int) -> bool:
        from replica.checkpoint import CheckpointStore

        store = CheckpointStore(self.anchors, config_hash=self.replica.config_hash)
        try:
            return store.verify(step).ok
        except Exception:
            return False

    def _weights_path(self, step: int) -> Path:
        return self.folder / f"weights-{step:06d}.pt"

    def _write_weights(self, step: int, params: dict[str, Any]) -> None:
        import torch

        buf = io.BytesIO()
        torch.save(params, buf)
        _write_atomic(self._weights_path(step), buf.getvalue())

    # ----- the two backends -------------------------------------------------------------

    def _train_inprocess(self, want: set[int]) -> list[float]:
        from replica.checkpoint import CheckpointStore
        from replica.trainer import Trainer

        store = CheckpointStore(self.anchors, config_hash=self.replica.config_hash)
        trainer = Trainer(self.replica, self.world)
        if 0 in want:
            self._write_weights(0, trainer.parameters_copy())
        for _ in range(self.steps):
            trainer.train_step()
            if trainer.step in want:
                self._write_weights(trainer.step, trainer.parameters_copy())
            if trainer.step % ANCHOR_EVERY == 0 and trainer.step < self.steps:
                store.save(trainer)  # no step lies past the last: it needs no anchor
        return [loss for _, loss in trainer.losses]

    def _inprocess_from(self, anchor: int, step: int) -> dict[str, Any]:
        from replica.checkpoint import CheckpointStore
        from replica.trainer import Trainer

        trainer = Trainer(self.replica, self.world)
        if anchor:
            store = CheckpointStore(self.anchors, config_hash=self.replica.config_hash)
            trainer.load_full_state(store.load(anchor, verify=True))
        while trainer.step < step:
            trainer.train_step()
        return trainer.parameters_copy()

    def _group(self, log_dir: str):
        from replica.distributed.launcher import GlooGroup

        return GlooGroup(
            self.replica, self.world, self.anchors, timeout=GLOO_TIMEOUT_S, log_dir=log_dir
        )

    def _train_gloo(self, want: set[int]) -> list[float]:
        losses: list[float] = []
        with tempfile.TemporaryDirectory(prefix="replica-baseline-") as logs:
            group = self._group(logs)
            group.start()
            try:
                if 0 in want:
                    self._write_weights(0, group.parameters())
                for _ in range(self.steps):
                    losses.append(group.step())
                    if group.step_count in want:
                        self._write_weights(group.step_count, group.parameters())
                    if group.step_count % ANCHOR_EVERY == 0 and group.step_count < self.steps:
                        group.save()
            finally:
                group.stop()
        return losses

    def _gloo_from(self, anchor: int, step: int) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="replica-baseline-") as logs:
            group = self._group(logs)
            group.start(load_step=anchor or None, verify=True)
            try:
                while group.step_count < step:
                    group.step()
                return group.parameters()
            finally:
                group.stop()


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
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

"""The tiny real torch replica behind 3am Drill: model, data, ranks, checkpoints, baseline.

`import replica` is cheap: torch is imported only when a name that needs it is first used
(replica.trainer, replica.checkpoint, ...). This package never imports drill, simpy, textual
or rich; the engine reaches it through these names. The `match` function lives in
`replica.match` (import it from there: the package attribute of the same name is the module).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ReplicaConfig": "replica.config",
    "DEFAULT_NIGHT_STEPS": "replica.config",
    "Trainer": "replica.trainer",
    "CheckpointStore": "replica.checkpoint",
    "CheckpointRecord": "replica.checkpoint",
    "VerifyResult": "replica.checkpoint",
    "CheckpointError": "replica.errors",
    "CheckpointWriteError": "replica.errors",
    "ConfigMismatchError": "replica.errors",
    "GroupError": "replica.errors",
    "GlooGroup": "replica.distributed.launcher",
    "Baseline": "replica.baseline",
    "load_or_train_baseline": "replica.baseline",
    "MatchResult": "replica.match",
    "CLOSE_THRESHOLD": "replica.match",
    "replica_rank_for": "replica.ranks",
    "replica_world_for": "replica.ranks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'replica' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return __all__

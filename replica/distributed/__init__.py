"""The replica's real multi-process backend: ranks as worker processes on torch.distributed
(gloo over 127.0.0.1), driven by the game through GlooGroup, plus a torchrun entry point.

`import replica.distributed` does not import torch; the workers do, in their own processes.

- launcher.py: GlooGroup, the parent side (spawn, rendezvous, step, save, kill, hang, stop)
- worker.py: the worker process and its pipe protocol
- rank.py: RankTrainer, the per-rank training step shared by the worker and torchrun
- standalone.py: `torchrun ... -m replica.distributed.standalone`, no control channel
"""

from __future__ import annotations

from replica.errors import GroupError

__all__ = ["GlooGroup", "GroupError"]


def __getattr__(name: str):  # noqa: ANN202 - lazy export
    if name == "GlooGroup":
        from replica.distributed.launcher import GlooGroup

        return GlooGroup
    raise AttributeError(f"module 'replica.distributed' has no attribute {name!r}")

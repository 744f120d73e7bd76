"""The one place that sets torch's process-wide switches for bit-determinism.

- One intra-op thread: with more threads, reductions inside a kernel may be split differently
  from run to run or machine load to machine load, and the replica is so small that threads only
  add overhead anyway.
- Deterministic algorithms: torch raises instead of silently picking a nondeterministic kernel.

Called by Trainer.__init__ (and by any future worker process before it builds a model). It is
idempotent. It changes process-wide state on purpose: the game process is the replica's process.
"""

from __future__ import annotations

import torch

_done = False


def configure_determinism() -> None:
    global _done
    if _done:
        return
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    _done = True

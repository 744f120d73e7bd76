"""The one place that sets torch's process-wide switches for bit-determinism.

- One intra-op thread: with more threads, reductions inside a kernel may be split differently
  from run to run or machine load to machine load, and the replica is so small that threads only
  add overhead anyway.
- Deterministic algorithms: torch raises instead of silently picking a nondeterministic kernel.
- A fixed seed for the global CPU generator: torch seeds it at random in every process. The
  replica never draws from it, but a checkpoint saves its state (the `rng` entry), so without a
  fixed seed the same checkpoint had different bytes, and a different sha256 in its manifest,
  in every process, and a replayed `ckpt verify` printed other hashes than the save.

Why not `torch.use_deterministic_algorithms(True)`: in torch 2.13 that function first runs
`import torch._inductor.config` (to set inductor's own `deterministic` flag, which only
torch.compile reads), and that import pulls in dynamo and FSDP: about 1.6 s of CPU in every
process and every gloo worker, for a compiler the replica never uses. The switch that eager
kernels consult is the one `torch._C._set_deterministic_algorithms` sets, which is the call
use_deterministic_algorithms makes after the import. If inductor is already loaded (a learner's
replica that compiles), its flag is set too, so nothing is lost by skipping the import.
Measured with `python -X importtime` on the 2-core development machine: the chain is
torch._inductor.config -> torch._inductor -> torch._dynamo, about 830 modules on top of the
roughly 1,100 of `import torch`, and 1.25 to 1.6 s of CPU.

Called by Trainer.__init__ (and by every worker process before it builds a model). It is
idempotent. It changes process-wide state on purpose: the game process is the replica's process.

Two nights in one process at once (the game measures par and floor in a thread while the
learner plays) would share the global generator: one night building a model or loading a
checkpoint moves it under the other, and the other's next checkpoint records a state that
depends on the timing, so its bytes and manifest sha256 differ from the same night alone.
NightRng gives each night the generator as it alone would have it: every step of the night
that touches it (the replica check, building a model, saving or loading a checkpoint, the
baseline) runs under one process-wide lock, with the night's own state put in first and taken
back after. Training steps do not touch it (the replica check refuses a replica whose steps
draw from it), so they run outside the lock and two nights train side by side.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import torch

_done = False


def configure_determinism() -> None:
    global _done
    if _done:
        return
    torch.set_num_threads(1)
    set_deterministic_algorithms()
    torch.manual_seed(0)
    _done = True


def set_deterministic_algorithms() -> None:
    """What torch.use_deterministic_algorithms(True) does, without importing the compiler."""
    # Any: a module torch's stubs do not describe, and only present once the compiler loaded.
    inductor_config: Any = sys.modules.get("torch._inductor.config")
    if inductor_config is not None:
        inductor_config.deterministic = True
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:  # pragma: no cover - a torch without the private switch: pay the import
        torch.use_deterministic_algorithms(True)
        return
    setter(True)


# Held while a night has its own state in torch's global generator (NightRng.held).
_GLOBAL_RNG = threading.RLock()


class NightRng:
    """torch's global CPU generator as one night alone would see it (see the module doc)."""

    def __init__(self) -> None:
        self.state: torch.Tensor | None = None  # None: the night has not touched it yet

    @contextmanager
    def held(self) -> Iterator[None]:
        """Run a step that touches the global generator with this night's state in it."""
        with _GLOBAL_RNG:
            if self.state is not None:
                torch.set_rng_state(self.state)
            try:
                yield
            finally:
                self.state = torch.get_rng_state()

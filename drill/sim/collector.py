"""The garbage collector held off while a world is built.

Building a fleet makes hundreds of thousands of objects (nodes, GPUs, the starting load) that
all live as long as the night, and none of them garbage: the collector, run every few hundred
of them, walked the growing heap again and again for nothing (about a third of building 8,192
nodes). So the build runs with it paused and then it runs as before; whatever the build left
for it is collected at its next turn.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause automatic collection for the block, and put it back as it was (it stays off if
    someone had turned it off; another thread's pause that ends first leaves it off no longer
    than its own block)."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()

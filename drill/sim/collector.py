"""The garbage collector held off while a world is built and while it runs.

A night makes objects it keeps: nodes, GPUs, jobs, their attempts, the timeline's events, all
living as long as the night and almost none of them garbage (a 20,000-job fleet day left 20
objects for the collector to free). With the collector on, every few hundred new objects start
a young collection, and each time the survivors grow by a quarter a full one walks the whole
heap again: on a fleet day that was a third or more of the time, and more the larger the heap,
which is what made a big night cost more per event than a small one. So building a world and
running it (World.run_until, Drill.play_out) hold the collector off; between those calls, and
after the night, it runs as before and frees what little there is.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Pause automatic collection for the block, and put it back as it was: it stays off if
    it was off, and a pause inside another leaves the outer one to turn it back on. Two
    threads' pauses that overlap leave it on once the first to pause is done."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()

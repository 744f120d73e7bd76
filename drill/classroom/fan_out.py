"""Where grading's replays run: a local process pool by default, or Dask's distributed scheduler
(a LocalCluster of N workers on 127.0.0.1, or a scheduler already running elsewhere). Both are
a concurrent.futures Executor (Dask's through Client.get_executor), so grading submits and
collects its tasks by one code path whichever it is.

Dask is imported only when asked for; the process pool starts its workers fresh (spawn), so a
worker never inherits the parent's database connection or threads.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor

MAX_PROCESSES = 64


class FanOutError(Exception):
    """The workers cannot be had: one line saying why."""


@contextlib.contextmanager
def executor_for(
    *, processes: int | None = None, workers: int | None = None, scheduler: str | None = None
) -> Iterator[tuple[Executor, str]]:
    """(executor, what it is in words). `workers` or `scheduler`: Dask; else a process pool of
    `processes` (default: one per core)."""
    if scheduler is not None or workers is not None:
        with _dask(workers, scheduler) as found:
            yield found
        return
    count = processes or os.cpu_count() or 1
    if not 1 <= count <= MAX_PROCESSES:
        raise FanOutError(f"--processes must be from 1 to {MAX_PROCESSES}, not {count}")
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn"))
    try:
        yield pool, f"{count} local process{'es' if count != 1 else ''}"
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@contextlib.contextmanager
def _dask(workers: int | None, scheduler: str | None) -> Iterator[tuple[Executor, str]]:
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise FanOutError(
            "Dask's distributed is not installed; `pip install 'threeam-drill[course]'`, or"
            " grade with the local process pool (leave out --workers and --scheduler)"
        ) from None
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            if not scheduler.startswith(("tcp://", "tls://")):
                raise FanOutError(
                    f"--scheduler {scheduler}: give the scheduler's address, like tcp://HOST:8786"
                )
            try:
                client = stack.enter_context(Client(scheduler, timeout="15s"))
            except (OSError, TimeoutError) as exc:
                raise FanOutError(
                    f"--scheduler {scheduler}: cannot reach the Dask scheduler there ({exc})"
                ) from None
            what = f"the Dask scheduler at {scheduler}"
        else:
            assert workers is not None
            if not 1 <= workers <= MAX_PROCESSES:
                raise FanOutError(f"--workers must be from 1 to {MAX_PROCESSES}, not {workers}")
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,  # one replay at a time per worker process
                    processes=True,
                    host="127.0.0.1",  # nothing listens beyond this machine
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            )
            client = stack.enter_context(Client(cluster))
            what = f"a Dask LocalCluster of {workers} worker{'s' if workers != 1 else ''}"
        executor = client.get_executor(pure=False)
        try:
            yield executor, what
        finally:
            executor.shutdown(wait=True)

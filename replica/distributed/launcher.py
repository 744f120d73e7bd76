"""GlooGroup: the replica's ranks as real worker processes joined by torch.distributed on gloo.

The game engine (one thread) owns a GlooGroup and drives it step by step over one pipe per
worker. A dead rank is a real SIGKILL of a real process and a hung rank is a real SIGSTOP; what
the survivors raise while they wait in the next collective is returned word for word, because
those texts become the game's alerts.

Things that are easy to get wrong, and what this module does about them:

- Orphans. Each worker asks the kernel to SIGKILL it when its parent dies (PR_SET_PDEATHSIG,
  replica/distributed/worker.py), so SIGKILL or SIGTERM of the game process takes the workers
  down with it, even a worker that is frozen or stuck in a collective. stop() is registered
  with atexit for normal exits. Workers ignore SIGINT, so a Ctrl-C in a terminal reaches only
  the game; a KeyboardInterrupt (or any exception) that breaks into a pipe exchange kills the
  workers at once, because half-read replies would confuse the next exchange.
  PR_SET_PDEATHSIG fires when the *thread* that forked the child exits, not the process, so
  workers are always forked from one long-lived daemon thread (_Spawner): a group started from
  a short-lived thread (a UI worker thread, say) does not die when that thread ends.
- Hangs. Every wait has a deadline: start-up within start_timeout, a step within the process
  group timeout plus MARGIN_S. A worker that neither answers nor dies by then is named and
  killed. Nothing here waits without a deadline.
- Rendezvous and slow imports. `import torch` takes seconds per process, longer when several
  start at once on few cores. Workers report "built" after importing and building the model,
  and the parent tells them to rendezvous only when all are built, so the process group
  timeout (the incident's setting, often a few seconds) is not spent waiting for imports.
- Signal handlers. stop() may be called from a signal handler that interrupted this object in
  the middle of a pipe exchange. It then skips the polite "stop" message (a second writer on
  the same pipe could interleave bytes) and only kills and reaps.

Network: the store and gloo use 127.0.0.1 only for connections. The rendezvous store that
rank 0 hosts listens on the chosen port on all interfaces (torch's TCPStore server binds the
wildcard address); it lives only as long as the group.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import multiprocessing as mp
import os
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replica.config import ReplicaConfig
from replica.distributed import worker as worker_module
from replica.errors import (
    CheckpointError,
    CheckpointWriteError,
    ConfigMismatchError,
    GroupError,
)

if TYPE_CHECKING:
    import torch

    from replica.checkpoint import CheckpointRecord

# Extra wall seconds, on top of the process group timeout, that the parent waits for a step's
# answers before it declares a worker silent. Survivors of a hang report at about `timeout`.
MARGIN_S = 5.0
# How long stop() waits for workers to leave politely before it kills them.
STOP_GRACE_S = 2.0
# After one worker fails during start-up, how long to keep listening for the others' words.
START_FAILURE_GRACE_S = 0.5
# Saving and loading touch no collective, so they are not bound by the group timeout.
IO_DEADLINE_S = 60.0

_STAGES = {
    "spawned": "nothing since it was spawned",
    "alive": "alive, still importing torch or building the model",
    "built": "built, waiting in the rendezvous for the other ranks",
    "ready": "ready",
}


class _Spawner:
    """Runs process starts on one daemon thread that lives as long as the process.

    Why: PR_SET_PDEATHSIG is tied to the thread that forked the child. Forking from a thread
    that later exits would SIGKILL healthy workers at that moment.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], dict[str, Any]]] = (
            queue.SimpleQueue()
        )
        self._thread: threading.Thread | None = None

    def run(self, fn: Callable[[], Any]) -> Any:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._loop, name="replica-spawner", daemon=True
                )
                self._thread.start()
        box: dict[str, Any] = {"done": threading.Event()}
        self._queue.put((fn, box))
        box["done"].wait()
        if "error" in box:
            raise box["error"]
        return box.get("result")

    def _loop(self) -> None:
        while True:
            fn, box = self._queue.get()
            try:
                box["result"] = fn()
            except BaseException as exc:
                box["error"] = exc
            finally:
                box["done"].set()


_SPAWNER = _Spawner()


@dataclass
class _Worker:
    rank: int
    process: Any  # multiprocessing's SpawnProcess
    conn: Connection
    pid: int
    stage: str = "spawned"


@dataclass
class _Outcome:
    """What came back from one exchange with some workers."""

    replies: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)  # rank -> "Type: text" it reported
    dead: dict[int, int | None] = field(default_factory=dict)  # rank -> exit code
    silent: list[int] = field(default_factory=list)  # neither answered nor died in time
    # True when waiting stopped early because another worker had already failed.
    cut_short: bool = False

    @property
    def ok(self) -> bool:
        return not (self.errors or self.dead or self.silent)

    def tagged_errors(self, ranks: Iterable[int] | None = None) -> list[str]:
        keep = set(self.errors) if ranks is None else set(ranks)
        return [f"[rank {r}] {t}" for r, t in sorted(self.errors.items()) if r in keep]


def _exit_text(code: int | None) -> str:
    if code is None:
        return "is still running"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _check_port(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # The same option the rendezvous store sets, so a port in TIME_WAIT is not "in use".
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise GroupError(
                f"port {port} on 127.0.0.1 is in use; choose another port, or leave port unset "
                f"so the group picks a free one ({exc.strerror or exc})"
            ) from exc


def _rebuild_checkpoint_error(reply: tuple[Any, ...]) -> CheckpointError:
    _, kind, reason, file, err_no, _text, status = reply
    if kind == "CheckpointWriteError":
        return CheckpointWriteError(reason, file=file, errno=err_no)
    if kind == "ConfigMismatchError":
        return ConfigMismatchError(reason, file=file, status=status)
    return CheckpointError(reason, file=file, status=status)


def _replica_spec(replica: Any) -> tuple[dict[str, Any], int]:
    """(plain spec for the workers, global batch) of a LoadedReplica or a ReplicaConfig.

    A ReplicaConfig is the shipped GPT; it needs no import of the replica's code here, so the
    launcher stays free of torch for it."""
    if isinstance(replica, ReplicaConfig):
        from replica.interface import DEFAULT_REF

        spec = {"ref": DEFAULT_REF, "settings": replica.to_dict(), "config_hash": None}
        return spec, replica.global_batch
    make_spec = getattr(replica, "spec", None)
    if not callable(make_spec):
        raise TypeError(
            f"expected a LoadedReplica or a ReplicaConfig, got {type(replica).__name__}"
        )
    return make_spec(), int(replica.global_batch)


class GlooGroup:
    """`world` real worker processes training the replica with torch.distributed on gloo.

    Not thread-safe: one caller drives it (stop() alone may also come from atexit or a signal
    handler). After a failure (GroupError, kill_rank, hang_rank) the workers are gone; start()
    may be called again, typically with load_step, like a job restarted from a checkpoint.
    """

    def __init__(
        self,
        replica: Any,
        world: int,
        run_dir: str | os.PathLike[str],
        *,
        timeout: float = 10.0,
        start_timeout: float = 60.0,
        port: int | None = None,
        log_dir: str | os.PathLike[str] | None = None,
        faults: Mapping[int, str] | None = None,
    ) -> None:
        """replica: a LoadedReplica (replica/interface.py) or a ReplicaConfig (the shipped GPT);
        the workers build it again from its ref and settings, so a learner's replica runs in
        them too. timeout: the process group timeout in wall seconds (how long a collective waits for
        a silent peer). start_timeout: how long start() waits for every worker to be ready.
        port: the rendezvous port on 127.0.0.1 (default: a free one, chosen at each start).
        log_dir: where each worker's stdout and stderr go (default: run_dir / "logs").
        faults: start-up fault injection per rank, "crash_at_start" (the worker raises before
        it joins) or "stall_at_start" (the worker never reports), for drills and tests.
        """
        if isinstance(world, bool) or not isinstance(world, int) or world < 1:
            raise ValueError(f"world must be a positive integer, got {world!r}")
        spec, global_batch = _replica_spec(replica)
        if global_batch % world:
            raise ValueError(f"world size {world} must divide global batch {global_batch}")
        if not timeout > 0 or not start_timeout > 0:
            raise ValueError("timeout and start_timeout must be positive")
        if port is not None and not 0 < port < 65536:
            raise ValueError(f"port must be in 1..65535, got {port}")
        faults = dict(faults or {})
        for rank, name in faults.items():
            if not 0 <= rank < world or name not in worker_module.START_FAULTS:
                raise ValueError(
                    f"fault {name!r} for rank {rank}: known faults are "
                    f"{', '.join(worker_module.START_FAULTS)} on ranks 0..{world - 1}"
                )
        self.replica = replica
        self._spec = spec
        self.world = world
        self.run_dir = Path(run_dir)
        self.log_dir = Path(log_dir) if log_dir is not None else self.run_dir / "logs"
        self.timeout = float(timeout)
        self.start_timeout = float(start_timeout)
        self._fixed_port = port
        self._faults = faults
        self.port: int | None = None
        self._workers: list[_Worker] = []
        self._step = 0
        self._running = False
        self._busy = False
        # The sha256 check of the bytes the last load read (rank 0's; every rank reads the
        # same file): "ok", "corrupt", "unverifiable", "missing" or "foreign". None: no load.
        self.last_load_check: str | None = None

    # ----- properties -------------------------------------------------------------------

    @property
    def step_count(self) -> int:
        return self._step

    @property
    def pids(self) -> list[int]:
        """Process ids of the current workers, by rank (empty when stopped)."""
        return [w.pid for w in self._workers]

    @property
    def running(self) -> bool:
        return self._running

    def log_path(self, rank: int) -> Path:
        return self.log_dir / f"rank-{rank}.log"

    # ----- start ------------------------------------------------------------------------

    def start(
        self, *, load_step: int | None = None, verify: bool = False, load_optimizer: bool = True
    ) -> None:
        """Spawn the workers, rendezvous, and (with load_step) load that checkpoint on every
        rank. Raises GroupError, with every worker killed, if any of it fails."""
        if self._workers:
            raise GroupError("the group is already running; stop() it first")
        if self._fixed_port is not None:
            _check_port(self._fixed_port)
            port = self._fixed_port
        else:
            port = _free_port()
        self.port = port
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._step = 0
        self.last_load_check = None
        deadline = time.monotonic() + self.start_timeout
        atexit.register(self.stop)
        ctx = mp.get_context("spawn")
        spawned: list[_Worker] = []

        def spawn_all() -> None:
            for rank in range(self.world):
                spec = {
                    "rank": rank,
                    "world": self.world,
                    "port": port,
                    "timeout": self.timeout,
                    "replica": self._spec,
                    "run_dir": str(self.run_dir),
                    "log_path": str(self.log_path(rank)),
                    "parent_pid": os.getpid(),
                    "fault": self._faults.get(rank),
                }
                parent_conn, child_conn = ctx.Pipe(duplex=True)
                proc = ctx.Process(
                    target=worker_module.main,
                    args=(child_conn, spec),
                    name=f"replica-rank-{rank}",
                    daemon=True,
                )
                try:
                    proc.start()
                finally:
                    child_conn.close()
                assert proc.pid is not None  # start() returned, so the process has one
                spawned.append(_Worker(rank, proc, parent_conn, proc.pid))

        try:
            _SPAWNER.run(spawn_all)
        finally:
            self._workers = spawned
        if len(spawned) < self.world:  # pragma: no cover - spawn_all raised
            self._abort()
            raise GroupError("could not spawn the workers")

        everyone = list(range(self.world))
        out = self._collect(everyone, "built", deadline, failure_grace=START_FAILURE_GRACE_S)
        if out.ok:
            out = self._exchange(
                everyone, ("init",), "ready", deadline, failure_grace=START_FAILURE_GRACE_S
            )
        if not out.ok:
            message = self._describe("start-up", out, waited=self.start_timeout, starting=True)
            self._abort()
            raise GroupError(message, out.tagged_errors(), exit_codes=out.dead)
        self._running = True
        if load_step is not None:
            self._load(load_step, verify=verify, load_optimizer=load_optimizer)

    def _load(self, step: int, *, verify: bool, load_optimizer: bool) -> None:
        everyone = list(range(self.world))
        deadline = time.monotonic() + IO_DEADLINE_S + self.timeout
        out = self._exchange(everyone, ("load", step, verify, load_optimizer), "loaded", deadline)
        failed = {r: m for r, m in out.replies.items() if m[0] == "failed"}
        if out.ok and not failed:
            steps = {m[1] for m in out.replies.values()}
            if len(steps) != 1:  # pragma: no cover - every rank reads the same file
                self._abort()
                raise GroupError(f"ranks loaded different steps: {sorted(steps)}")
            self._step = steps.pop()
            self.last_load_check = out.replies[0][2]
            return
        texts = [f"[rank {r}] {m[5]}" for r, m in sorted(failed.items())] + out.tagged_errors()
        ckpt_error = _rebuild_checkpoint_error(failed[min(failed)]) if failed else None
        if failed:
            message = f"loading checkpoint step {step} failed: {failed[min(failed)][5]}"
        else:
            message = self._describe(f"loading checkpoint step {step}", out, waited=None)
        self._abort()
        raise GroupError(message, texts, exit_codes=out.dead, checkpoint_error=ckpt_error)

    # ----- training ---------------------------------------------------------------------

    def step(self) -> float:
        """One synchronous step on every rank; returns the mean loss over the global batch.

        If any worker fails or dies, waits (at most timeout + MARGIN_S) for what the others
        raise, kills every worker and raises GroupError with their texts in `.errors`.
        """
        self._require_running("step")
        everyone = list(range(self.world))
        deadline = time.monotonic() + self.timeout + MARGIN_S
        out = self._exchange(everyone, ("step",), "stepped", deadline)
        if not out.ok:
            message = self._describe(f"step {self._step + 1}", out, waited=self.timeout + MARGIN_S)
            self._abort()
            raise GroupError(message, out.tagged_errors(), exit_codes=out.dead)
        steps = {m[1] for m in out.replies.values()}
        if len(steps) != 1:  # pragma: no cover - a protocol bug, not a runtime condition
            self._abort()
            raise GroupError(f"ranks disagree on the step count: {sorted(steps)}")
        self._step = steps.pop()
        return float(out.replies[0][2])

    def save(
        self, *, atomic: bool = True, fail_after_fraction: float | None = None
    ) -> CheckpointRecord:
        """Rank 0 writes a checkpoint of the current step into run_dir (CheckpointStore).

        A checkpoint failure raises the same CheckpointError (or CheckpointWriteError) the
        in-process store would, and the group keeps running, as the in-process trainer does.
        """
        from replica.checkpoint import CheckpointRecord

        if fail_after_fraction is not None and not 0 <= fail_after_fraction < 1:
            raise ValueError(f"fail_after_fraction must be in [0, 1), got {fail_after_fraction}")
        self._require_running("save")
        deadline = time.monotonic() + IO_DEADLINE_S + self.timeout
        out = self._exchange([0], ("save", atomic, fail_after_fraction), "saved", deadline)
        if not out.ok:
            message = self._describe("save", out, waited=None)
            self._abort()
            raise GroupError(message, out.tagged_errors(), exit_codes=out.dead)
        reply = out.replies[0]
        if reply[0] == "failed":
            raise _rebuild_checkpoint_error(reply)
        doc = dict(reply[2])
        doc["path"] = Path(doc["path"])
        return CheckpointRecord(**doc)

    def parameters(self) -> dict[str, torch.Tensor]:
        """Rank 0's parameter tensors (cpu, cloned), for match against the baseline."""
        import torch

        out = self._ask([0], ("params",), "params", "parameters")
        return torch.load(io.BytesIO(out.replies[0][1]), map_location="cpu", weights_only=True)

    def losses(self) -> list[tuple[int, float]]:
        """Rank 0's loss history, (step, loss) for every step of this run's lineage: the steps
        it trained and, after a resume, the ones recorded in the checkpoint it loaded."""
        out = self._ask([0], ("losses",), "losses", "losses")
        return [(int(s), float(v)) for s, v in out.replies[0][1]]

    def digests(self) -> list[str]:
        """sha256 of every rank's parameters, by rank: all equal while the ranks agree."""
        out = self._ask(list(range(self.world)), ("digest",), "digest", "digests")
        return [out.replies[r][1] for r in range(self.world)]

    def _ask(self, ranks: list[int], message: tuple[Any, ...], expect: str, what: str) -> _Outcome:
        self._require_running(what)
        deadline = time.monotonic() + IO_DEADLINE_S + self.timeout
        out = self._exchange(ranks, message, expect, deadline)
        if not out.ok:
            text = self._describe(what, out, waited=None)
            self._abort()
            raise GroupError(text, out.tagged_errors(), exit_codes=out.dead)
        return out

    # ----- faults -----------------------------------------------------------------------

    def kill_rank(self, rank: int) -> list[str]:
        """SIGKILL one worker, let the others try the next step, return what they raise.

        Each text is rank-tagged and in the exception's own words. Waits at most
        timeout + MARGIN_S; then every worker is gone and the group is stopped.
        """
        victim = self._victim(rank, "kill_rank")
        with contextlib.suppress(ProcessLookupError):
            os.kill(victim.pid, signal.SIGKILL)
        victim.process.join(timeout=5)
        return self._survivors_step(rank)

    def hang_rank(self, rank: int, *, how: str = "sigstop") -> list[str]:
        """Make one worker stop silently and return what the others raise when the process
        group timeout expires in the next step's collective.

        how="sigstop" freezes the process (alive, sockets open, never answers): the closest
        thing to a GPU stuck in a kernel. how="command" asks the worker to block forever in
        Python instead. Either way the survivors see a real gloo timeout. Waits at most
        timeout + MARGIN_S; then every worker, the frozen one too, is killed.
        """
        if how not in ("sigstop", "command"):
            raise ValueError(f"how must be 'sigstop' or 'command', got {how!r}")
        victim = self._victim(rank, "hang_rank")
        if how == "sigstop":
            with contextlib.suppress(ProcessLookupError):
                os.kill(victim.pid, signal.SIGSTOP)
        else:
            self._busy = True
            try:
                victim.conn.send(("hang",))
            finally:
                self._busy = False
        return self._survivors_step(rank)

    def _victim(self, rank: int, what: str) -> _Worker:
        self._require_running(what)
        if isinstance(rank, bool) or not isinstance(rank, int) or not 0 <= rank < self.world:
            raise ValueError(f"rank must be in 0..{self.world - 1}, got {rank!r}")
        return self._workers[rank]

    def _survivors_step(self, victim: int) -> list[str]:
        survivors = [r for r in range(self.world) if r != victim]
        deadline = time.monotonic() + self.timeout + MARGIN_S
        out = self._exchange(survivors, ("step",), "stepped", deadline) if survivors else None
        self._abort()
        return out.tagged_errors() if out is not None else []

    # ----- stop -------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop every worker: a polite "stop" and a short wait, then SIGKILL. Idempotent.

        Safe from atexit and from a signal handler: if the handler interrupted a pipe
        exchange, nothing is written to the pipes; the workers are only killed and reaped.
        """
        workers = list(self._workers)
        if not workers:
            self._running = False
            return
        if self._running and not self._busy:
            deadline = time.monotonic() + STOP_GRACE_S
            for w in workers:
                with contextlib.suppress(OSError, ValueError):
                    w.conn.send(("stop",))
            for w in workers:
                w.process.join(timeout=max(0.0, deadline - time.monotonic()))
        if self._busy:
            # Interrupted mid-exchange: kill only; the exchange sees the deaths and unwinds.
            self._kill_all(workers)
            self._running = False
            return
        self._abort()

    def _kill_all(self, workers: list[_Worker]) -> None:
        for w in workers:
            if w.process.exitcode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(w.pid, signal.SIGKILL)
        for w in workers:
            w.process.join(timeout=5)

    def _abort(self) -> None:
        """Kill and reap every worker, close the pipes, forget them."""
        workers, self._workers = self._workers, []
        self._running = False
        self._kill_all(workers)
        for w in workers:
            with contextlib.suppress(OSError):
                w.conn.close()
            with contextlib.suppress(ValueError):
                w.process.close()
        atexit.unregister(self.stop)

    def _require_running(self, what: str) -> None:
        if not self._running or not self._workers:
            raise GroupError(f"cannot {what}: the group is not running (start() it first)")

    # ----- the pipe protocol ------------------------------------------------------------

    def _exchange(
        self,
        ranks: list[int],
        message: tuple[Any, ...],
        expect: str,
        deadline: float,
        *,
        failure_grace: float | None = None,
    ) -> _Outcome:
        out = _Outcome()
        self._busy = True
        try:
            for r in ranks:
                # A dead worker's pipe refuses the write; _collect finds out how it died.
                with contextlib.suppress(OSError, ValueError):
                    self._workers[r].conn.send(message)
        except BaseException:
            self._interrupted()
            raise
        finally:
            self._busy = False
        return self._collect(ranks, expect, deadline, failure_grace=failure_grace, out=out)

    def _collect(
        self,
        ranks: list[int],
        expect: str,
        deadline: float,
        *,
        failure_grace: float | None = None,
        out: _Outcome | None = None,
    ) -> _Outcome:
        """Wait until each rank replied `expect` (or "failed"), reported an error, died, or the
        deadline passed. With failure_grace, stop that long after the first failure."""
        out = out if out is not None else _Outcome()
        pending = set(ranks)
        self._busy = True
        try:
            while pending:
                now = time.monotonic()
                if now >= deadline:
                    break
                waitables: dict[Any, tuple[int, str]] = {}
                for r in pending:
                    w = self._workers[r]
                    waitables[w.conn] = (r, "conn")
                    waitables[w.process.sentinel] = (r, "sentinel")
                for obj in wait(list(waitables), timeout=deadline - now):
                    r, kind = waitables[obj]
                    if r not in pending:
                        continue
                    w = self._workers[r]
                    if kind == "conn":
                        if self._receive(w, expect, out):
                            pending.discard(r)
                    else:
                        # Dead: read whatever it said before it went.
                        while r in pending and self._poll(w):
                            if self._receive(w, expect, out):
                                pending.discard(r)
                        if r in pending or r in out.errors:
                            w.process.join(timeout=5)
                            out.dead[r] = w.process.exitcode
                            pending.discard(r)
                if failure_grace is not None and (out.errors or out.dead):
                    deadline = min(deadline, time.monotonic() + failure_grace)
                    failure_grace = None
                    out.cut_short = True
        except BaseException:
            self._interrupted()
            raise
        finally:
            self._busy = False
        out.silent = sorted(pending)
        return out

    def _interrupted(self) -> None:
        # Something (KeyboardInterrupt, a signal handler's exception) broke into an exchange.
        # Replies may now be half read or still in flight, and a later exchange would take
        # them for its own; a job interrupted mid-collective is gone anyway. Kill, forget.
        self._busy = False
        self._abort()

    @staticmethod
    def _poll(w: _Worker) -> bool:
        try:
            return w.conn.poll()
        except (OSError, ValueError):
            return False

    @staticmethod
    def _receive(w: _Worker, expect: str, out: _Outcome) -> bool:
        """Handle one message; True when the rank is done for this exchange."""
        try:
            msg = w.conn.recv()
        except (EOFError, OSError, ValueError):
            # The pipe closed: the process is dying; the sentinel will say how.
            w.process.join(timeout=5)
            out.dead[w.rank] = w.process.exitcode
            return True
        kind = msg[0]
        if kind in _STAGES:
            w.stage = kind
        if kind == "alive":
            return expect == "alive"
        if kind == "error":
            out.errors[w.rank] = str(msg[1])
            return False  # it exits next; the sentinel records the exit code
        if kind == expect or kind == "failed":
            out.replies[w.rank] = msg
            return True
        return False

    def _describe(
        self, what: str, out: _Outcome, *, waited: float | None, starting: bool = False
    ) -> str:
        parts: list[str] = []
        for r, code in sorted(out.dead.items()):
            pid = self._workers[r].pid
            part = f"rank {r} (pid {pid}) {_exit_text(code)}"
            if r in out.errors:
                part += f" after reporting {out.errors[r]}"
            elif starting:
                tail = self._log_tail(r)
                part += f" without a word (last log line: {tail})" if tail else " without a word"
            parts.append(part)
        for r, text in sorted(out.errors.items()):
            if r not in out.dead:
                parts.append(f"rank {r} reported {text}")
        for r in out.silent:
            w = self._workers[r]
            within = f" within {waited:g} s" if waited is not None else ""
            if starting and out.cut_short:
                parts.append(
                    f"rank {r} (pid {w.pid}) was stopped while starting "
                    f"(last heard: {_STAGES[w.stage]})"
                )
            elif starting:
                parts.append(
                    f"rank {r} (pid {w.pid}) did not report ready{within} "
                    f"(last heard: {_STAGES[w.stage]})"
                )
            else:
                parts.append(f"rank {r} (pid {w.pid}) did not answer{within}")
        return f"{what} failed: " + "; ".join(parts)

    def _log_tail(self, rank: int) -> str:
        try:
            lines = self.log_path(rank).read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1].strip() if lines else ""

"""The worker process: one rank of a GlooGroup, obeying its parent over a pipe.

Started by replica/distributed/launcher.py with the multiprocessing "spawn" context. This module
imports only the standard library at the top, so that the first thing the process does, before
the seconds it takes to import torch, is arrange to die with its parent.

Start-up, in order (each step reported to the parent so a stuck worker can be named):
    1. prctl(PR_SET_PDEATHSIG, SIGKILL) on Linux, then check the parent is still the one that
       spawned us (it may have died before the prctl); SIGINT ignored (the parent decides);
       stdout and stderr redirected to the rank's log file       -> ("alive", pid)
    2. import torch, configure determinism, load the replica named in the spec (its factory's
       module is imported here: a learner's replica runs in the workers too), build the
       model and optimizer                                      -> ("built",)
    3. wait for ("init",) from the parent, which sends it once every rank is built, so the
       rendezvous timeout is not spent on another rank's slow torch import
    4. a TCPStore on 127.0.0.1:PORT (rank 0 serves it from a socket bound to 127.0.0.1),
       then dist.init_process_group("gloo", store, timeout)  -> ("ready",)

Commands and replies after that:
    ("step",)                          -> ("stepped", step, loss)
    ("save", atomic, fail_after)       -> ("saved", step, record)  | ("failed", kind, ...)
    ("load", step, verify, load_opt)   -> ("loaded", step, status) | ("failed", kind, ...)
                                          status: the sha256 check of the bytes it read
                                          ("ok", "corrupt", "unverifiable", "foreign")
    ("params",)                        -> ("params", torch.save bytes of the parameters)
    ("losses",)                        -> ("losses", [[step, loss], ...] of this run's history)
    ("digest",)                        -> ("digest", sha256 of the parameters)
    ("hang",)                          -> nothing, ever: blocks forever, joins no collective
    ("stop",)                          -> ("stopped",), destroy_process_group, exit 0

A checkpoint error is "failed" and the worker keeps going (the in-process trainer is also still
there after a failed save). Any other exception, including everything a collective raises, is
replied as ("error", "<ExceptionType>: <its own text>") and the worker exits with status 1.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import traceback
from typing import Any

PR_SET_PDEATHSIG = 1

# Fault injection for start-up, keyed by name (GlooGroup(faults={rank: name})).
START_FAULTS = ("crash_at_start", "stall_at_start")


def die_with_parent(parent_pid: int) -> None:
    """Have the kernel SIGKILL this process when its parent thread exits (Linux only).

    The parent may already be gone by the time this runs; then we were re-parented and exit.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(err)}")
    if os.getppid() != parent_pid:
        os._exit(3)


def _redirect_output(log_path: str) -> None:
    # torch and gloo print warnings straight to file descriptor 2; a game drawing a terminal UI
    # must not have them on its screen, and a person debugging wants them somewhere.
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(line_buffering=True)


def _text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _failed(exc: BaseException) -> tuple[Any, ...]:
    """A non-fatal checkpoint failure, in a form the parent can rebuild as the same error."""
    from replica.errors import CheckpointError

    if isinstance(exc, CheckpointError):
        return (
            "failed",
            type(exc).__name__,
            exc.reason,
            exc.file,
            getattr(exc, "errno", None),
            _text(exc),
            exc.status,
        )
    return ("failed", "CheckpointError", _text(exc), None, None, _text(exc), None)


def _fatal(conn: Any, exc: BaseException) -> None:
    traceback.print_exc()
    with contextlib.suppress(Exception):
        conn.send(("error", _text(exc)))
    sys.stdout.flush()
    sys.stderr.flush()
    # os._exit: after a failed collective, interpreter shutdown can block in gloo's destructors.
    os._exit(1)


def main(conn: Any, spec: dict[str, Any]) -> None:
    """Entry point of a worker process. `spec` holds only plain data (it crosses a spawn)."""
    rank: int = spec["rank"]
    die_with_parent(spec["parent_pid"])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _redirect_output(spec["log_path"])
    print(f"rank {rank} of {spec['world']}: pid {os.getpid()}, port {spec['port']}", flush=True)
    conn.send(("alive", os.getpid()))
    fault = spec.get("fault")
    try:
        if fault == "stall_at_start":
            threading.Event().wait()  # never set: a worker that never reports
        if fault == "crash_at_start":
            raise RuntimeError(f"injected start fault: rank {rank} crashed before it joined")

        import time
        from datetime import timedelta

        t0 = time.monotonic()
        import torch.distributed as dist

        from replica.determinism import configure_determinism
        from replica.distributed.rank import RankTrainer
        from replica.interface import load_replica

        configure_determinism()
        replica = load_replica(**spec["replica"])
        trainer = RankTrainer(replica, spec["world"], rank)
        print(f"imported torch and built the model in {time.monotonic() - t0:.2f} s", flush=True)
        conn.send(("built",))
        msg = conn.recv()
        if msg[0] != "init":
            raise RuntimeError(f"expected init from the parent, got {msg[0]!r}")
        if sys.platform.startswith("linux"):
            # Gloo picks its network interface from the host name unless told; keep it local.
            os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
        timeout = timedelta(seconds=spec["timeout"])
        listener = None
        if rank == 0:
            # The rendezvous store would listen on every interface if torch opened its socket;
            # hand it one bound to 127.0.0.1 instead, so nothing here is reachable from outside.
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind(("127.0.0.1", spec["port"]))
            listener.listen(64)
            store = dist.TCPStore(
                "127.0.0.1", spec["port"], spec["world"], True, timeout,
                master_listen_fd=listener.fileno(),
            )  # fmt: skip
        else:
            store = dist.TCPStore("127.0.0.1", spec["port"], spec["world"], False, timeout)
        dist.init_process_group(
            "gloo", store=store, rank=rank, world_size=spec["world"], timeout=timeout
        )
        spec["_keep_alive"] = (store, listener)  # the store serves from this socket until exit
        print(f"joined the group {time.monotonic() - t0:.2f} s after the imports began", flush=True)
        conn.send(("ready",))
    except EOFError:
        os._exit(2)  # the parent went away
    except BaseException as exc:
        _fatal(conn, exc)
        return
    _serve(conn, trainer, spec)


def _serve(conn: Any, trainer: Any, spec: dict[str, Any]) -> None:
    import torch.distributed as dist

    from replica.checkpoint import CheckpointStore

    store = CheckpointStore(spec["run_dir"], config_hash=trainer.config_hash)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            os._exit(2)  # the parent went away without a stop
        cmd = msg[0]
        try:
            if cmd == "step":
                loss = trainer.train_step()
                conn.send(("stepped", trainer.step, loss))
            elif cmd == "save":
                _, atomic, fail_after = msg
                try:
                    record = store.save(trainer, atomic=atomic, fail_after_fraction=fail_after)
                except Exception as exc:
                    traceback.print_exc()
                    conn.send(_failed(exc))
                else:
                    doc = {
                        "step": record.step,
                        "file": record.file,
                        "path": str(record.path),
                        "size": record.size,
                        "has_manifest": record.has_manifest,
                        "sha256": record.sha256,
                        "config_hash": record.config_hash,
                        "world_size": record.world_size,
                    }
                    conn.send(("saved", record.step, doc))
            elif cmd == "load":
                _, step, verify, load_optimizer = msg
                try:
                    loaded = store.read(step, verify=verify)
                    trainer.load_full_state(loaded.state, load_optimizer=load_optimizer)
                except Exception as exc:
                    traceback.print_exc()
                    conn.send(_failed(exc))
                else:
                    conn.send(("loaded", trainer.step, loaded.check.status))
            elif cmd == "params":
                conn.send(("params", trainer.parameters_bytes()))
            elif cmd == "losses":
                conn.send(("losses", [[s, float(v)] for s, v in trainer.losses]))
            elif cmd == "digest":
                conn.send(("digest", trainer.parameters_digest()))
            elif cmd == "hang":
                print("hang: this rank stops answering and joins no collective", flush=True)
                threading.Event().wait()
            elif cmd == "stop":
                dist.destroy_process_group()
                conn.send(("stopped",))
                sys.stdout.flush()
                sys.stderr.flush()
                # Skip interpreter shutdown: torch's teardown takes about a second per process.
                os._exit(0)
            else:
                raise ValueError(f"unknown command {cmd!r}")
        except BaseException as exc:
            _fatal(conn, exc)

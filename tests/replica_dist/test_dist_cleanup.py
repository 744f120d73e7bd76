"""No orphans: a game process that owns a GlooGroup is interrupted, terminated or killed, and
its workers must be gone within seconds every time."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.replica_dist.prockit import gone, wait_gone, wait_stopped

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]

# A stand-in for the game: start a group, print the worker pids, keep stepping. The main
# guard matters: spawn re-imports the parent's main module in every worker.
PARENT = textwrap.dedent(
    """
    import os, signal, sys, time
    from replica.config import ReplicaConfig
    from replica.distributed.launcher import GlooGroup

    def main():
        run_dir, mode = sys.argv[1], sys.argv[2]
        group = GlooGroup(ReplicaConfig(), 2, run_dir, timeout=5, start_timeout=120)
        if mode == "handler":
            def on_term(signum, frame):
                group.stop()  # from a signal handler, possibly mid-exchange
                os._exit(0)
            signal.signal(signal.SIGTERM, on_term)
        group.start()
        if mode == "frozen":
            # Workers that cannot read a pipe or notice anything: only a signal ends them.
            for pid in group.pids:
                os.kill(pid, signal.SIGSTOP)
        print("pids", *group.pids, flush=True)
        while mode == "frozen":
            time.sleep(1)
        while True:
            group.step()
            time.sleep(0.01)

    if __name__ == "__main__":
        main()
    """
)


def _read_pids(proc: subprocess.Popen[str], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("pids "):
            return [int(p) for p in line.split()[1:]]
    proc.kill()
    raise AssertionError(f"the parent never printed its worker pids: {proc.stderr.read()}")


@pytest.mark.parametrize(
    "mode, sig",
    [
        # Ctrl-C in a terminal: SIGINT to the whole process group. Workers ignore it; the
        # parent's KeyboardInterrupt ends the program and atexit stops the group.
        ("plain", "SIGINT"),
        # Default SIGTERM kills the parent without atexit: PR_SET_PDEATHSIG takes the workers.
        ("plain", "SIGTERM"),
        # A SIGTERM handler that calls stop(), maybe while a step is on the pipes.
        ("handler", "SIGTERM"),
        # Nothing runs in the parent at all, and the workers are frozen (SIGSTOP), so they
        # cannot notice a closed pipe either: only the kernel's PR_SET_PDEATHSIG ends them.
        ("frozen", "SIGKILL"),
    ],
)
def test_workers_die_with_their_parent(tmp_path, mode: str, sig: str) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "run"), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        start_new_session=True,  # its own process group, like a program in a terminal
    )
    try:
        pids = _read_pids(proc, timeout=120)
        assert len(pids) == 2 and not any(gone(p) for p in pids)
        if mode == "frozen":
            assert wait_stopped(pids, 5), "the workers were not stopped"

        time.sleep(0.3)  # let it get into its stepping loop
        signum = getattr(signal, sig)
        if sig == "SIGINT":
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        proc.wait(timeout=15)
        left = wait_gone(pids, 5)
        assert left == [], f"{sig} to the parent left workers running: {left}"
        if mode == "handler":
            assert proc.returncode == 0
        if sig == "SIGINT":
            assert "KeyboardInterrupt" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

"""Start-up failures: a port in use, a worker that crashes, a worker that never reports. Each
must end in a GroupError that names what went wrong, quickly, with no worker left behind."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time

import pytest

from replica.errors import GroupError
from tests.replica_dist.prockit import spawned_children


def test_a_port_in_use_is_refused_at_once(tmp_path, config, groups) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        g = groups(config, 2, tmp_path / "run", port=port)
        t0 = time.monotonic()
        with pytest.raises(GroupError, match=rf"port {port} on 127\.0\.0\.1 is in use"):
            g.start()
        assert time.monotonic() - t0 < 1.0
    assert g.pids == [] and spawned_children() == []


@pytest.mark.slow
def test_a_worker_that_crashes_at_start(tmp_path, config, groups) -> None:
    g = groups(config, 2, tmp_path / "run", start_timeout=60, faults={1: "crash_at_start"})
    t0 = time.monotonic()
    with pytest.raises(GroupError) as info:
        g.start()
    assert time.monotonic() - t0 < 30  # well inside start_timeout: a crash is not a wait
    err = info.value
    assert err.exit_codes.get(1) == 1
    assert err.errors == [
        "[rank 1] RuntimeError: injected start fault: rank 1 crashed before it joined"
    ]
    assert "rank 1" in str(err) and "exited with status 1" in str(err)
    assert not g.running and spawned_children() == []
    # The worker's own traceback is in its log.
    assert "injected start fault" in g.log_path(1).read_text()


@pytest.mark.slow
def test_a_worker_that_never_reports_times_out(tmp_path, config, groups) -> None:
    g = groups(config, 2, tmp_path / "run", start_timeout=4, faults={1: "stall_at_start"})
    t0 = time.monotonic()
    with pytest.raises(GroupError, match=r"rank 1 \(pid \d+\) did not report ready within 4 s"):
        g.start()
    assert 4 <= time.monotonic() - t0 < 4 + 3
    assert spawned_children() == []


def test_bad_arguments_fail_before_any_process_starts(tmp_path, config) -> None:
    from replica.distributed.launcher import GlooGroup

    with pytest.raises(ValueError, match="must divide global batch"):
        GlooGroup(config, 3, tmp_path)
    with pytest.raises(ValueError, match="known faults"):
        GlooGroup(config, 2, tmp_path, faults={2: "crash_at_start"})
    with pytest.raises(GroupError, match="not running"):
        GlooGroup(config, 2, tmp_path).step()


def test_the_launcher_imports_no_torch_and_the_package_no_game_code() -> None:
    code = textwrap.dedent(
        """
        import sys
        import replica.distributed
        from replica.distributed.launcher import GlooGroup
        assert "torch" not in sys.modules, "the launcher must not import torch"
        import replica.distributed.rank, replica.distributed.standalone
        import replica.distributed.worker
        bad = sorted({m.split(".")[0] for m in sys.modules} & {"drill", "simpy", "textual", "rich"})
        print("bad:", ",".join(bad))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "bad:"

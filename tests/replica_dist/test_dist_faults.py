"""A dead rank and a hung rank, for real: SIGKILL and SIGSTOP of real workers, the survivors'
real gloo errors, and nothing left running afterwards."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest

from replica.checkpoint import CheckpointStore
from replica.distributed.launcher import MARGIN_S
from replica.errors import CheckpointError, GroupError
from tests.replica_dist.prockit import gone, wait_gone

pytestmark = pytest.mark.slow

PEER = re.compile(r"Connection (closed|reset) by peer")


def test_kill_rank_returns_the_survivors_real_error(tmp_path, config, groups) -> None:
    g = groups(config, 2, tmp_path / "run", timeout=5)
    # Started from a thread that then ends: PR_SET_PDEATHSIG follows the forking thread, so
    # the launcher forks from its own long-lived thread and the workers must survive this.
    starter = threading.Thread(target=g.start)
    starter.start()
    starter.join()
    time.sleep(0.2)
    assert g.running and not any(gone(p) for p in g.pids)
    g.step()
    pids = g.pids
    t0 = time.monotonic()
    texts = g.kill_rank(1)
    elapsed = time.monotonic() - t0
    # The ring neighbour learns within milliseconds; never more than timeout + margin.
    assert elapsed < 5 + MARGIN_S
    assert len(texts) == 1 and texts[0].startswith("[rank 0] RuntimeError: "), texts
    assert PEER.search(texts[0]), texts
    assert wait_gone(pids, 5) == []
    assert not g.running and g.pids == []
    with pytest.raises(GroupError, match="not running"):
        g.step()


def test_a_rank_dying_mid_run_fails_the_step_then_restart_from_a_checkpoint(
    tmp_path, config, groups
) -> None:
    run_dir = tmp_path / "run"
    g = groups(config, 2, run_dir, timeout=5)
    g.start()
    for _ in range(3):
        g.step()
    g.save()
    g.step()
    g.save()
    old = g.pids
    os.kill(old[1], signal.SIGKILL)  # from outside, like the OOM killer
    with pytest.raises(GroupError) as info:
        g.step()
    err = info.value
    # Rank 1 was killed; rank 0 reported what gloo raised and exited with status 1.
    assert err.exit_codes == {0: 1, 1: -signal.SIGKILL}
    assert "rank 1" in str(err) and "SIGKILL" in str(err)
    assert len(err.errors) == 1 and err.errors[0].startswith("[rank 0] ")
    assert PEER.search(err.errors[0]), err.errors
    assert wait_gone(old, 5) == []
    assert g.step_count == 4

    # A flipped byte in the newest checkpoint: a verified load refuses it, on every rank, and
    # the group does not come up half-loaded.
    store = CheckpointStore(run_dir, config_hash=config.config_hash())
    store.corrupt(4, seed=1)
    with pytest.raises(GroupError, match="sha256 mismatch") as info:
        g.start(load_step=4, verify=True)
    assert isinstance(info.value.checkpoint_error, CheckpointError)
    assert [t[:9] for t in info.value.errors] == ["[rank 0] ", "[rank 1] "]
    assert not g.running

    g.start(load_step=3, verify=True)
    assert g.step_count == 3
    g.step()
    assert g.step_count == 4


def test_hang_rank_survivors_time_out_within_the_timeout(tmp_path, config, groups) -> None:
    timeout = 3.0
    g = groups(config, 2, tmp_path / "run", timeout=timeout)
    g.start()
    g.step()
    pids = g.pids
    t0 = time.monotonic()
    texts = g.hang_rank(1)  # SIGSTOP: alive, sockets open, silent
    elapsed = time.monotonic() - t0
    assert timeout - 0.5 < elapsed < timeout + MARGIN_S
    assert len(texts) == 1 and texts[0].startswith("[rank 0] "), texts
    assert "Timed out" in texts[0] and f"{int(timeout * 1000)}ms" in texts[0], texts
    # The frozen worker is killed too, not left stopped.
    assert wait_gone(pids, 5) == []
    assert all(gone(p) for p in pids)

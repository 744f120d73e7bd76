"""The in-process `drill` of tests/clikit.py: the same answers as a real process, and nothing of
one call left behind for the next test."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import warnings

import pytest

from drill import saves_dir
from drill.engine import cache_files
from tests.clikit import REPO, run_drill, run_drill_process


def test_exit_codes_and_streams_match_a_real_process(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: [\n")
    for args in (["--version"], ["validate", str(bad)], ["no-such-command"], ["list"]):
        here, there = run_drill(*args), run_drill_process(*args, timeout=120)
        assert (here.returncode, here.stdout, here.stderr) == (
            there.returncode,
            there.stdout,
            there.stderr,
        ), args


def test_an_uncaught_exception_is_exit_1_with_its_traceback(monkeypatch):
    import drill.cli

    def broken(argv=None):
        raise RuntimeError("a bug")

    monkeypatch.setattr(drill.cli, "main", broken)
    done = run_drill("list")
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "RuntimeError: a bug" in done.stderr


def test_a_call_leaves_no_state_behind(tmp_path, monkeypatch):
    import drill.cli

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setattr(cache_files, "_warned", {("somewhere", "read")})
    before = (
        dict(os.environ),
        os.getcwd(),
        signal.getsignal(signal.SIGTERM),
        signal.getsignal(signal.SIGINT),
        list(logging.getLogger().handlers),
        logging.getLogger().level,
        list(warnings.filters),
        saves_dir._override,
        set(cache_files._warned),
    )
    seen = {}

    def meddling(argv=None):
        # Everything a command (or a library it loads) might change in a process.
        seen["cwd"], seen["env"] = os.getcwd(), os.environ.get("DRILL_SPEED_PROBE")
        seen["warned"] = set(cache_files._warned)
        os.environ["DRILL_LEAK"] = "1"
        os.chdir("/")
        signal.signal(signal.SIGTERM, lambda *a: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        logging.getLogger().addHandler(logging.StreamHandler())
        logging.getLogger().setLevel(logging.DEBUG)
        warnings.simplefilter("error")
        saves_dir.set_saves_dir(tmp_path / "saves")
        cache_files.cache_warning(tmp_path, "read", OSError(13, "Permission denied"))
        return 3

    monkeypatch.setattr(drill.cli, "main", meddling)
    env = {**os.environ, "DRILL_SPEED_PROBE": "yes"}
    done = run_drill("list", cwd=elsewhere, env=env)
    assert done.returncode == 3
    assert "cannot read the cache" in done.stderr
    assert seen == {"cwd": str(elsewhere), "env": "yes", "warned": set()}
    after = (
        dict(os.environ),
        os.getcwd(),
        signal.getsignal(signal.SIGTERM),
        signal.getsignal(signal.SIGINT),
        list(logging.getLogger().handlers),
        logging.getLogger().level,
        list(warnings.filters),
        saves_dir._override,
        set(cache_files._warned),
    )
    assert after == before


def test_what_needs_a_new_interpreter_is_refused_in_process():
    with pytest.raises(ValueError, match="run_drill_process"):
        run_drill("list", env={**os.environ, "PYTHONHASHSEED": "12345"})


def test_a_hung_call_ends_its_process_with_a_traceback(tmp_path):
    # In a process of its own: the guard ends the process it runs in.
    code = (
        "import time, drill.cli\n"
        "drill.cli.main = lambda argv=None: time.sleep(60)\n"
        "from tests.clikit import run_drill\n"
        "run_drill('list', timeout=0.5)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=50
    )
    assert done.returncode != 0
    assert done.stderr.startswith("Timeout (0:00:01)!"), done.stderr
    assert "in run_drill" in done.stderr  # where it hung

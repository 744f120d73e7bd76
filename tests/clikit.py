"""The `drill` command line for tests: in this process by default, in a real one where it must be.

`run_drill` calls `drill.cli.main(argv)` here, with stdout and stderr captured, the exit code
(a return value or a SystemExit), and the working folder and environment of the call, and hands
back what `subprocess.run` would: a CompletedProcess with returncode, stdout and stderr. A
Python start-up and the imports cost a second or more a call; in process they are paid once.

What a fresh process would not remember is put back after each call, so one call cannot change
the next test: the environment, the working folder, `--saves-dir`, signal handlers, logging, the
warning filters and the cache warnings said once per process.

`run_drill_process` is the real thing, for what only a process shows: a kill, PYTHONHASHSEED, a
clean import list, the installed `python -m drill` entry. Tests that use it say why.
"""

from __future__ import annotations

import contextlib
import faulthandler
import io
import logging
import os
import signal
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# The handlers drill or a library may set, put back after an in-process call.
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE)


def run_drill(
    *args: str,
    timeout: float = 300,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess:
    """`drill ARGS` in this process, from the repository root unless `cwd` says otherwise.

    `env`, as for subprocess.run, is the whole environment of the call. It must not need a new
    interpreter: PYTHONHASHSEED and PYTHONPATH are read at start-up and TMPDIR once by tempfile,
    so a call that sets them differently from this one is refused (use run_drill_process). A call
    still running after twice `timeout` seconds ends this process with every thread's traceback
    on stderr (faulthandler): a hang fails the run where it hangs instead of holding CI."""
    if env is not None:
        for name in ("PYTHONHASHSEED", "PYTHONPATH", "TMPDIR"):
            if env.get(name) != os.environ.get(name):
                raise ValueError(f"{name} needs a new interpreter: use run_drill_process")
    argv = [str(a) for a in args]
    with _process_state(env, Path(cwd) if cwd is not None else REPO):
        out, err = _stream(), _stream()
        code = 0
        old = sys.stdin, sys.stdout, sys.stderr
        sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), out, err
        faulthandler.dump_traceback_later(2 * timeout, exit=True, file=sys.__stderr__)
        try:
            from drill.cli import main

            code = _exit_code(main(argv), err)
        except SystemExit as exc:  # argparse, --version, a command's sys.exit
            code = _exit_code(exc.code, err)
        except BaseException:  # what an uncaught exception does to a process
            traceback.print_exc(file=err)
            code = 1
        finally:
            faulthandler.cancel_dump_traceback_later()
            sys.stdin, sys.stdout, sys.stderr = old
    return subprocess.CompletedProcess(["drill", *argv], code, _text(out), _text(err))


def run_drill_process(
    *args: str,
    timeout: float = 300,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess:
    """`python -m drill ARGS` in a new process, as a user would run it."""
    return subprocess.run(
        [sys.executable, "-m", "drill", *args],
        cwd=REPO if cwd is None else cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def _stream() -> io.TextIOWrapper:
    """A pipe's stream, as a process started by subprocess.run has: UTF-8, not a terminal, with
    a `.buffer` for code that writes bytes."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace")


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer.getvalue()  # type: ignore[attr-defined]
    return raw.decode("utf-8", errors="replace")


def _exit_code(code: object, err: io.TextIOWrapper) -> int:
    """What the interpreter makes of main's return or a SystemExit's code."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=err)
    return 1


@contextlib.contextmanager
def _process_state(env: dict[str, str] | None, cwd: Path):
    """Run the block in `cwd` with `env`, as a fresh process would, and put everything back."""
    from drill import saves_dir
    from drill.engine import cache_files

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_signals = {s: signal.getsignal(s) for s in _SIGNALS}
    root = logging.getLogger()
    saved_logging = (list(root.handlers), root.level, logging.root.manager.disable)
    saved_override = saves_dir._override  # what --saves-dir sets
    saved_warned = set(cache_files._warned)
    cache_files._warned.clear()  # a new process has warned about nothing yet
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    os.chdir(cwd)
    try:
        with warnings.catch_warnings():
            # The interpreter's own filters, not pytest's: what a user's terminal would show.
            warnings.resetwarnings()
            for action, category in (
                ("ignore", DeprecationWarning),
                ("ignore", PendingDeprecationWarning),
                ("ignore", ImportWarning),
                ("ignore", ResourceWarning),
            ):
                warnings.simplefilter(action, category)
            warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
            yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        saves_dir._override = saved_override
        for sig, handler in saved_signals.items():
            if handler is not None:
                signal.signal(sig, handler)
        root.handlers[:] = saved_logging[0]
        root.setLevel(saved_logging[1])
        logging.disable(saved_logging[2])
        cache_files._warned.clear()
        cache_files._warned.update(saved_warned)

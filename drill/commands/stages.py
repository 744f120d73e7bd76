"""What a slow command is doing, one line on stderr per stage, so a person at a terminal is not
left staring at nothing while a night replays or par is measured.

Quiet when it is quick: the first line waits DELAY_S, and a command done by then says nothing.
After that each stage says itself as it starts. Quiet too when stderr is not a terminal: a
script or a test reading stdout and stderr sees what it always saw. Never a spinner: lines only,
so a log of the run reads as a list of what took the time.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

from drill.text_safety import visible

DELAY_S = 1.0


class Stages:
    def __init__(
        self, *, stream: TextIO | None = None, delay: float = DELAY_S, on: bool | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = _is_terminal(self.stream) if on is None else on
        self.delay = delay
        self.started = time.monotonic()
        self.current: str | None = None
        self.spoke = False  # the first line is out: every stage speaks at once from now
        self.lock = threading.Lock()
        self.timer: threading.Timer | None = None

    def __call__(self, text: str) -> None:
        """A new stage starts."""
        if not self.on:
            return
        with self.lock:
            self.current = text
            if self.spoke or time.monotonic() - self.started >= self.delay:
                self._say()
                return
            if self.timer is None:
                wait = self.delay - (time.monotonic() - self.started)
                self.timer = threading.Timer(wait, self._late)
                self.timer.daemon = True
                self.timer.start()

    def _late(self) -> None:
        with self.lock:
            if self.current is not None:
                self._say()

    def _say(self) -> None:
        self.spoke = True
        text, self.current = self.current, None
        print(visible(f"drill: {text}..."), file=self.stream, flush=True)

    def close(self) -> None:
        """The command is done: a line still waiting is never said."""
        with self.lock:
            self.current = None
            if self.timer is not None:
                self.timer.cancel()

    def __enter__(self) -> Stages:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False

"""Headless Chromium for the page tests (`drill report`, the class report): Debian's package,
installed by .ci/run. Missing in CI it fails the test; missing elsewhere it skips it."""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (.ci/run does it with apt-get)")
        pytest.skip("chromium is not installed here")
    return found

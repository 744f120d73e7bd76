"""`drill serve` in a real browser: headless Chromium, driven by chromedriver through selenium,
opens the page, types into the terminal, and the night's save on disk shows the action ran."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from drill.commands.serve import play_command
from drill.saves import SaveError, read_save

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a server, a browser and a game process


def _tool(*names: str) -> str:
    found = next((shutil.which(n) for n in names if shutil.which(n)), None)
    if not found:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {names[0]} (.ci/run does it with apt-get)")
        pytest.skip(f"{names[0]} is not installed here")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


def _saved_actions(folder: Path) -> list:
    actions = []
    for path in sorted(folder.glob("*.jsonl")):
        try:
            actions += read_save(path).actions
        except SaveError:
            continue  # a header still being written
    return actions


@pytest.fixture
def server(tmp_path):
    port = _free_port()
    saves = tmp_path / "saves"
    log = (tmp_path / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "drill", "serve", "tutorial", "--backend", "sim"]
        + ["--port", str(port)],
        cwd=REPO,
        env={**os.environ, "DRILL_SAVES_DIR": str(saves), "DRILL_CONFIG_DIR": str(tmp_path)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:

        def listening() -> bool:
            if process.poll() is not None:
                raise AssertionError((tmp_path / "server.log").read_text())
            with socket.socket() as probe:
                return probe.connect_ex(("127.0.0.1", port)) == 0

        _wait(listening, 60, "the server to listen")
        yield f"http://127.0.0.1:{port}/", saves
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


def test_a_command_typed_in_the_browser_runs_in_the_night_and_is_saved(server, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url, saves = server
    options = webdriver.ChromeOptions()
    options.binary_location = _tool("chromium", "chromium-browser")
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--window-size=1400,900",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(_tool("chromedriver")), options=options)
    try:
        browser.set_page_load_timeout(60)
        browser.get(url)
        assert browser.title == "3am Drill" or "3am Drill" in browser.page_source
        # textual.js marks the page once the game process has sent its first bytes.
        _wait(
            lambda: "-first-byte" in browser.execute_script("return document.body.className"),
            60,
            "the game's first frame in the page",
        )
        keys = browser.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
        assert not list(saves.glob("*.jsonl")), "a save before the night started"
        time.sleep(1.0)  # the briefing warms up (instant with --backend sim)
        keys.send_keys(Keys.ENTER)  # start the shift
        _wait(lambda: list(saves.glob("*.jsonl")), 60, "the night's save")
        time.sleep(1.0)
        keys.send_keys("status tiny-train")
        keys.send_keys(Keys.ENTER)
        ran = _wait(
            lambda: [a for a in _saved_actions(saves) if a.text == "status tiny-train"],
            60,
            "`status tiny-train` in the save",
        )
        assert ran[0].accepted and "tiny-train" in ran[0].result
        shot = tmp_path / "page.png"
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000  # a drawn terminal, not a blank page
    finally:
        browser.quit()


def test_the_page_has_a_title_and_asks_no_other_site(server):
    """The tab says what it is, and the page loads nothing from outside this machine."""
    import urllib.request

    url, _ = server
    with urllib.request.urlopen(url, timeout=30) as answer:
        page = answer.read().decode()
    assert "<title>3am Drill</title>" in page
    assert "fonts.googleapis.com" not in page
    assert 'src="https://' not in page and 'href="https://' not in page


def test_the_command_each_tab_runs_is_drill_play_with_the_same_flags():
    from drill.cli import build_parser

    args = build_parser().parse_args(
        ["serve", "dead rank.yaml", "--seed", "2", "--speed", "30", "--paused", "--hard"]
    )
    command = play_command(args)
    assert command.startswith(f"{sys.executable} -m drill play 'dead rank.yaml' --seed 2")
    assert "--speed 30" in command and "--paused" in command and "--hard" in command
    assert "--host" not in command  # the server's own flags stay with the server


def test_bad_input_stops_before_the_server(capsys):
    from drill.cli import main

    assert main(["serve", "dead-rnak", "--backend", "sim"]) == 2
    assert "did you mean `dead-rank`" in capsys.readouterr().err
    assert main(["serve", "tutorial", "--speed", "9000"]) == 2


def test_a_busy_or_impossible_port_is_one_line_before_the_server(capsys):
    """The default 8000 is often taken: say which port and what to do, exit 2, no traceback."""
    from drill.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        assert main(["serve", "dead-rank", "--backend", "sim", "--port", str(busy)]) == 2
        err = capsys.readouterr().err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"drill: --port {busy}: "), err
        assert f"127.0.0.1:{busy}" in lines[0] and f"--port {busy + 1}" in lines[0], err
    for port in ("99999", "-1", "0"):
        assert main(["serve", "dead-rank", "--backend", "sim", "--port", port]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"drill: --port {port}: a port is a number from 1 to 65535"), err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_another_address_than_127_0_0_1_warns_first(tmp_path):
    """127.0.0.2 is still loopback (nothing leaves the machine) but not the default."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "drill", "serve", "--backend", "sim", "--host", "127.0.0.2"]
        + ["--port", str(port)],
        cwd=REPO,
        env={**os.environ, "DRILL_SAVES_DIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = process.stderr.readline()
    finally:
        process.terminate()
        process.wait(20)
        process.stderr.close()
    assert first.startswith("drill: warning: serving on 127.0.0.2, not 127.0.0.1")
    assert "no login" in first

"""`drill serve` takes a game's websocket only from its own page: a real server on a free port
of 127.0.0.1, and a real websocket client sending the Origin a browser would send."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time

import aiohttp
import pytest

from drill.commands.serve_origin import allowed_origins, origin_allowed
from tests.clikit import REPO


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    port = _free_port()
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "drill", "serve", "tutorial", "--backend", "sim"]
        + ["--port", str(port)],
        cwd=REPO,
        env={
            **os.environ,
            "DRILL_SAVES_DIR": str(folder / "saves"),
            "DRILL_CONFIG_DIR": str(folder),
        },
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, (folder / "server.log").read_text()
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert time.monotonic() < deadline, "the server never listened"
            time.sleep(0.2)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
        log.close()


def upgrade(port: int, origin: str | None) -> int:
    """The status of a websocket upgrade to the game: 101 when it is taken."""

    async def attempt() -> int:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
            try:
                socket_ = await session.ws_connect(
                    f"http://127.0.0.1:{port}/ws?width=80&height=24", origin=origin
                )
            except aiohttp.WSServerHandshakeError as refused:
                return refused.status
            await socket_.close()
            return 101

    return asyncio.run(attempt())


def test_the_served_page_and_its_loopback_names_get_a_game(port):
    assert upgrade(port, f"http://127.0.0.1:{port}") == 101
    assert upgrade(port, f"http://localhost:{port}") == 101


@pytest.mark.parametrize(
    "origin",
    [
        "http://evil.example",
        "https://evil.example",
        "http://127.0.0.1:1",  # another local service's page
        "http://127.0.0.1.evil.example",
        "null",  # a sandboxed frame or a file:// page
    ],
)
def test_a_page_from_anywhere_else_gets_403(port, origin):
    assert upgrade(port, origin) == 403


def test_a_program_without_an_origin_gets_a_game(port):
    # Browsers always send Origin; a client that sends none is a program on this machine.
    assert upgrade(port, None) == 101


def test_a_public_url_is_its_own_origin_with_the_default_port_filled_in():
    allowed = allowed_origins("https://drill.example.org/", 8000)
    assert origin_allowed("https://drill.example.org", allowed)
    assert origin_allowed("https://DRILL.example.org:443", allowed)
    assert origin_allowed("http://localhost:8000", allowed)
    assert not origin_allowed("http://drill.example.org", allowed)
    assert not origin_allowed("https://drill.example.org:8443", allowed)
    assert not origin_allowed("http://[::1]:bad", allowed)

"""`drill serve` takes a game's websocket only from its own page.

A browser lets any page it has open connect a websocket to 127.0.0.1 (the same-origin policy
does not cover websockets), so without this a page on another site, open in the learner's
browser, could start a game and type into it, writing saves on this machine. Browsers always
send the page's origin with the upgrade, and no page can forge it: the upgrade is refused with
403 unless the origin is the address drill serves (its public URL, or 127.0.0.1, localhost or
[::1] on the port it listens on).

An upgrade with no Origin header at all comes from a program, not a web page (a browser always
sends one), so it is let through: whoever can run a program here can run drill already.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from aiohttp import web
from textual_serve.server import Server

DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")

Origin = tuple[str, str, int]


def parse_origin(text: str) -> Origin | None:
    """(scheme, host, port) with the default port filled in, or None for anything that is not
    an http(s) origin (`null`, from a sandboxed frame or a file, included)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS[scheme]


def allowed_origins(public_url: str, port: int) -> frozenset[Origin]:
    """The public URL's origin, and the loopback names on the port the server listens on."""
    allowed = {("http", name, port) for name in LOOPBACK_NAMES}
    public = parse_origin(public_url)
    if public is not None:
        allowed.add(public)
    return frozenset(allowed)


def origin_allowed(header: str | None, allowed: frozenset[Origin]) -> bool:
    if header is None:
        return True  # not a browser: see the module's docstring
    return parse_origin(header) in allowed


# textual-serve's page has no <title> (the tab shows the URL) and asks fonts.googleapis.com
# for its font, which a learner offline or behind a proxy waits on; its CSS falls back to the
# local monospace font without it.
FONT_LINK = re.compile(r'\s*<link\s+rel="stylesheet"\s+href="https://fonts\.googleapis\.com[^>]*>')


class OriginCheckedServer(Server):
    """textual-serve's server, with the websocket upgrade refused for a foreign origin, and its
    page given a title and no request to another site."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.allowed_origins = allowed_origins(self.public_url, self.port)

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        response = await super().handle_index(request)
        page = FONT_LINK.sub("", response.text, count=1)
        if "<title>" not in page:
            page = page.replace(
                "<head>", f"<head>\n    <title>{html.escape(self.title)}</title>", 1
            )
        response.text = page
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        origin = request.headers.get("Origin")
        if not origin_allowed(origin, self.allowed_origins):
            raise web.HTTPForbidden(
                text=f"drill serve takes games only from its own page, {self.public_url}\n"
            )
        return await super().handle_websocket(request)

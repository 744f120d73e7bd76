"""`drill serve`: the same Textual app in a browser tab, through textual-serve.

Each browser tab that opens the page starts its own `drill play` process with the same flags,
so a night in the browser is the terminal game: the same screens, the same saves. The server
listens on 127.0.0.1 unless told otherwise, and says so loudly when it is told: the game has no
login, so anyone who reaches the address plays as you and writes saves on this machine. A
game's websocket is taken only from the server's own page (drill/commands/serve_origin.py), so
a page on another site open in the same browser cannot start one.
"""

from __future__ import annotations

import argparse
import errno
import shlex
import socket
import sys

from drill.commands.play import app_options
from drill.errors import UserError

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


def serve(args: argparse.Namespace) -> int:
    app_options(args)  # the same checks as `drill play`, before the server starts
    check_port(args.host, args.port)
    command = play_command(args)
    if args.host not in LOCAL_HOSTS:
        print(
            f"drill: warning: serving on {args.host}, not 127.0.0.1: anyone who can reach"
            f" port {args.port} there can play as you and write saves on this machine;"
            " the game has no login.",
            file=sys.stderr,
        )
    from drill.commands.serve_origin import OriginCheckedServer

    server = OriginCheckedServer(
        command,
        host=args.host,
        port=args.port,
        title="3am Drill",
        public_url=args.public_url,
    )
    server.serve()
    return 0


def check_port(host: str, port: int) -> None:
    """Refuse, as one line, a port the server could not listen on, before it tries: the
    default 8000 is often taken on a learner's machine, and the server's own failure is a
    traceback. Bound with SO_REUSEADDR, as the server binds, so a port some closed connection
    still holds is not refused. Someone may take the port between here and the server's bind;
    that rare race still ends in the server's own error."""
    if not 1 <= port <= 65535:
        raise UserError(f"--port {port}: a port is a number from 1 to 65535; try --port 8001")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UserError(
            f"--host {host}: not an address this machine can listen on ({exc.strerror});"
            " drop --host to serve on 127.0.0.1"
        ) from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UserError(
                    f"--port {port}: something else is already listening on {host}:{port};"
                    f" stop it, or pass another port, like --port {port + 1 if port < 65535 else 8001}"
                ) from None
            raise UserError(
                f"--host {host} --port {port}: cannot listen there ({exc.strerror or exc});"
                " pick another port with --port, or drop --host to serve on 127.0.0.1"
            ) from None


def play_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser tab: `drill play` with the flags
    this server was given (quoted: incident names and paths go through a shell)."""
    words = [sys.executable, "-m", "drill", "play"]
    if args.incident:
        words.append(args.incident)
    for flag, value in (
        ("--seed", args.seed),
        ("--resume", args.resume),
        ("--speed", args.speed),
        ("--backend", args.backend),
        ("--ranks", args.ranks),
        ("--replica", getattr(args, "replica", None)),
        ("--save", args.save),
        ("--saves-dir", args.saves_dir),
        ("--course", getattr(args, "course", None)),
        ("--learner", getattr(args, "learner", None)),
    ):
        if value is not None:
            words += [flag, str(value)]
    if args.hard:
        words.append("--hard")
    if args.paused:
        words.append("--paused")
    if getattr(args, "course", None) and not getattr(args, "learner", None):
        words.append("--learner-per-tab")  # one pack, many learners: every tab asks the name
    return shlex.join(words)

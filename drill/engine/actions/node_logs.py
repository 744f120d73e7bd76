"""Look verbs that read a node's own logs: its kernel ring buffer as `dmesg` prints it, and one
systemd unit as `systemctl status` prints it, with the unit's last journal lines. They print
what the tool would; they do not advise.

The game has no calendar, so where systemd writes a date and a time it writes the time of night.
"""

from __future__ import annotations

import zlib

from drill.engine.actions.context import Call, Context
from drill.faults.units import FABRIC_MANAGER, UNITS

JOURNAL_LINES = 10  # what `systemctl status` shows of the unit's journal


def _unreachable(node) -> str | None:
    if not node.responsive or node.state in ("down", "rebooting"):
        return f"ssh: connect to host {node.name} port 22: Connection timed out"
    return None


# -- dmesg NODE -------------------------------------------------------------------------------


def dmesg(ctx: Context, call: Call) -> str:
    node = call["node"]
    refused = _unreachable(node)
    if refused:
        return refused
    return "\n".join(ring_buffer(node))


def ring_buffer(node) -> list[str]:
    """Each kernel line with its time since boot, as printk stamps it: `[  263412.118305] `.
    The microseconds come from the line itself, so a night prints the same every time, and the
    stamps never go back."""
    out: list[str] = []
    last = -1.0
    for t, text in node.kernel_log:
        since = max(0.0, t - node.booted_at)
        jitter = (zlib.crc32(f"{node.name}:{t}:{text}".encode()) % 400_000) / 1e6
        stamp = max(since + jitter, last + 0.000013)
        for i, line in enumerate(text.split("\n")):
            stamp += 0.000004 if i else 0.0
            out.append(f"[{_printk(stamp)}] {line}")
        last = stamp
    return out


def _printk(seconds: float) -> str:
    micro = round(seconds * 1e6)
    return f"{micro // 1_000_000:5d}.{micro % 1_000_000:06d}"


# -- systemctl NODE SERVICE ---------------------------------------------------------------------


def systemctl(ctx: Context, call: Call) -> str:
    node, name = call["node"], call["service"]
    refused = _unreachable(node)
    if refused:
        return refused
    unit = UNITS.get(name)
    if unit is None:
        return f"Unit {name}.service could not be found."
    lines = node.journal.get(name, [])
    since = lines[0][0] if lines else node.booted_at
    failed = name == FABRIC_MANAGER and not node.fabric_manager_up
    ago = relative(ctx.world.now - since)
    out = [
        f"{'×' if failed else '●'} {unit.name}.service - {unit.description}",
        f"     Loaded: loaded ({unit.file}; enabled; vendor preset: enabled)",
    ]
    if failed:
        since = lines[-1][0] if lines else since
        ago = relative(ctx.world.now - since)
        out.append(f"     Active: failed (Result: exit-code) since {ctx.clock(since)}; {ago} ago")
        crashed = any("Main process exited" in text for _, text in lines)
        if crashed:
            out.append(f"    Process: {unit.pid} ExecStart={unit.exec_start} {_exited(0)}")
            out.append(f"   Main PID: {unit.main_pid} {_exited(1)}")
        else:
            out.append(f"    Process: {unit.pid} ExecStart={unit.exec_start} {_exited(1)}")
    else:
        out.append(f"     Active: active (running) since {ctx.clock(since)}; {ago} ago")
        out.append(f"   Main PID: {unit.main_pid} ({unit.process[:15]})")
    shown = lines[-JOURNAL_LINES:]
    if shown:
        out.append("")
        out += [f"{ctx.clock(t)} {node.name} {text}" for t, text in shown]
    return "\n".join(out)


def _exited(status: int) -> str:
    return f"(code=exited, status={status}/{'SUCCESS' if status == 0 else 'FAILURE'})"


def relative(seconds: float) -> str:
    """How systemd writes how long ago: `4min 25s`, `2h 3min`, `1 week 5 days`."""
    s = int(max(0.0, seconds))
    minute, hour, day, week = 60, 3600, 86400, 7 * 86400
    if s >= week:
        weeks, days = divmod(s // day, 7)
        return f"{weeks} week{'s' if weeks > 1 else ''} {days} day{'s' if days != 1 else ''}"
    if s >= 2 * day:
        return f"{s // day} days"
    if s >= 25 * hour:
        return f"1 day {(s - day) // hour}h"
    if s >= 6 * hour:
        return f"{s // hour}h"
    if s >= hour:
        return f"{s // hour}h {(s % hour) // minute}min"
    if s >= 5 * minute:
        return f"{s // minute}min"
    if s >= minute:
        return f"{s // minute}min {s % minute}s"
    return f"{s}s"

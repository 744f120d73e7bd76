"""Where a save was made: the machine and the torch build, as far as they decide float rounding.

The replica is bit for bit deterministic on one machine and torch build. Elsewhere the same
math rounds differently (another CPU picks other kernels, another torch build other code), so a
replay there reproduces every decision of the night but not the last digits of a loss or of a
weight distance. The header records this so `replay --verify` knows which comparison is fair.
"""

from __future__ import annotations

import platform
from functools import cache
from pathlib import Path
from typing import Any

from drill.replica_choice import torch_build

KEYS = ("machine", "cpu", "torch", "cpu_kernels")


@cache
def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() in ("model name", "Model", "Hardware", "cpu model"):
            return value.strip()[:120]
    return platform.processor() or "unknown"


def current_origin(with_torch: bool) -> dict[str, Any]:
    """This process's machine, and its torch build when the backend trains the replica (a
    sim-only night has no float figures, and must not pay for importing torch)."""
    origin: dict[str, Any] = {
        "machine": platform.machine() or "unknown",
        "cpu": _cpu_model(),
        "torch": None,
        "cpu_kernels": None,
    }
    if with_torch:
        origin.update(torch_build())
    return origin


def describe(origin: dict[str, Any] | None) -> str:
    if not origin:
        return "an unrecorded machine and torch build (a save from before drill recorded them)"
    torch = origin.get("torch") or "no torch"
    kernels = f", {origin['cpu_kernels']} kernels" if origin.get("cpu_kernels") else ""
    return f"{origin.get('machine')} {origin.get('cpu')}{kernels}, torch {torch}"


def same_origin(saved: dict[str, Any] | None, here: dict[str, Any]) -> bool:
    return saved is not None and bool(saved) and all(saved.get(k) == here.get(k) for k in KEYS)

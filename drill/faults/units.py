"""The systemd units of a GPU node that an operator checks with `systemctl status`, and the
journal lines each writes when the node boots.

The fault kinds (fabric_manager_down), the simulation (a reboot) and the `systemctl` look all
take the units' names and words from here, so what fails, what the journal says and what the
look prints agree.

The journal lines are written as journalctl writes them after the host name: the process and
its pid, then its message. The fabric manager's own failure is the one an in-place driver
upgrade leaves behind: the new kernel module loads at the next boot and the fabric manager
package, still the old version, refuses to run with it.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass

FABRIC_MANAGER = "nvidia-fabricmanager"
# The driver the node was upgraded to in place, and the fabric manager package left behind.
DRIVER_VERSION = "550.127.05"
FM_VERSION = "550.90.07"


@dataclass(frozen=True)
class Unit:
    name: str
    description: str  # systemd's Description=, in its "Starting ..." and "Started ..." lines
    exec_start: str  # the command systemctl shows for the main process
    process: str  # the process name in the journal and in `Main PID: N (NAME)`
    pid: int  # boot order is the same every boot, so each daemon gets about the same pid
    started: tuple[str, ...] = ()  # what the daemon logs itself once it runs; {pid} is its own
    forking: bool = False  # Type=forking: the start command exits, a daemon it forked runs

    @property
    def file(self) -> str:
        return f"/lib/systemd/system/{self.name}.service"

    @property
    def main_pid(self) -> int:
        """A forking daemon runs as the child its start command forked, and logs as it."""
        return self.pid + 2 if self.forking else self.pid


UNITS: dict[str, Unit] = {
    u.name: u
    for u in [
        Unit(
            "nvidia-persistenced",
            "NVIDIA Persistence Daemon",
            "/usr/bin/nvidia-persistenced --user nvidia-persistenced --verbose",
            "nvidia-persistenced",
            1873,
            started=("Verbose syslog connection opened", "Started ({pid})"),
            forking=True,
        ),
        Unit(
            FABRIC_MANAGER,
            "NVIDIA fabric manager service",
            "/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg",
            "nv-fabricmanager",
            2154,
            started=(
                "Connected to 1 node.",
                "Successfully configured all the available NVSwitches to route GPU NVLink"
                " traffic. NVLink Peer-to-Peer support will be enabled once the GPUs are"
                " successfully registered with the NVLink fabric.",
            ),
            forking=True,
        ),
        Unit(
            "slurmd",
            "Slurm node daemon",
            "/usr/sbin/slurmd --systemd $SLURMD_OPTIONS",
            "slurmd",
            2301,
            started=("slurmd: slurmd version 23.11.10 started",),
        ),
    ]
}

# Seconds after the kernel starts that each unit starts, in boot order.
START_AFTER = {"nvidia-persistenced": 21.0, FABRIC_MANAGER: 24.0, "slurmd": 31.0}


def version_mismatch() -> str:
    """What nv-fabricmanager logs when the loaded driver is not the version it was built for."""
    return (
        f"fabric manager NVIDIA GPU driver interface version {FM_VERSION} doesn't match with"
        f" driver version {DRIVER_VERSION}. Please update with the matching NVIDIA driver package."
    )


def _started(unit: Unit) -> list[str]:
    pid = unit.main_pid
    own = [f"{unit.process}[{pid}]: {text.format(pid=pid)}" for text in unit.started]
    return [f"systemd[1]: Starting {unit.description}...", *own] + (
        [f"systemd[1]: Started {unit.description}."] if unit.forking else []
    )


def boot_lines(unit: Unit, fabric_manager_fails: bool) -> list[str]:
    """The unit's journal lines from one boot."""
    if unit.name == FABRIC_MANAGER and fabric_manager_fails:
        return [
            f"systemd[1]: Starting {unit.description}...",
            f"{unit.process}[{unit.pid}]: {version_mismatch()}",
            f"systemd[1]: {unit.name}.service: Control process exited, code=exited,"
            " status=1/FAILURE",
            *failed_lines(unit.name),
            f"systemd[1]: Failed to start {unit.description}.",
        ]
    if unit.forking:
        return _started(unit)
    return [f"systemd[1]: Started {unit.description}.", *_started(unit)[1:]]


def failed_lines(name: str) -> list[str]:
    return [f"systemd[1]: {name}.service: Failed with result 'exit-code'."]


def write_boot(
    journal: MutableMapping[str, list[tuple[float, str]]],
    booted_at: float,
    fabric_manager_fails: bool,
) -> None:
    """A boot's journal: every unit's lines from this boot, in place of the last boot's (what
    `systemctl status` shows is the unit's current run)."""
    for unit in UNITS.values():
        at = booted_at + START_AFTER[unit.name]
        journal[unit.name] = [(at, line) for line in boot_lines(unit, fabric_manager_fails)]


def crash_lines() -> list[str]:
    """The fabric manager's daemon exiting while the node runs (it does not start again)."""
    name = FABRIC_MANAGER
    return [
        f"systemd[1]: {name}.service: Main process exited, code=exited, status=1/FAILURE",
        *failed_lines(name),
    ]

"""The Xid codes the game knows, as the driver prints them and as current GPUs behave.

NVIDIA's driver prints an Xid line in the kernel log when a GPU reports an error. What a code
does to the process on that GPU (crash with a CUDA error, hang, nothing), whether the GPU takes
no more work, and whether a GPU reset (`nvidia-smi -r`, which a reboot includes) clears it are
decided here, so the fault kinds, `health`, `gpus`, `reset`, `reboot` and the debrief agree.

On current data centre GPUs (A100, H100) an uncorrectable memory error (48, 95) marks the bad row
for remapping: the driver logs a row remap event (63) after it, a GPU reset applies the remap,
and then the GPU works again. Only a failed remap (64, logged after the 48) means the board goes
back. A pending remap on its own (63 without a crash) leaves the GPU working: new work starts on
it, and the next reset applies the remap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Effect = Literal["crash", "hang", "none"]


@dataclass(frozen=True)
class Xid:
    code: int
    name: str  # the driver's description, as NVIDIA's Xid catalogue words it
    effect: Effect  # what happens to the process running on that GPU
    error: str = ""  # what that process raises, for a crash
    breaks: bool = True  # the GPU takes no more work until it is reset (or swapped)
    persists: bool = False  # neither a reset nor a reboot clears it: the board goes back
    reset_clears: bool = False  # `nvidia-smi -r` makes it usable again, not only a reboot
    remap: bool = False  # it leaves a row remap pending until the next reset
    before: tuple[int, ...] = ()  # codes the driver logs just before this one, same event
    after: tuple[int, ...] = ()  # and just after it
    app: bool = False  # usually the application's fault, not the hardware's
    message: str = ""  # the kernel line's text when it is not the name; {gpu} is the GPU index


ILLEGAL_ACCESS = "CUDA error: an illegal memory access was encountered"
ECC = "CUDA error: uncorrectable ECC error encountered"
# The driver's row remapper line: the remap is recorded and waits for the next GPU reset.
REMAP_PENDING = "Row Remapper: New row marked for remapping, reset gpu to activate."

XIDS: dict[int, Xid] = {
    x.code: x
    for x in (
        Xid(
            13,
            "Graphics Engine Exception",
            "crash",
            ILLEGAL_ACCESS,
            breaks=False,
            app=True,
            # The driver names the SM that raised it and why, not the catalogue's heading.
            message="Graphics SM Warp Exception on (GPC 2, TPC 1, SM 0): Out Of Range Address",
        ),
        Xid(
            31,
            "GPU memory page fault",
            "crash",
            ILLEGAL_ACCESS,
            breaks=False,
            app=True,
            # An MMU fault: the channel, the engine and the address that faulted, and its type.
            message="Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPC2 GPCCLIENT_T1_3"
            " faulted @ 0x7f4c_2a400000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ",
        ),
        Xid(
            43,
            "GPU stopped processing",
            "crash",
            "CUDA error: unspecified launch failure",
            breaks=False,
            app=True,
        ),
        Xid(48, "Double Bit ECC Error", "crash", ECC, reset_clears=True, remap=True, after=(63,)),
        Xid(
            63,
            "ECC page retirement or row remapping recording event",
            "none",
            breaks=False,
            remap=True,
            message=REMAP_PENDING,
        ),
        Xid(
            64,
            "ECC page retirement or row remapper recording failure",
            "crash",
            ECC,
            persists=True,
            before=(48,),
        ),
        Xid(
            74,
            "NVLINK Error",
            "crash",
            "CUDA error: uncorrectable NVLink error was detected during the execution",
            reset_clears=True,
        ),
        Xid(
            79,
            "GPU has fallen off the bus",
            "hang",
            persists=True,
            message="GPU has fallen off the bus.",
        ),
        Xid(94, "Contained ECC error", "crash", ECC, breaks=False),
        Xid(95, "Uncontained ECC error", "crash", ECC, reset_clears=True, remap=True, after=(63,)),
        Xid(
            119,
            "GSP RPC Timeout",
            "hang",
            message="Timeout after 6s of waiting for RPC response from GPU{gpu} GSP!",
            reset_clears=True,
        ),
    )
}
# A code the game has no record of: the process dies and the GPU takes no more work.
UNKNOWN = Xid(0, "GPU error", "crash", "CUDA error: unknown error")

XID_NAMES = {code: x.name for code, x in XIDS.items()}
APP_XIDS = {code: x.name for code, x in XIDS.items() if x.app}
HW_XIDS = {code: x.name for code, x in XIDS.items() if not x.app}


def xid(code: int) -> Xid:
    return XIDS.get(code, UNKNOWN)


def fell_off_the_bus(code: int | None) -> bool:
    """The GPU is gone from the PCI bus: nvidia-smi cannot open it, CUDA does not count it."""
    return code == 79


def xid_lines(bus_id: str, code: int, pid: int, gpu: int = 0) -> list[str]:
    """The kernel log lines NVIDIA's driver prints for an Xid.

    The driver names the process when it knows it; for a GPU that fell off the bus or a GSP
    that stopped answering it does not, and 79 is followed by the bus error itself. One memory
    event logs more than one code: a 48 is followed by the row remap it records (63), and a
    failed remap (64) comes after the 48 that asked for it.
    """
    record = xid(code)
    lines = [_line(bus_id, c, pid, gpu) for c in (*record.before, code, *record.after)]
    if fell_off_the_bus(code):
        lines.append(f"NVRM: GPU {bus_id}: GPU has fallen off the bus.")
    return lines


def _line(bus_id: str, code: int, pid: int, gpu: int) -> str:
    record = xid(code)
    if record.effect == "hang" or code == 63:  # 63 is the remapper's, not the process's
        who = "pid='<unknown>', name=<unknown>"
    else:
        who = f"pid={pid}, name=python"
    text = record.message.format(gpu=gpu) if record.message else record.name
    return f"NVRM: Xid (PCI:{bus_id[:-2]}): {code}, {who}, {text}"

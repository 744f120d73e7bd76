"""The Xid codes the game knows, as operators triage them.

NVIDIA's driver prints an Xid line in the kernel log when a GPU reports an error. Some codes
usually point at the application (a bad kernel, a bad pointer), others at the hardware. What a
code does to the process on that GPU, and whether a reboot clears it, is decided here, so the
fault kind, `health` and the debrief agree.
"""

from __future__ import annotations

# These usually point at the application.
APP_XIDS = {
    13: "Graphics Engine Exception",
    31: "GPU memory page fault",
    43: "GPU stopped processing",
}
# And these at the hardware: drain the node and swap it.
HW_XIDS = {
    48: "Double Bit ECC Error",
    79: "GPU has fallen off the bus.",
    94: "Contained ECC error",
    95: "Uncontained ECC error",
}
XID_NAMES = {**APP_XIDS, **HW_XIDS}

PERSISTENT_XIDS = {48, 79}  # hardware that a reboot does not fix: drain and swap
CRASHING_XIDS = {13, 31, 43, 48, 94, 95}  # the process on that GPU dies; 79 leaves it stuck
XID_PROCESS_ERRORS = {
    13: "CUDA error: an illegal memory access was encountered",
    31: "CUDA error: an illegal memory access was encountered",
    43: "CUDA error: unspecified launch failure",
    48: "CUDA error: uncorrectable ECC error encountered",
    94: "CUDA error: uncorrectable ECC error encountered",
    95: "CUDA error: uncorrectable ECC error encountered",
}


def xid_line(bus_id: str, xid: int, pid: int) -> str:
    """The kernel log line NVIDIA's driver prints for an Xid."""
    return f"NVRM: Xid (PCI:{bus_id[:-2]}): {xid}, pid={pid}, {XID_NAMES.get(xid, 'GPU error')}"

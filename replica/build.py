"""The torch build this process trains with, for saves that record where their figures came from,
and a way to pay torch's import ahead of a night. drill reaches torch only through here."""

from __future__ import annotations


def torch_build() -> dict[str, str]:
    """The torch version and commit, and the CPU kernels it picked on this machine: what makes a
    replica's floats differ in their last digits from another machine's."""
    import torch

    return {
        "torch": f"{torch.__version__} ({torch.version.git_version[:12]})",
        "cpu_kernels": torch.backends.cpu.get_cpu_capability(),
    }


def warm_up() -> None:
    """Import torch now (the slow part, about 3 s here) so a night's workers start without it."""
    import torch  # noqa: F401

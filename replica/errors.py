"""Errors the replica raises on purpose. Each names the file (when there is one) and the reason,
because these texts become what a learner reads at 3am."""

from __future__ import annotations


class ReplicaError(Exception):
    """Base class for the replica's own errors."""


class CheckpointError(ReplicaError):
    """A checkpoint could not be written, verified or loaded."""

    def __init__(self, reason: str, *, file: str | None = None) -> None:
        self.file = file
        self.reason = reason
        super().__init__(f"{file}: {reason}" if file else reason)


class ConfigMismatchError(CheckpointError, ValueError):
    """A checkpoint belongs to a different replica configuration."""


class CheckpointWriteError(CheckpointError, RuntimeError):
    """A checkpoint write failed part way (for example a full disk).

    Also a RuntimeError, because that is what torch.save raises for the same failure, and the
    text keeps torch's wording so a learner sees what a real training script would print.
    """

    def __init__(self, reason: str, *, file: str | None = None, errno: int | None = None) -> None:
        super().__init__(reason, file=file)
        self.errno = errno

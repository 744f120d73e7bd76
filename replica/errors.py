"""Errors the replica raises on purpose. Each names the file (when there is one) and the reason,
because these texts become what a learner reads at 3am."""

from __future__ import annotations


class ReplicaError(Exception):
    """Base class for the replica's own errors."""


class CheckpointError(ReplicaError):
    """A checkpoint could not be written, verified or loaded.

    `status` is set when a verified load refused the bytes: the VerifyResult status
    ("corrupt", "unverifiable", "missing", "foreign"), so a caller can count what the hash check
    found without reading the message.
    """

    def __init__(self, reason: str, *, file: str | None = None, status: str | None = None) -> None:
        self.file = file
        self.reason = reason
        self.status = status
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


class GroupError(ReplicaError):
    """A multi-process group (replica/distributed) failed to start, step, load or stop.

    `errors` holds what the workers themselves raised, each tagged with its rank, in the
    exception's own words (for example "[rank 0] RuntimeError: ... Connection closed by peer
    ..."), because those texts are what the game shows as alerts. `exit_codes` maps the rank of
    each worker that died to its exit status (negative: killed by that signal number).
    `checkpoint_error` is set when the failure was a checkpoint that could not be loaded.
    """

    def __init__(
        self,
        message: str,
        errors: list[str] | None = None,
        *,
        exit_codes: dict[int, int | None] | None = None,
        checkpoint_error: CheckpointError | None = None,
    ) -> None:
        super().__init__(message)
        self.errors: list[str] = list(errors or [])
        self.exit_codes: dict[int, int | None] = dict(exit_codes or {})
        self.checkpoint_error = checkpoint_error


class ReplicaRefused(ReplicaError, ValueError):
    """A replica the game will not run: it does not import, lacks a method, refuses its
    settings, is not deterministic, or is too slow for a night. One line, said before the night
    starts. Also a ValueError, so the command line reports it as bad input (exit 2)."""

"""What a training job keeps at a moment, the measure both the season and the theory rig count."""

from __future__ import annotations

from drill.sim.jobs import Job


def kept_steps(job: Job) -> int:
    """The steps the job keeps at this moment: its own step while it trains, the checkpoint it
    will resume from while it is stopped or stalled (the steps since then are already lost)."""
    attempt = job.current
    training = (
        attempt is not None
        and attempt.training
        and not attempt.ended
        and not attempt.crashed
        and attempt.stall_wake is None
    )
    return job.step if training else (job.checkpoints.latest_step or 0)

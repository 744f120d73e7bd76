"""The `season:` section of an incident: weeks of a fleet's failures, played by standing policies.

A night tests what a person does at 3am; a season tests what they set up before it: spares,
draining a node on a hardware Xid, checkpoint cadence and retention, automatic restarts and a
health check before each restart. `drill season INCIDENT` plays it (drill/season/).

The season's length is its own bound, outside the per-night ones: a night is at most 12 hours, a
season from a day to 90 days.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StrictInt, model_validator

from drill.values.bounds import DAY, HOUR, MINUTE, seconds
from drill.values.failure_account import published_mix
from drill.values.fields import Duration, Strict, located

# What strikes a node, as operators sort their interruptions (the groups of the published
# account, drill/values/failure_account.py).
Cause = Literal["gpu", "gpu_memory", "network", "nic", "node", "software", "sdc"]
CAUSE_TEXT = {
    "gpu": "GPU fell off the bus (Xid 79)",
    "gpu_memory": "GPU memory error (Xid 48)",
    "network": "leaf switch or cable flap",
    "nic": "NIC or host port down (one node)",
    "node": "node stopped answering",
    "software": "application crash (Xid 13)",
    "sdc": "silent data corruption, found later",
}
HARDWARE_CAUSES = ("gpu", "gpu_memory")


class CauseShare(Strict):
    cause: Cause = Field(description="gpu, gpu_memory, network, nic, node, software or sdc")
    share: float = Field(gt=0, le=1, description="share of the interruptions with this cause")


def _default_mix() -> list[CauseShare]:
    """The published account's mix (drill/values/failure_account.py)."""
    return [CauseShare(cause=cause, share=share) for cause, share in published_mix()]


class Policies(Strict):
    """The learner's standing policies: what runs without anyone at the keyboard."""

    spares: StrictInt | None = Field(
        None, ge=0, le=16, description="spare nodes per island (default: the islands' own)"
    )
    auto_drain: bool = Field(
        False, description="drain a node the moment one of its GPUs raises a hardware Xid"
    )
    auto_restart: bool = Field(
        True, description="restart the job automatically after a failure (its retry policy)"
    )
    health_check: bool = Field(
        False, description="check the job's nodes before each automatic restart; drain bad ones"
    )
    checkpoint_every: StrictInt | None = Field(
        None, ge=1, le=100000, description="checkpoint every N steps (default: the job's)"
    )
    keep: StrictInt | None = Field(
        None, ge=1, le=100, description="keep the newest K checkpoints (default: the job's)"
    )


SHORTEST, LONGEST = DAY, 90 * DAY  # a season's length, the season world's horizon too


class Season(Strict):
    length: Annotated[Duration, seconds(SHORTEST, LONGEST, "from a day to 90 days")] = Field(
        28 * DAY, description="how long the season lasts, 1d to 90d"
    )
    mtbf: Annotated[
        Duration | None,
        seconds(HOUR, 100_000 * HOUR, "a node failing more often than hourly is not a cluster"),
    ] = Field(
        None, description="mean time between interruptions of one node (default: cluster.mtbf)"
    )
    scale: StrictInt = Field(
        1,
        ge=1,
        le=1000,
        description="how many nodes of a bigger fleet each node stands for in the failure count:"
        " the season strikes `scale` times as often as `mtbf` alone gives",
    )
    causes: list[CauseShare] = Field(
        default_factory=_default_mix,
        min_length=1,
        max_length=7,
        description="what the interruptions are, by share; the shares must add up to 1",
    )
    on_call_response: Annotated[Duration, seconds(0, DAY, "longer than a day is no on-call")] = (
        Field(1800.0, description="how long a person takes to act when automation does not")
    )
    health_check_time: Annotated[Duration, seconds(0, HOUR, "a check past 1h is a repair")] = Field(
        120.0, description="how long the health check before a restart takes"
    )
    repair_time: Annotated[Duration, seconds(MINUTE, 30 * DAY, "from a minute to a month")] = Field(
        3 * DAY, description="how long a node with a broken GPU is out for repair"
    )
    node_back_after: Annotated[Duration, seconds(MINUTE, DAY, "from a minute to a day")] = Field(
        1800.0, description="a node that stopped answering reboots itself and is back after this"
    )
    sdc_found_after: Annotated[Duration, seconds(MINUTE, 7 * DAY, "from a minute to a week")] = (
        Field(
            1800.0,
            description="how long silent data corruption goes unseen before the loss shows it",
        )
    )
    flap_duration: Annotated[Duration, seconds(MINUTE, DAY, "from a minute to a day")] = Field(
        1200.0, description="how long a link flap lasts"
    )
    policies: Policies = Field(Policies(), description="the standing policies the season plays")

    @model_validator(mode="after")
    def _shares(self) -> Season:
        total = sum(c.share for c in self.causes)
        if abs(total - 1.0) > 1e-6:
            raise located(
                f"the causes' shares add up to {total:g}; make them add up to 1", "causes"
            )
        seen: set[str] = set()
        for index, item in enumerate(self.causes):
            if item.cause in seen:
                raise located(
                    f"cause {item.cause!r} is listed twice; give each cause one share",
                    "causes",
                    index,
                    "cause",
                )
            seen.add(item.cause)
        return self

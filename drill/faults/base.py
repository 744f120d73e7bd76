"""What every fault kind shares: the YAML fields common to all, target selectors, what a fault
picked when it fired (drill/faults/pick.py), and the descriptor a kind module registers.

A fault kind module (one file per kind, next to this one) declares its YAML model as a subclass
of `FaultBase` with its own `kind` literal, and a `Kind` that says what it picks and what it does
when it fires. The kind's behaviour reaches the simulated world only through the world object it
is handed, through the FaultWorld protocol (drill/faults/world.py), never by importing the
simulation: the fault kinds sit below the simulation and above the value types of drill/values.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from drill.faults.pick import Pick
from drill.faults.world import FaultWorld
from drill.values.fields import Duration, Moment, Name, Strict

Select = Literal["one", "all", "count", "percent"]
# What one candidate of a kind is: the unit the seed picks among when the fault fires.
Unit = Literal["gpu", "rank", "node", "leaf", "checkpoint", "cluster"]
Loc = tuple[str | int, ...]


class Target(Strict):
    job: Name | None = Field(None, description="pick among this job's nodes and ranks")
    node: Name | None = Field(None, description="this node, like gpu-a-3")
    rank: int | None = Field(None, ge=0, le=4095, description="with `job`: this rank of the job")
    leaf: str | None = Field(
        None, description="pick among the nodes behind this leaf, like leaf-a1"
    )
    island: str | None = Field(None, description="pick among the nodes of this island, like a")
    select: Select = Field(
        "one", description="how many candidates the seed picks: one, all, count or percent"
    )
    count: int | None = Field(None, ge=1, le=4096, description="with select: count, how many")
    percent: float | None = Field(
        None, gt=0, le=100, description="with select: percent, what share of the candidates"
    )


class JobTarget(Strict):
    job: Name | None = Field(None, description="the job whose checkpoint it hits (default: yours)")


TriggerEvent = Literal["fault", "restart", "checkpoint", "page"]


class Trigger(Strict):
    """What starts a fault's clock, when it is not the night's start: another fault, a state of
    a job, or a page. The fault's `at` is then a delay after it (drill/faults/triggers.py)."""

    event: TriggerEvent = Field(
        description="fault: another fault fired; restart: the job starts again after a failure"
        " or a restart; checkpoint: the job starts writing a checkpoint; page: a page arrives"
    )
    fault: Name | None = Field(
        None,
        description="event: fault, the fault it follows; otherwise it watches only after this fault"
        " has fired",
    )
    job: Name | None = Field(
        None, description="event: restart or checkpoint, whose (default: the learner's job)"
    )
    text: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = Field(
        None, description="event: page, the first page whose text contains this (case-insensitive)"
    )


class FaultBase(Strict):
    """Fields every fault has. Each kind adds its own and a `kind` literal."""

    id: Name = Field(description="this fault's name; action lines refer to it as {fault.ID.FIELD}")
    at: Moment = Field(
        description="when the fault fires; with a `trigger`, how long after it, like 5m or 0s"
    )
    jitter: Duration = Field(0.0, description="seeded random delay added to `at`, up to this much")
    trigger: Trigger | None = Field(
        None,
        description="start the clock at another fault, a job's restart or checkpoint, or a page",
    )


# A kind's names for the loader's cross-reference checks: (what, names) lookups.
@dataclass(frozen=True)
class Names:
    nodes: set[str]
    leaves: set[str]
    islands: set[str]
    jobs: dict[str, int]  # job name -> its GPUs (ranks)
    cluster_mtbf: float | None
    volumes: dict[str, int] = field(default_factory=dict)  # volume name -> its capacity
    teams: set[str] = field(default_factory=set)  # every team a job or a quota names


Check = Callable[[Any, Names], list[tuple[Loc, str]]]
Fire = Callable[[FaultWorld, Any, list[Pick]], None]
Chooser = Callable[[FaultWorld, Any, random.Random], list[Pick]]


@dataclass(frozen=True)
class Kind:
    """One fault kind, as the loader, the schema, the guide check and the simulation see it."""

    name: str
    spec: type[FaultBase]
    unit: Unit  # what the seed picks among when it fires
    fire: Fire  # what it does to the world, given what it picked
    summary: str  # one line: the signals it leaves, for `drill list` and the guide check
    check: Check | None = None  # extra cross-reference checks beyond the target's names
    # How it picks, when not from its `target:` by unit (drill/faults/targets.py).
    select: Chooser | None = None

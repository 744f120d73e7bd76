"""What a handler can reach, plus lookups that reject with the closest valid name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from drill.engine.actions.errors import Reject, unknown
from drill.sim.cluster import Node
from drill.sim.jobs import Job

if TYPE_CHECKING:
    from drill.sim.world import World


@dataclass
class Context:
    world: World
    hints_shown: list[int] = field(default_factory=list)
    notes: list[tuple[float, str]] = field(default_factory=list)
    # True until the first action that is not a `set` at the night's start: the plan.
    pre_shift: bool = True

    def job(self, name: str) -> Job:
        if name in self.world.jobs:
            return self.world.jobs[name]
        raise unknown("job", name, self.world.jobs)

    def node(self, name: str, *, spares: bool = False) -> Node:
        nodes = self.world.cluster.nodes
        if name in nodes and (spares or nodes[name].in_service):
            return nodes[name]
        raise unknown("node", name, [n for n, node in nodes.items() if spares or node.in_service])

    def clock(self, seconds: float) -> str:
        return self.world.clock.label(seconds)


def expect(args: list[str], count: int, usage: str, at_most: int | None = None) -> None:
    at_most = count if at_most is None else at_most
    if not count <= len(args) <= at_most:
        raise Reject(f"usage: {usage}")


def parse_int(text: str, what: str, low: int = 0, high: int = 10**9) -> int:
    try:
        value = int(text)
    except ValueError:
        raise Reject(f"{what} must be a whole number, got {text!r}") from None
    if not low <= value <= high:
        raise Reject(f"{what} must be between {low} and {high}, got {value}")
    return value

"""The class report's figures, from ClassResults alone: what the HTML page and the Textual
screen both show, computed once here so the two never disagree.

Every figure counts verified nights only: a refused save has no score to count, and a missing
night has nothing at all. Refused and missing nights are counted on their own.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from drill.classroom.results import ClassResults, GradedNight

BIN_WIDTH = 10  # points per bar of a night's score histogram
BINS = 100 // BIN_WIDTH  # 0-9, 10-19, ..., 90-100 (a perfect 100 goes in the last bar)
TOP_ACTS = 3  # the most common first wrong acts shown per night


@dataclass(frozen=True)
class NightCounts:
    """How one night went across the class."""

    night: str
    histogram: tuple[int, ...]  # verified saves per score bin, BINS of them
    verified: int
    refused: int
    missing: int
    mean: float | None  # of the verified totals; None when there are none
    median: float | None


@dataclass(frozen=True)
class ComponentLoss:
    """Points one component lost across the class's verified nights."""

    name: str
    lost: float  # summed over every verified night
    possible: float  # its weight, summed over the same nights
    nights: int  # verified nights where the component was scored (weight above zero)

    @property
    def mean(self) -> float:
        """Points lost on an average night where it was scored."""
        return self.lost / self.nights if self.nights else 0.0

    @property
    def mean_weight(self) -> float:
        return self.possible / self.nights if self.nights else 0.0


@dataclass(frozen=True)
class WrongAct:
    """A first wrong act and how many learners' verified nights began going wrong with it."""

    act: str
    count: int


def bin_of(total: float) -> int:
    """The histogram bar a total falls in: 0 for 0 to 9.99, ..., BINS - 1 for 90 to 100."""
    return min(BINS - 1, max(0, int(total // BIN_WIDTH)))


def bin_label(index: int) -> str:
    low = index * BIN_WIDTH
    high = 100 if index == BINS - 1 else low + BIN_WIDTH - 1
    return f"{low}-{high}"


def verified_totals(results: ClassResults, night: str) -> list[float]:
    return [g.total for g in results.for_night(night) if g.verified and g.total is not None]


def night_counts(results: ClassResults, night: str) -> NightCounts:
    entries = results.for_night(night)
    totals = verified_totals(results, night)
    histogram = [0] * BINS
    for total in totals:
        histogram[bin_of(total)] += 1
    handed_in = {g.learner for g in entries}
    return NightCounts(
        night=night,
        histogram=tuple(histogram),
        verified=len(totals),
        refused=sum(1 for g in entries if not g.verified),
        missing=sum(1 for learner in results.learners if learner not in handed_in),
        mean=sum(totals) / len(totals) if totals else None,
        median=_median(totals),
    )


def _median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def component_losses(graded: tuple[GradedNight, ...] | list[GradedNight]) -> list[ComponentLoss]:
    """Points lost per component over these nights' verified entries, the biggest loss first
    (ties by name, so the order never depends on the order the saves were graded in). A
    component with no weight on a night (no plan to judge) was not scored there and is left out
    of that night."""
    lost: dict[str, float] = {}
    possible: dict[str, float] = {}
    nights: Counter[str] = Counter()
    for entry in graded:
        if not entry.verified:
            continue
        for component in entry.components:
            if component.weight <= 0:
                continue
            lost[component.name] = lost.get(component.name, 0.0) + component.lost
            possible[component.name] = possible.get(component.name, 0.0) + component.weight
            nights[component.name] += 1
    losses = [
        ComponentLoss(name, round(lost[name], 2), round(possible[name], 2), nights[name])
        for name in lost
    ]
    return sorted(losses, key=lambda c: (-c.lost, c.name))


def class_component_losses(results: ClassResults) -> list[ComponentLoss]:
    return component_losses(results.graded)


def lost_most(graded: tuple[GradedNight, ...] | list[GradedNight]) -> ComponentLoss | None:
    """The component where these nights lost the most points together, None when none lost."""
    losses = component_losses(graded)
    return losses[0] if losses and losses[0].lost > 0 else None


def same_act(text: str) -> str:
    """An act as counted: runs of spaces are one space, and the ends are trimmed, so
    `drain  gpu-a-2 ` and `drain gpu-a-2` are the same act."""
    return re.sub(r"\s+", " ", text).strip()


def first_wrong_acts(results: ClassResults, night: str, top: int = TOP_ACTS) -> list[WrongAct]:
    """The most common first wrong acts on one night's verified saves, most common first (ties
    in alphabetical order)."""
    counts = Counter(
        same_act(g.first_wrong_act)
        for g in results.for_night(night)
        if g.verified and g.first_wrong_act and same_act(g.first_wrong_act)
    )
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [WrongAct(act, count) for act, count in ranked[:top]]


def no_wrong_act(results: ClassResults, night: str) -> int:
    """Verified saves of the night whose score counted no act against them."""
    return sum(
        1
        for g in results.for_night(night)
        if g.verified and not (g.first_wrong_act and same_act(g.first_wrong_act))
    )

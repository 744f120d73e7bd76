"""The few fields of a Job that the world's pending queue is filed by, and the job's reason.

The world keeps its queue grouped by request shape and sorted by priority class and submit time
(drill/sim/shape_queue.py), so that a scheduling pass costs what changed, not the backlog. A job
whose priority, hold or excluded nodes change while it waits must be filed again, whoever
changes it (an action, a fault, the season's on-call policy, a test): these descriptors tell the
job's `queue_hook` (the world's) after every change. `exclude` is a set the code also changes in
place (`discard`, `|=`), so it is kept as a set that tells on itself.

`reason` is what `queue`, `status` and the snapshot show. A pass does not write one per waiting
job: the world's PassReasons (drill/sim/pass_reasons.py) keeps what the last pass decided, and
a job's reason is read from it unless something set the job's own reason after that pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any, Self

_MISSING = object()


def _changed(job: Any) -> None:
    hook = job.__dict__.get("queue_hook")
    if hook is not None:
        hook(job)


class QueueField:
    """A plain value field whose change re-files the job in its world's queue."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.slot = "_" + name

    def __get__(self, job: Any, owner: type | None = None) -> Any:
        if job is None:
            return self
        return job.__dict__[self.slot]

    def __set__(self, job: Any, value: Any) -> None:
        stored = job.__dict__
        old = stored.get(self.slot, _MISSING)
        stored[self.slot] = value
        if old is not _MISSING and old != value:
            _changed(job)


class WatchedSet(set[str]):
    """A job's excluded nodes: a set like any other, that tells the job's world of each change."""

    __slots__ = ("_job",)

    def __init__(self, items: Iterable[str] = (), job: Any = None) -> None:
        super().__init__(items)
        self._job = job

    def __repr__(self) -> str:
        return repr(set(self))  # what a job's repr showed before: its nodes, not this class

    def _tell(self) -> None:
        if self._job is not None:
            _changed(self._job)

    def add(self, item: str) -> None:
        super().add(item)
        self._tell()

    def discard(self, item: object) -> None:
        super().discard(item)
        self._tell()

    def remove(self, item: str) -> None:
        super().remove(item)
        self._tell()

    def pop(self) -> str:
        item = super().pop()
        self._tell()
        return item

    def clear(self) -> None:
        super().clear()
        self._tell()

    def update(self, *others: Iterable[str]) -> None:
        super().update(*others)
        self._tell()

    def difference_update(self, *others: Iterable[Any]) -> None:
        super().difference_update(*others)
        self._tell()

    def intersection_update(self, *others: Iterable[Any]) -> None:
        super().intersection_update(*others)
        self._tell()

    def symmetric_difference_update(self, other: Iterable[str]) -> None:
        super().symmetric_difference_update(other)
        self._tell()

    def __ior__(self, other: Set[str]) -> Self:  # type: ignore[override,misc]
        super().__ior__(other)
        self._tell()
        return self

    def __iand__(self, other: Set[str]) -> Self:  # type: ignore[override,misc]
        super().__iand__(other)
        self._tell()
        return self

    def __isub__(self, other: Set[str]) -> Self:  # type: ignore[override,misc]
        super().__isub__(other)
        self._tell()
        return self

    def __ixor__(self, other: Set[str]) -> Self:  # type: ignore[override,misc]
        super().__ixor__(other)
        self._tell()
        return self


class ExcludeField:
    """`exclude`: whatever set is assigned, the job holds a WatchedSet of the same nodes."""

    slot = "_exclude"

    def __get__(self, job: Any, owner: type | None = None) -> Any:
        if job is None:
            return self
        return job.__dict__[self.slot]

    def __set__(self, job: Any, value: Iterable[str]) -> None:
        stored = job.__dict__
        old = stored.get(self.slot)
        if value is old:
            return  # `job.exclude -= other` changed it in place, and told already
        stored[self.slot] = WatchedSet(value, job)
        if old is not None and old != value:
            _changed(job)


class ReasonField:
    """`reason`: the job's own, unless the world's last pass decided it since (PassReasons)."""

    def __get__(self, job: Any, owner: type | None = None) -> Any:
        if job is None:
            return self
        stored = job.__dict__
        source = stored.get("reasons_from")
        if source is None or stored["_reason_seq"] >= source.seq:
            return stored["_reason"]
        return source.reason_of(job, stored["_reason"])

    def __set__(self, job: Any, value: str) -> None:
        stored = job.__dict__
        source = stored.get("reasons_from")
        stored["_reason"] = value
        stored["_reason_seq"] = source.seq if source is not None else 0


class Lazy:
    """A container field made when first read (a dataclass field with init=False and no
    default, so __init__ leaves it unset): most of the night's jobs are other teams' work that
    never logs, checkpoints or fails, and a fleet day's tens of thousands of empty lists and
    catalogs cost their making and every full collection's walk over them. Once made it sits in
    the instance's own dict, where later reads find it without this descriptor."""

    def __init__(self, name: str, factory: Callable[[], Any]) -> None:
        self.name = name
        self.factory = factory

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.factory()
        return value


def made(obj: Any, name: str) -> Any:
    """A Lazy field's value if something made it already, else None (without making it)."""
    return obj.__dict__.get(name)


def lazy(cls: type, **factories: Callable[[], Any]) -> None:
    """Make `cls`'s fields named here Lazy, each from its factory."""
    for name, factory in factories.items():
        setattr(cls, name, Lazy(name, factory))


def install(cls: type) -> type:
    """Put the descriptors on the Job dataclass (after @dataclass wrote its __init__, which
    then assigns through them)."""
    fields: dict[str, object] = {
        "priority": QueueField("priority"),
        "held": QueueField("held"),
        "exclude": ExcludeField(),
        "reason": ReasonField(),
    }
    for name, descriptor in fields.items():
        setattr(cls, name, descriptor)
    return cls

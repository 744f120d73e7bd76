"""Typed events the world emits: what a UI shows and what the timeline records.

One class per kind of event, each with its own typed fields. The classes are the one
declaration of the kinds: a class names its kind string where it is declared
(`class StepTaken(Event, kind="step")`), and both ways between an event and its JSON form
(`Event.to_json`, `event_from_json`) go through that registry. Consumers ask
`isinstance(event, StepTaken)`, never compare kind strings.

The JSON form is the one the timeline has always had, key for key, because `drill run --json`
accounts and the tests that read them depend on it: {"time", "kind", "subject", "text"} and,
when there is any, a "data" object holding the class's own fields. A field whose default is
None is left out of "data" while it is None (a job that was submitted says no state); a field
without a default is always written, None included (a step's loss on the sim backend).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from drill.errors import UserError
from drill.states import JobState, NodeState

# The `state` a job_state event gives when a job's processes have met and train: not a
# scheduler state (the scheduler still says running), the moment progress starts counting.
TRAINING = "training"

_BASE_KEYS = ("time", "kind", "subject", "text")


@dataclass(frozen=True)
class Event:
    time: float
    subject: str
    text: str

    kind: ClassVar[str]  # the word in the JSON form; set by `class X(Event, kind=...)`
    hidden: ClassVar[bool] = False  # the world's own records, kept off screens

    def __init_subclass__(cls, kind: str = "", hidden: bool = False, **rest: Any) -> None:
        super().__init_subclass__(**rest)
        if not kind:
            raise TypeError(
                f"{cls.__name__} must say its kind: class {cls.__name__}(Event, kind=...)"
            )
        if kind in EVENT_KINDS:
            raise TypeError(
                f"two event classes say kind {kind!r}: {EVENT_KINDS[kind].__name__}, {cls.__name__}"
            )
        cls.kind = kind
        cls.hidden = hidden
        EVENT_KINDS[kind] = cls

    def __post_init__(self) -> None:
        if type(self) is Event:
            raise TypeError("Event is the base of the kinds; build one of them (EVENT_KINDS)")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "time": round(self.time, 3),
            "kind": self.kind,
            "subject": self.subject,
            "text": self.text,
        }
        data: dict[str, Any] = {"hidden": True} if self.hidden else {}
        for f in _own_fields(type(self)):
            value = getattr(self, f.name)
            if value is None and f.default is None:
                continue
            data[f.name] = value
        if data:
            out["data"] = data
        return out


# kind string -> class, filled as the classes below are declared.
EVENT_KINDS: dict[str, type[Event]] = {}


def _own_fields(cls: type[Event]) -> list[dataclasses.Field]:
    return [f for f in dataclasses.fields(cls) if f.name not in _BASE_KEYS]


@dataclass(frozen=True)
class AlertFired(Event, kind="alert"):
    """A page went out (noise included): `id` is the pager's (P1, P2, ...)."""

    id: str
    severity: str  # one of drill.sim.pager.SEVERITIES


@dataclass(frozen=True)
class JobStateChanged(Event, kind="job_state"):
    """A job moved on: submitted and preempted say no state (the text says what happened);
    a scheduler move gives the JobState; training gives TRAINING and the step it starts from."""

    state: JobState | str | None = None
    step: int | None = None

    @property
    def started_training(self) -> bool:
        return self.state == TRAINING


@dataclass(frozen=True)
class NodeStateChanged(Event, kind="node_state"):
    state: NodeState


@dataclass(frozen=True)
class StepTaken(Event, kind="step"):
    """A training step done; `loss` is None where the backend trains nothing (sim)."""

    step: int
    loss: float | None


@dataclass(frozen=True)
class CheckpointEvent(Event, kind="checkpoint"):
    """A checkpoint saved, not written, written in part, or deleted by someone; `cause` names
    what stopped a write that failed."""

    step: int
    cause: str | None = None


@dataclass(frozen=True)
class ActionTaken(Event, kind="action"):
    """A line the learner typed; `result` says why it was refused, when it was."""

    accepted: bool
    result: str | None = None


@dataclass(frozen=True)
class HintShown(Event, kind="hint"):
    index: int  # into the incident's hints


@dataclass(frozen=True)
class JobLogLine(Event, kind="job_log"):
    """A line a real process printed (the replica backends), word for word."""

    real: bool = True


@dataclass(frozen=True)
class HarmDone(Event, kind="harm", hidden=True):
    """Work the learner's action cost someone; the ledger holds the figures."""


@dataclass(frozen=True)
class FaultFired(Event, kind="fault", hidden=True):
    """A fault of the incident fired; the subject is its id."""


def event_from_json(entry: dict[str, Any], where: str = "timeline") -> Event:
    """The event a JSON timeline entry holds (extra keys beside the event's, like an account's
    "clock", are left alone). An entry that names no known kind, or data that kind does not
    have, is refused in one line that says where and what the kinds are."""
    kind = entry.get("kind")
    cls = EVENT_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        known = ", ".join(sorted(EVENT_KINDS))
        raise UserError(f"{where}: unknown event kind {kind!r}; the kinds are {known}")
    data = dict(entry.get("data") or {})
    if bool(data.pop("hidden", False)) != cls.hidden:
        raise UserError(f"{where}: a {kind} event is {'always' if cls.hidden else 'never'} hidden")
    names = {f.name for f in _own_fields(cls)}
    extra = sorted(set(data) - names)
    if extra:
        raise UserError(
            f"{where}: a {kind} event has no {', '.join(extra)}; it has {', '.join(sorted(names)) or 'no data'}"
        )
    try:
        if cls is NodeStateChanged and "state" in data:
            data["state"] = NodeState(data["state"])
        if cls is JobStateChanged and data.get("state") in set(JobState):
            data["state"] = JobState(data["state"])
        return cls(time=entry["time"], subject=entry["subject"], text=entry["text"], **data)
    except KeyError as exc:
        raise UserError(f"{where}: a {kind} event has no {exc.args[0]}") from None
    except (TypeError, ValueError) as exc:
        raise UserError(f"{where}: a {kind} event does not read: {exc}") from None

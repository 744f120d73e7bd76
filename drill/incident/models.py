"""Typed models of an incident file.

Every field carries a description: the JSON Schema that editors use is generated from these
models, so the description is the documentation an instructor sees while typing.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PrivateAttr,
    StrictInt,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from drill.faults import FaultSpec
from drill.incident.job_settings import (
    CKPT_EVERY,
    CKPT_KEEP,
    CKPT_ON_SIGTERM,
    FLAG_KEYS,
    KEYS,
    MAX_NUMBER,
    NUMBER_KEYS,
    VERIFY_ON_RESUME,
)
from drill.incident.season import LONGEST, SHORTEST, Policies, Season
from drill.values import units
from drill.values.bounds import (
    DAY,
    HOUR,
    MAX_ARRIVALS_PER_HOUR,
    MAX_COUNTED_STEPS,
    MAX_NIGHT,
    MAX_NODES,
    MAX_QUEUED_JOBS,
    MAX_REPLICA_STEPS,
    MINUTE,
    counts,
    rates,
    seconds,
    sizes,
)
from drill.values.fields import (
    MAX_TEXT,
    PRIORITY_RANK,
    Duration,
    Moment,
    Name,
    PriorityClass,
    Rate,
    Size,
    Strict,
    Text,
    located,
)

__all__ = ["PRIORITY_RANK", "Incident"]

# A rename or removal bumps it, with a step in drill/incident/migrations.py for the old files.
SCHEMA_VERSION = 2


class Night(Strict):
    start: Annotated[str, Field(description="clock time the night starts, like 03:00")] = "03:00"
    length: Duration = Field(7200.0, description="how long the night lasts; it ends then")

    @field_validator("start")
    @classmethod
    def _clock(cls, value: str) -> str:
        try:
            units.parse_clock(value)
        except units.UnitError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("length")
    @classmethod
    def _length(cls, value: float, info: ValidationInfo) -> float:
        if in_season(info.context):
            # A season's world: its horizon is the season's length, held to the season's bound.
            if not SHORTEST <= value <= LONGEST:
                raise ValueError("the season must last between 1d and 90d")
            return value
        if not 600 <= value <= MAX_NIGHT:
            raise ValueError(
                f"the night must last between 10m and {units.format_duration(MAX_NIGHT)}"
            )
        return value


class Island(Strict):
    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9]{0,7}$", description="island name, like a")]
    leaves: StrictInt = Field(2, ge=1, le=64, description="leaf switches in this fabric island")
    nodes_per_leaf: StrictInt = Field(4, ge=1, le=64, description="nodes behind each leaf switch")
    spares: StrictInt = Field(0, ge=0, le=16, description="spare nodes that `swap` can bring in")


class Cluster(Strict):
    gpus_per_node: StrictInt = Field(8, ge=1, le=16, description="GPUs in each node")
    islands: list[Island] = Field(
        min_length=1,
        max_length=64,
        description="fabric islands; a job that spans nodes must fit inside one island",
    )
    mtbf: Annotated[
        Duration | None,
        seconds(HOUR, 100_000 * HOUR, "a node failing more often than hourly is not a cluster"),
    ] = Field(
        None,
        description="mean time between failures of one node, 1h to 100000h; the debrief uses it"
        " for cadence",
    )
    heartbeat_timeout: Annotated[
        Duration, seconds(10, HOUR, "below 10s a busy node would be marked down")
    ] = Field(90.0, description="silence before a node is marked down, 10s to 1h")
    scheduling_interval: Annotated[
        Duration,
        seconds(5, HOUR, "the scheduler runs this often; at 0 the clock could never move"),
    ] = Field(30.0, description="how often the scheduler runs, 5s to 1h")
    startup: Annotated[Duration, seconds(0, HOUR, "a start-up longer than 1h is a hang")] = Field(
        60.0, description="container and process start per attempt, 0s to 1h"
    )
    rendezvous: Annotated[Duration, seconds(0, HOUR, "a rendezvous longer than 1h is a hang")] = (
        Field(30.0, description="ranks finding each other per attempt, 0s to 1h")
    )
    reboot_time: Annotated[Duration, seconds(1, 12 * HOUR, "longer than the longest night")] = (
        Field(360.0, description="how long a node reboot takes, 1s to 12h")
    )
    swap_time: Annotated[Duration, seconds(1, 12 * HOUR, "longer than the longest night")] = Field(
        600.0, description="how long bringing in a spare takes, 1s to 12h"
    )
    preempt_grace: Annotated[
        Duration, seconds(0, HOUR, "a grace period past 1h is no preemption")
    ] = Field(
        60.0, description="time between SIGTERM and SIGKILL when a job is preempted, 0s to 1h"
    )

    @model_validator(mode="after")
    def _unique_islands(self) -> Cluster:
        second = _second_use([island.name for island in self.islands])
        if second is not None:
            name = self.islands[second].name
            raise located(
                f"island {name!r} is declared twice; give each island its own name",
                "islands",
                second,
                "name",
            )
        total = sum(i.leaves * i.nodes_per_leaf + i.spares for i in self.islands)
        if total > MAX_NODES:
            raise located(
                f"the cluster has {total} nodes; at most {MAX_NODES} are supported, so use fewer"
                " leaves, nodes per leaf or spares",
                "islands",
            )
        return self


class Retry(Strict):
    max_restarts: StrictInt = Field(
        0, ge=0, le=100, description="automatic restarts after a failure"
    )
    backoff: Annotated[Duration, seconds(0, 12 * HOUR, "longer than the longest night")] = Field(
        30.0, description="wait before an automatic restart, 0s to 12h"
    )


class CheckpointSettings(Strict):
    enabled: bool = Field(
        True,
        description="false: the job's script writes no checkpoints at all; a restart starts over",
    )
    every: StrictInt = Field(
        CKPT_EVERY.default,
        ge=CKPT_EVERY.low,
        le=CKPT_EVERY.high,
        description=CKPT_EVERY.help,
    )
    keep: StrictInt = Field(
        CKPT_KEEP.default,
        ge=CKPT_KEEP.low,
        le=CKPT_KEEP.high,
        description="retention: keep the newest K checkpoints",
    )
    atomic: bool = Field(
        True, description="write to a temp file and rename, or straight to the path"
    )
    on_sigterm: bool = Field(bool(CKPT_ON_SIGTERM.default), description=CKPT_ON_SIGTERM.help)
    verify_on_resume: bool = Field(
        bool(VERIFY_ON_RESUME.default), description=VERIFY_ON_RESUME.help
    )
    volume: Name | None = Field(None, description="storage volume the checkpoints go to")
    write_time: Annotated[Duration, seconds(0, 12 * HOUR, "longer than the longest night")] = Field(
        60.0,
        description="sim time to write one checkpoint when no volume is modelled, 0s to 12h",
    )


def _count(value: Any) -> float:
    """Parameter counts as people write them: 7B, 70B, 1.5T, 350M, or a number."""
    if isinstance(value, bool):
        raise ValueError("expected a parameter count like 7B or 350M")
    if isinstance(value, int | float):
        if not 0 < value < float("inf"):
            raise ValueError("expected a positive parameter count like 7B")
        return float(value)
    text = str(value).strip()
    scale = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
    if text and text[-1] in scale:
        try:
            number = float(text[:-1])
        except ValueError:
            number = -1.0
        if number > 0:
            return number * scale[text[-1]]
    raise ValueError(f"expected a parameter count like 7B, 70B or 350M, got {text!r}")


ParamCount = Annotated[
    float,
    BeforeValidator(_count),
    WithJsonSchema(
        {
            "anyOf": [{"type": "string", "pattern": r"^\d+(\.\d+)?[KMBT]$"}, {"type": "number"}],
            "description": "a parameter count like 7B, 70B or 350M",
        }
    ),
]


class Tenant(Strict):
    team: Name = Field(description="the team that writes; its usage counts against its quota")
    rate: Annotated[Rate, rates(0, 1e14, "faster than any storage system writes")] = Field(
        description="how fast this tenant writes, like 2TB/h (at most 100TB/s)"
    )
    start: Moment = Field(0.0, description="when it starts writing")
    stop: Moment | None = Field(None, description="when it stops (default: never)")


class Volume(Strict):
    name: Name = Field(description="volume name, used by `df`, `quota` and checkpoint `volume`")
    capacity: Annotated[Size, sizes(1e9, 1e18, "from a small disk to an exabyte")] = Field(
        description="total size of the volume, like 12TB (1GB to 1EB)"
    )
    used: Annotated[Size, sizes(0, 1e18, "no volume is larger than an exabyte")] = Field(
        0, description="space other teams already use when the night starts"
    )
    quotas: dict[Name, Annotated[Size, sizes(0, 1e18, "no volume is larger than an exabyte")]] = (
        Field(default_factory=dict, max_length=100, description="per-team quota")
    )
    read_bandwidth: Annotated[Rate, rates(1e6, 1e14, "at 0 a checkpoint read would never end")] = (
        Field(description="shared by everyone reading, like 10GB/s (1MB/s to 100TB/s)")
    )
    write_bandwidth: Annotated[
        Rate, rates(1e6, 1e14, "at 0 a checkpoint write would never end")
    ] = Field(description="shared by everyone writing, like 5GB/s (1MB/s to 100TB/s)")
    df_lag: Annotated[Duration, seconds(0, HOUR, "numbers older than 1h are no numbers")] = Field(
        0.0,
        description="how stale the storage dashboard's numbers are (the TUI storage panel, marked"
        " 'as of'), 0s to 1h; `df` and the fill monitor read the volume now",
    )
    tenants: list[Tenant] = Field(
        default_factory=list,
        max_length=50,
        description="other teams writing to it during the night",
    )
    quota_requests: Literal["grant", "refuse"] = Field(
        "grant", description="how the storage team answers `quota`"
    )
    quota_response: Annotated[Duration, seconds(0, 12 * HOUR, "longer than the longest night")] = (
        Field(900.0, description="how long the storage team takes to answer, 0s to 12h")
    )
    quota_max_increase: Annotated[
        Size | None, sizes(0, 1e18, "no volume is larger than an exabyte")
    ] = Field(None, description="the most one request is granted")

    @model_validator(mode="after")
    def _used_fits(self) -> Volume:
        if self.used > self.capacity:
            raise located(
                f"used ({units.format_size(self.used)}) is more than the capacity"
                f" ({units.format_size(self.capacity)}); lower used or raise capacity",
                "used",
            )
        return self


class PlanChoice(Strict):
    min: StrictInt | None = Field(
        None, ge=1, le=MAX_NUMBER, description=f"smallest number allowed ({', '.join(NUMBER_KEYS)})"
    )
    max: StrictInt | None = Field(None, ge=1, le=MAX_NUMBER, description="largest number allowed")
    allowed: list[Literal["yes", "no"]] | None = Field(
        None,
        description=f"answers allowed for a yes or no setting ({', '.join(FLAG_KEYS)})",
    )
    why: str = Field(
        "", max_length=MAX_TEXT, description="what this choice costs, shown in the plan"
    )

    @model_validator(mode="after")
    def _shape(self) -> PlanChoice:
        if self.allowed is None and (self.min is None or self.max is None):
            raise ValueError("a choice needs `min` and `max` (numbers) or `allowed` (yes, no)")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}; swap them")
        return self


PlanKey = Literal[KEYS]  # type: ignore[valid-type]  # the declared keys, one Literal


class Plan(Strict):
    job: Name = Field(description="the job whose settings the learner chooses before the night")
    choices: dict[PlanKey, PlanChoice] = Field(
        default_factory=dict,
        description=f"settings the learner may choose: {', '.join(KEYS)};"
        " each needs the job's own value inside its range",
    )


# An installed replica's name (shipped, or a `drill.replicas` entry point): no colon, no dots,
# so an incident can never name a module to import. Only a person at the command line names
# code (`--replica module:factory`). replica/interface.py's NAME_RE is the same rule.
REPLICA_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
REPLICA_FACTORY = re.compile(REPLICA_NAME)


class JobSpec(Strict):
    name: Name = Field(description="job name, used in actions like `status NAME`")
    team: Name = Field("ml", description="the team that owns the job; storage quotas are per team")
    yours: bool = Field(False, description="the learner's job, the one the score follows")
    gpus: StrictInt = Field(
        ge=1,
        le=4096,
        description="GPUs the job needs at once (a gang); above one node, a multiple of"
        " gpus_per_node",
    )
    priority: PriorityClass = Field(
        "normal", description="low, normal, high or urgent; a higher class can preempt lower work"
    )
    steps: StrictInt = Field(300, ge=1, le=100000, description="steps to finish the job")
    step_time: Annotated[
        Duration, seconds(1, HOUR, "every step is an event; below 1s a night is too many")
    ] = Field(10.0, description="sim time per training step, 1s to 1h")
    submit_at: Moment = Field(0.0, description="when the job is submitted")
    nodes: list[Name] = Field(
        default_factory=list, max_length=4096, description="initial placement (optional)"
    )
    exclude: list[Name] = Field(
        default_factory=list, max_length=4096, description="nodes this job must avoid"
    )
    time_limit: Annotated[Duration, seconds(MINUTE, 30 * DAY, "from a minute to a month")] = Field(
        6 * 3600.0, description="wall time limit, used by backfill, 1m to 30d"
    )
    collective_timeout: Annotated[
        Duration, seconds(10, 12 * HOUR, "below 10s a healthy collective would time out")
    ] = Field(
        600.0, description="a collective that waits longer than this fails the job, 10s to 12h"
    )
    process_group_timeout: Annotated[
        Duration,
        seconds(1, 30 * MINUTE, "a real wait at the keyboard; torch's own default is 30m"),
    ] = Field(
        10.0,
        description=(
            "wall-clock timeout of the real gloo process group (--backend gloo), 1s to 30m;"
            " torch's default is 30 minutes, far too long to wait for a hung rank at a keyboard."
            " It stands for collective_timeout: the night still stays silent and fails at that"
        ),
    )
    retry: Retry = Field(Retry(), description="automatic restarts after a failure")
    checkpoint: CheckpointSettings = Field(
        CheckpointSettings(), description="checkpoint cadence, retention and how they are written"
    )
    model_params: Annotated[
        ParamCount, counts(1e6, 1e14, "from a small model (1M) to 100T parameters")
    ] = Field(7e9, description="parameters of the model this job stands for; sizes its checkpoints")
    bytes_per_param: float = Field(
        14.0, gt=0, le=64, description="checkpoint bytes per parameter (bf16 weights + fp32 Adam)"
    )
    preemptible: bool = Field(True, description="whether higher-priority work may preempt it")
    code_version: Name | None = Field(
        None, description="the training code's version it runs, like a short commit id"
    )
    previous_code_version: Name | None = Field(
        None, description="the version it ran before the last deploy: what `rollback JOB` runs"
    )
    replica: dict[str, int | float] = Field(
        default_factory=dict, description="replica training settings (layers, width, lr, ...)"
    )
    replica_factory: str | None = Field(
        None,
        max_length=200,
        description="which replica trains for this job, by the name it is installed under: a"
        " shipped one (addition-gpt, spiral-mlp) or a `drill.replicas` entry point of an"
        " installed package (see docs/bring-your-replica.md); default addition-gpt. Never a"
        " module path: an incident cannot name code. `replica` holds its settings",
        json_schema_extra={"pattern": f"^{REPLICA_NAME}$"},
    )

    @field_validator("replica_factory")
    @classmethod
    def _replica_factory(cls, value: str | None) -> str | None:
        if value is not None and not REPLICA_FACTORY.fullmatch(value):
            raise ValueError(
                f"{value!r} names code, and an incident cannot name code: name an installed"
                " replica (addition-gpt, spiral-mlp, or a drill.replicas entry point), or let"
                " the learner choose theirs with `--replica module:factory` on the command line"
            )
        return value


# A relative path: no leading / or dot, no backslash; `_trace_path` refuses a `..` part, and the
# loader refuses a link that leads out of the incident's folder.
TRACE_PATH = r"^[A-Za-z0-9_][A-Za-z0-9_./-]*\.csv$"


class Background(Strict):
    utilization: float = Field(0.5, ge=0, le=1, description="share of GPUs busy at the start")
    arrivals_per_hour: float = Field(
        4.0,
        ge=0,
        le=MAX_ARRIVALS_PER_HOUR,
        description=f"new jobs from other teams per hour, on average (0 to {MAX_ARRIVALS_PER_HOUR})",
    )
    teams: list[Name] = Field(
        default_factory=lambda: ["vision", "speech", "rl", "infra"],
        min_length=1,
        max_length=50,
        description="teams the background jobs belong to",
    )
    sizes: list[Annotated[StrictInt, Field(ge=1, le=4096)]] = Field(
        default_factory=lambda: [1, 2, 4, 8, 16],
        min_length=1,
        max_length=20,
        description="GPU counts background jobs draw from; the first ones are drawn most often",
    )
    min_duration: Annotated[Duration, seconds(MINUTE, 30 * DAY, "from a minute to a month")] = (
        Field(1200.0, description="shortest run time of a background job, 1m to 30d")
    )
    max_duration: Annotated[Duration, seconds(MINUTE, 30 * DAY, "from a minute to a month")] = (
        Field(10800.0, description="longest run time of a background job, 1m to 30d")
    )
    high_priority_share: float = Field(
        0.0, ge=0, le=1, description="share of background jobs submitted as high priority"
    )
    trace: Annotated[str, Field(pattern=TRACE_PATH, max_length=200)] | None = Field(
        None,
        description="a CSV of background jobs in the peer simulator's columns (job_id, user,"
        " num_inst, submit_time, duration, num_gpu), next to this file or below it; its jobs"
        " arrive at submit_time seconds into the night instead of arrivals_per_hour. A"
        " fractional num_gpu takes a whole GPU (the world does not share GPUs); num_gpu 0 is"
        " CPU work and is left out",
    )
    # The trace's rows, read by the loader from the file `trace` names.
    _trace_jobs: list = PrivateAttr(default_factory=list)

    @property
    def trace_jobs(self) -> list:
        return self._trace_jobs

    @field_validator("trace")
    @classmethod
    def _trace_path(cls, value: str | None) -> str | None:
        if value is not None and ".." in value.split("/"):
            raise ValueError("the trace must be in this file's folder or below it, without ..")
        return value

    @model_validator(mode="after")
    def _durations_in_order(self) -> Background:
        if self.min_duration > self.max_duration:
            raise located(
                f"min_duration ({units.format_duration(self.min_duration)}) is longer than"
                f" max_duration ({units.format_duration(self.max_duration)}); swap them",
                "min_duration",
            )
        return self


class Noise(Strict):
    at: Moment = Field(description="when the alert fires")
    severity: Literal["info", "warning", "critical"] = Field(
        "warning", description="info, warning or critical, as the pager shows it"
    )
    source: str = Field(max_length=100, description="who raised it, like a node name or scheduler")
    text: Text = Field(description="the alert text the learner reads")


class Hint(Strict):
    after: Annotated[Duration, seconds(0, 12 * HOUR, "longer than the longest night")] = Field(
        0.0, description="the hint unlocks this long after the night starts, 0s to 12h"
    )
    text: Text = Field(description="what `hint` shows")


ScoreComponent = Literal[
    "progress",
    "recovered",
    "time_to_recovery",
    "integrity",
    "collateral",
    "plan",
    "discipline",
]


class Expectation(Strict):
    """What `drill test` checks when it plays a runbook headless at each test seed."""

    recovered: bool | None = Field(None, description="whether the job must end up recovered")
    score_min: float | None = Field(None, ge=0, le=100, description="lowest total score allowed")
    score_max: float | None = Field(None, ge=0, le=100, description="highest total score allowed")
    loses_in: list[ScoreComponent] = Field(
        default_factory=list,
        description="the component where this runbook loses the most points against the"
        " reference (name several if they tie)",
    )
    steps_behind_max: int | None = Field(
        None,
        ge=0,
        le=1_000_000,
        description="for the reference: the most effective steps behind the undisturbed run it"
        " may end",
    )
    backend: Literal["any", "replica"] = Field(
        "any",
        description="any: checked on every backend; replica: only where the replica really"
        " trains (its lesson is in the loss), skipped with --backend sim",
    )


class GradedRunbook(Strict):
    name: Name = Field(description="a short name, shown in `drill test` reports")
    why: Text = Field(description="what is wrong with it, for the debrief")
    actions: list[Annotated[str, Field(max_length=500)]] = Field(
        min_length=1, max_length=200, description="timed action lines, written like the reference"
    )
    expect: Expectation = Field(Expectation(), description="what `drill test` checks for it")
    discipline: Literal["reference", "own"] = Field(
        "reference",
        description="score it with the reference's acknowledgements and notes (so it loses"
        " where its mistake is), or with its own",
    )


class Scoring(Strict):
    weights: dict[ScoreComponent, Annotated[float, Field(ge=0, le=100)]] = Field(
        default_factory=dict,
        description="component weights, 0 to 100; unset ones keep their defaults",
    )
    paging_target: Annotated[
        Duration, seconds(10, 12 * HOUR, "from seconds to the longest night")
    ] = Field(600.0, description="acknowledge a page within this long, 10s to 12h")


# What a takeaway's `when` may ask of the night: a small closed list, so that a takeaway that
# tells the night's story is shown only on the nights that had it. The engine decides each
# one from the night's own record (drill/engine/night_facts.py).
NightFact = Literal["crash_looped", "no_crash_loop"]


class Takeaway(Strict):
    text: Text = Field(description="the sentence")
    when: NightFact = Field(
        description="shown only when this held on the learner's night: crash_looped (the"
        " learner's job failed at start-up, before it trained, twice or more) or no_crash_loop"
    )


class Debrief(Strict):
    takeaways: list[Text | Takeaway] = Field(
        default_factory=list,
        description="sentences the learner should keep from the night; one that tells what"
        " happened can say `when` it is true ({text, when})",
    )
    opinion: str = Field("", max_length=MAX_TEXT, description="the opinion checkpoint question")


class Incident(Strict):
    schema_version: StrictInt = Field(alias="schema", description="incident file format version")
    id: Name = Field(description="the incident's id: lower case letters, digits and -")
    title: Annotated[str, Field(min_length=1, max_length=120)] = Field(
        description="one line that names the night"
    )
    difficulty: Literal["tutorial", "easy", "medium", "hard"] = Field(
        "medium", description="tutorial, easy, medium or hard"
    )
    tags: list[Name] = Field(
        default_factory=list, max_length=20, description="topics, like health, storage or gang"
    )
    order: StrictInt = Field(
        100, ge=0, le=10000, description="place in the suggested learning path"
    )
    estimated_minutes: StrictInt = Field(
        10, ge=1, le=600, description="about how long a learner needs"
    )
    briefing: Text = Field(description="what the learner knows before the night starts")
    night: Night = Field(Night(), description="when the night starts and how long it lasts")
    cluster: Cluster = Field(description="islands, leaves, nodes and GPUs, and repair times")
    jobs: list[JobSpec] = Field(
        min_length=1,
        max_length=500,
        description="the learner's job (yours: true) and any other named jobs",
    )
    background: Background = Field(
        Background(), description="other teams' work, drawn from the seed"
    )
    storage: list[Volume] = Field(
        default_factory=list, max_length=20, description="shared volumes checkpoints can go to"
    )
    plan: Plan | None = Field(
        None, description="the pre-shift plan: job settings the learner chooses before the night"
    )
    faults: list[FaultSpec] = Field(
        default_factory=list, max_length=200, description="what goes wrong, and when"
    )
    noise: list[Noise] = Field(
        default_factory=list,
        max_length=200,
        description="alerts that need no action: red herrings for triage practice",
    )
    hints: list[Hint] = Field(
        default_factory=list, max_length=50, description="hints that `hint` reveals, in order"
    )
    reference: list[Annotated[str, Field(max_length=500)]] = Field(
        default_factory=list, description="the reference solution: timed action lines"
    )
    scoring: Scoring = Field(Scoring(), description="component weights and the paging target")
    reference_expect: Expectation = Field(
        default_factory=lambda: Expectation(recovered=True),
        description="what the reference solution must achieve",
    )
    runbooks: list[GradedRunbook] = Field(
        default_factory=list, max_length=20, description="plausible wrong runbooks, graded"
    )
    seeds: list[Annotated[StrictInt, Field(ge=0, le=2**32 - 1)]] = Field(
        default_factory=lambda: [1, 2],
        min_length=1,
        max_length=20,
        description="test seeds, 0 to 4294967295",
    )
    debrief: Debrief = Field(Debrief(), description="what the learner reads after the night")
    season: Season | None = Field(
        None,
        description="weeks of the fleet's failures played by standing policies (`drill season`)",
    )

    @field_validator("schema_version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value > SCHEMA_VERSION:
            raise ValueError(
                f"this file is written for incident schema {value}, newer than this drill reads"
                f" ({SCHEMA_VERSION}); upgrade drill to load it"
            )
        if value < 1:
            raise ValueError(f"incident schemas start at 1; write `schema: {SCHEMA_VERSION}`")
        if value != SCHEMA_VERSION:
            # The loader migrates older files before they get here; data built in code does not.
            raise ValueError(
                f"this is incident schema {value}; `drill migrate FILE` brings it to"
                f" {SCHEMA_VERSION}, or load it with drill.incident.loader.load_incident"
            )
        return value

    @model_validator(mode="after")
    def _one_learner_job(self, info: ValidationInfo) -> Incident:
        second = _second_use([job.name for job in self.jobs])
        if second is not None:
            name = self.jobs[second].name
            raise located(
                f"job name {name!r} is used twice; give each job its own name",
                "jobs",
                second,
                "name",
            )
        mine = [index for index, job in enumerate(self.jobs) if job.yours]
        if not mine:
            raise located(
                "no job has `yours: true`; mark exactly one job, the one the learner runs", "jobs"
            )
        if len(mine) > 1:
            first = self.jobs[mine[0]].name
            raise located(
                f"a second job with `yours: true`; only one job is the learner's ({first!r}"
                " already is), so remove it here",
                "jobs",
                mine[1],
                "yours",
            )
        second = _second_use([fault.id for fault in self.faults])
        if second is not None:
            name = self.faults[second].id
            raise located(
                f"fault id {name!r} is used twice; give each fault its own id",
                "faults",
                second,
                "id",
            )
        if in_season(info.context):
            return self  # the per-night budgets are a night's; a season's world has its bounds
        self._within_a_night()
        return self._season_world_holds()

    def _season_world_holds(self) -> Incident:
        """The world the season plays (`season_world`, at the end of this file) must hold every rule an
        incident file does, with the season's length bound instead of the night's."""
        if self.season is None:
            return self
        broken = check_season_world(season_world(self, self.season.policies))
        if broken is not None:
            message, where = broken
            raise located(f"the season's world breaks a rule: {message}", *where)
        return self

    def _within_a_night(self) -> Incident:
        """Budgets for the whole night, where no single field can say it (incidents/README.md,
        "What a night can hold")."""
        length = self.night.length
        stepping = [min(job.steps, length / job.step_time) for job in self.jobs]
        if sum(stepping) > MAX_COUNTED_STEPS:
            worst = max(range(len(self.jobs)), key=lambda i: stepping[i])
            raise located(
                f"the named jobs would run about {sum(stepping):.0f} steps in this night; the"
                f" engine runs at most {MAX_COUNTED_STEPS} in one night, so use fewer steps,"
                " a longer step_time, fewer jobs or a shorter night",
                "jobs",
                worst,
                "step_time",
            )
        mine = next(i for i, job in enumerate(self.jobs) if job.yours)
        if stepping[mine] > MAX_REPLICA_STEPS:
            raise located(
                f"the learner's job would train about {stepping[mine]:.0f} real steps in this"
                f" night; the replica trains at most {MAX_REPLICA_STEPS} in one night, so use"
                " fewer steps or a longer step_time",
                "jobs",
                mine,
                "steps",
            )
        queued = len(self.jobs) + self.background.arrivals_per_hour * length / HOUR
        if queued > MAX_QUEUED_JOBS:
            raise located(
                f"about {queued:.0f} jobs pass through the queue in this night; the engine runs"
                f" at most {MAX_QUEUED_JOBS} in one night, so lower"
                " background.arrivals_per_hour or shorten the night",
                "background",
                "arrivals_per_hour",
            )
        return self

    @property
    def learner_job(self) -> JobSpec:
        return next(job for job in self.jobs if job.yours)


def _second_use(names: list[str]) -> int | None:
    """The index of the first entry whose name an earlier entry already has."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        if name in seen:
            return index
        seen.add(name)
    return None


# -- the world a season plays ----------------------------------------------------------------
# The world a season plays in: the incident with the season's length and policies applied,
# validated again with the season's own bounds.
#
# A season copies the night's incident and changes it: the season's length as the horizon, the
# policies' spares on every island, their checkpoint cadence, retention and restarts on the
# learner's job. A copy made with `model_copy` is not validated, which is how a 28-day length once
# passed the night's 12-hour bound unseen; so is a policy that pushes the cluster past its node cap.
# `check_season_world` validates the copy again, with the night's length held to the season's bound (1 day to
# 90 days) instead of the night's and the per-night budgets (incidents/README.md, "What a night can
# hold") left to nights, and names the season field that broke a rule.
#
# It lives here, with the Incident model, because the model's own validation checks it
# (`Incident._season_world_holds`) and it validates Incidents in turn: in a module of its own,
# the two would import each other.


SEASON = "season"  # the validation context's key: the world is a season's, not a night's
CHANGED = ("night", "cluster", "jobs")  # what `season_world` changes in the incident
DEFAULT_RESTARTS = 3  # automatic restarts per interruption, when the job's retry policy has none

# Where a rule broken in the season's world comes from, in the incident file: the prefix of the
# world's loc, and the season field that set it.
_SOURCES: tuple[tuple[tuple, tuple], ...] = (
    (("night", "length"), ("season", "length")),
    (("cluster",), ("season", "policies", "spares")),
    (("checkpoint", "every"), ("season", "policies", "checkpoint_every")),
    (("checkpoint", "keep"), ("season", "policies", "keep")),
    (("retry",), ("season", "policies", "auto_restart")),
)


def season_world(incident: Incident, policies: Policies) -> Incident:
    """The incident as the season's world sees it: the season's length as its horizon, the
    night's own faults, noise and hints left out, and the policies applied to the cluster's
    spares and the learner's job. Not validated: `check` does that."""
    season = incident.season
    if season is None:
        raise ValueError(f"incident {incident.id} has no `season:` section")
    islands = incident.cluster.islands
    if policies.spares is not None:
        islands = [i.model_copy(update={"spares": policies.spares}) for i in islands]
    cluster = incident.cluster.model_copy(update={"islands": islands})
    jobs = []
    for spec in incident.jobs:
        if spec.yours:
            checkpoint = spec.checkpoint.model_copy(
                update={
                    "every": policies.checkpoint_every or spec.checkpoint.every,
                    "keep": policies.keep or spec.checkpoint.keep,
                }
            )
            restarts = (spec.retry.max_restarts or DEFAULT_RESTARTS) if policies.auto_restart else 0
            retry = spec.retry.model_copy(update={"max_restarts": restarts})
            # The season's job is the long run: it trains for the whole season.
            steps = max(spec.steps, math.ceil(season.length / spec.step_time) + 1)
            spec = spec.model_copy(
                update={"checkpoint": checkpoint, "retry": retry, "steps": steps}
            )
        jobs.append(spec)
    night = incident.night.model_copy(update={"length": season.length})
    return incident.model_copy(
        update={
            "night": night,
            "cluster": cluster,
            "jobs": jobs,
            "faults": [],
            "noise": [],
            "hints": [],
        }
    )


def check_season_world(world: Incident) -> tuple[str, tuple[str | int, ...]] | None:
    """The first rule the season's world breaks, as (message, the season field to fix), or None.

    What the season changed (the night, the cluster, the jobs) is dumped and validated again as
    a season's (the context), inside the whole incident, so its field bounds and the incident's
    cross-field rules hold for it as they would for a file; the rest goes in as the models the
    file's own validation made."""
    data = {
        (field.alias or name): getattr(world, name) for name, field in Incident.model_fields.items()
    }
    for name in CHANGED:
        data[name] = world.model_dump(by_alias=True, include={name})[name]
    try:
        Incident.model_validate(data, context={SEASON: True})
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        loc = tuple(error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        return message, _source(loc)
    return None


def _source(loc: tuple) -> tuple[str | int, ...]:
    for prefix, source in _SOURCES:
        if loc[: len(prefix)] == prefix or _after_job(loc, prefix):
            return source
    return ("season",)


def _after_job(loc: tuple, prefix: tuple) -> bool:
    """A loc inside a job (`jobs`, index, ...) that continues with `prefix`."""
    return len(loc) > 2 and loc[0] == "jobs" and loc[2 : 2 + len(prefix)] == prefix


def in_season(context: object) -> bool:
    return isinstance(context, dict) and bool(context.get(SEASON))

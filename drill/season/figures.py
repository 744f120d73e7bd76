"""What a season comes to: effective training time, interruptions and time lost by cause, and the
storage the checkpoints took.

Every second of the season is in exactly one row of the time account: kept (training that is
still part of the model at the end), lost per cause (work since the last checkpoint that an
interruption threw away, plus the time until training resumed), checkpoint writes, the first
start, and what is left over (slow steps behind a flapping link, writes cut short). The rows add
up to the season's length by construction; `other` is measured as the remainder, so a figure that
drifts shows there.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from drill.incident.models import Incident
from drill.incident.season import CAUSE_TEXT, Policies
from drill.season.play import SAMPLE_EVERY, SeasonWorld, prepared, season_of
from drill.season.progress import kept_steps as _kept
from drill.sim.checkpointing import checkpoint_size
from drill.sim.events import CheckpointEvent, JobStateChanged
from drill.sim.jobs import Job


@dataclass(frozen=True)
class Interruption:
    time: float
    cause: str
    node: str
    lost_work: float  # seconds of training since the last checkpoint, thrown away
    down: float  # seconds from the strike until training resumed (or the season ended)

    @property
    def lost(self) -> float:
        return self.lost_work + self.down


@dataclass(frozen=True)
class CauseRow:
    cause: str
    text: str
    interruptions: int
    lost_work: float
    down: float

    @property
    def lost(self) -> float:
        return self.lost_work + self.down


@dataclass
class SeasonFigures:
    incident: str
    seed: int
    length: float
    policies: dict
    effective: float  # seconds of training kept at the end
    start: float  # seconds before the first step could start
    checkpoint_writes: int
    checkpoint_time: float
    other: float
    causes: list[CauseRow]
    interruptions: list[Interruption]
    checkpoint_size: int
    storage_peak: int  # bytes the job's checkpoints held at most
    storage_mean: float  # bytes held on average over the season
    storage_written: int  # bytes written in all
    strikes: int  # interruptions anywhere on the fleet, the learner's job or not
    curve: list[tuple[float, float]] = field(default_factory=list)  # (time, effective) hourly
    node_mtbf: float = 0.0  # seconds between interruptions of one node, as the season states it
    scale: int = 1  # nodes of a bigger fleet each node stands for in the failure count

    @property
    def effective_share(self) -> float:
        return self.effective / self.length

    @property
    def lost(self) -> float:
        return sum(row.lost for row in self.causes)

    def account(self) -> list[tuple[str, float]]:
        """The time account: every row, in seconds, adding up to the season's length."""
        rows = [("kept training", self.effective), ("first start", self.start)]
        rows += [(f"lost to {row.cause}", row.lost) for row in self.causes]
        rows += [("checkpoint writes", self.checkpoint_time), ("other", self.other)]
        return rows

    def to_json(self) -> dict:
        out = asdict(self)
        out["effective_share"] = round(self.effective_share, 6)
        out["lost"] = self.lost
        out["causes"] = [{**asdict(row), "lost": row.lost} for row in self.causes]
        out["interruptions"] = [{**asdict(i), "lost": i.lost} for i in self.interruptions]
        out["curve"] = [list(point) for point in self.curve]
        out["account"] = [{"row": name, "seconds": seconds} for name, seconds in self.account()]
        return _rounded(out)


def _rounded(value):
    """Floats to 3 decimals, so a JSON figure reads the same whatever the float's last bits."""
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_rounded(item) for item in value]
    return value


def policies_with(incident: Incident, overrides: dict | None = None) -> Policies:
    base = season_of(incident).policies
    return base.model_copy(update=overrides or {}) if overrides else base


def play_season(incident: Incident, seed: int, policies: Policies | None = None) -> SeasonFigures:
    return play_season_world(incident, seed, policies)[1]


def play_season_world(
    incident: Incident, seed: int, policies: Policies | None = None
) -> tuple[SeasonWorld, SeasonFigures]:
    """The season's world as it ended, and its figures (tests read the world's rules)."""
    season = season_of(incident)
    policies = policies or season.policies
    world_incident = prepared(incident, policies)
    spec = world_incident.learner_job
    # The policies as played: what the job and the islands fell back to, written in.
    policies = policies.model_copy(
        update={
            "checkpoint_every": spec.checkpoint.every,
            "keep": spec.checkpoint.keep,
            "spares": policies.spares
            if policies.spares is not None
            else min(i.spares for i in world_incident.cluster.islands),
        }
    )
    world = SeasonWorld(world_incident, seed, season, policies)
    job = world.mine
    curve: list[tuple[float, float]] = []
    held: list[int] = []

    def sample():
        while True:
            curve.append((world.now, _kept(job) * job.step_time))
            held.append(sum(r.size for r in job.checkpoints.live()))
            yield world.env.timeout(SAMPLE_EVERY)

    world.env.process(sample())
    world.env.run(until=season.length)
    curve.append((world.now, _kept(job) * job.step_time))
    held.append(sum(r.size for r in job.checkpoints.live()))
    return world, _figures(incident, seed, world, job, curve, held, policies)


def _figures(incident, seed, world: SeasonWorld, job: Job, curve, held, policies) -> SeasonFigures:
    """The time account, window by window: from each strike on the job to the next one (or the
    season's end) the time is down, work redone, new training kept, or checkpoint writes; the
    first two are the strike's. Before the first strike: the first start, training and writes."""
    length = world.now
    timeline = [e for e in world.timeline if e.subject == job.name]
    starts = [e for e in timeline if isinstance(e, JobStateChanged) and e.started_training]
    saves = [e.time for e in timeline if isinstance(e, CheckpointEvent) and "saved" in e.text]
    size = checkpoint_size(world, job)
    write = _write_seconds(world, job, size)
    effective = _kept(job) * job.step_time
    first_start = starts[0].time if starts else length
    hits = [s for s in world.strikes if s.hit]
    interruptions = []
    for index, strike in enumerate(hits):
        later = hits[index + 1] if index + 1 < len(hits) else None
        end = later.time if later else length
        kept_end = later.kept_before if later else effective
        writes = sum(1 for t in saves if strike.time <= t < end) * write
        lost = (end - strike.time) - (kept_end - strike.kept_before) - writes
        # The work in flight is thrown away when the attempt it struck ends; a stall that
        # clears by itself (the attempt goes on) only cost the time it stood still.
        struck = job.attempts[strike.attempt - 1] if strike.attempt else None
        ended = struck is not None and struck.end is not None and struck.end <= end
        lost_work = max(0.0, strike.kept_before - strike.kept_after) if ended else 0.0
        interruptions.append(
            Interruption(strike.time, strike.cause, strike.node, lost_work, lost - lost_work)
        )
    causes = []
    for item in season_of(incident).causes:
        mine = [i for i in interruptions if i.cause == item.cause]
        causes.append(
            CauseRow(
                item.cause,
                CAUSE_TEXT[item.cause],
                len(mine),
                sum(i.lost_work for i in mine),
                sum(i.down for i in mine),
            )
        )
    named = effective + first_start + sum(r.lost for r in causes) + len(saves) * write
    return SeasonFigures(
        incident=incident.id,
        seed=seed,
        length=length,
        policies=policies.model_dump(),
        effective=effective,
        start=first_start,
        checkpoint_writes=len(saves),
        checkpoint_time=len(saves) * write,
        other=length - named,
        causes=causes,
        interruptions=interruptions,
        checkpoint_size=size,
        storage_peak=max(held, default=0),
        storage_mean=sum(held) / len(held) if held else 0.0,
        storage_written=len(saves) * size,
        strikes=len(world.strikes),
        curve=curve,
        node_mtbf=world.season.mtbf or world.incident.cluster.mtbf or 0.0,
        scale=world.season.scale,
    )


def _write_seconds(world: SeasonWorld, job: Job, size: int) -> float:
    volume = world.volumes.get(job.policy.volume) if job.policy.volume else None
    return size / volume.spec.write_bandwidth if volume else job.policy.write_time

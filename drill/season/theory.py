"""The simulator checked against checkpoint theory (Young's interval).

With failures at random (mean time between failures M), a checkpoint that costs C and a restart
that costs R, the share of time wasted at checkpoint interval T is close to C/T + (T/2 + R)/M, least
near Young's T = sqrt(2 C M). Here one job runs on a small quiet cluster whose nodes fail at random,
over many seeded nights, with nothing but its retry policy acting; the waste each interval really
cost is counted from the steps it kept.

C, R and M come from the rig's own settings, not from the simulator's methods, so a simulator that
charged a restart less than its settings say (a restart that skips the checkpoint read) shows up as
waste below the curve.

The waste is counted against the training time kept (wasted seconds per useful second), the measure
the curve's C/T term is written in: a checkpoint of C per interval T of training costs exactly C/T of
it. Measured against wall time instead, that term is C/(T + C), which at short intervals lies further
from the curve than the noise of a few hundred nights.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from drill.incident.models import SCHEMA_VERSION, Incident
from drill.season.progress import kept_steps as _kept
from drill.sim.rng import substream
from drill.sim.world import World

JOB = "theory-job"
NIGHT = 12 * 3600.0
STEP_TIME = 60.0
WRITE_SECONDS = 60.0  # C: one checkpoint of the rig's job on the rig's volume
READ_SECONDS = 1800.0  # the checkpoint read at each restart, the largest part of R
NODE_MTBF = 30 * 3600.0  # M: the job sits on one node, so this is also the job's MTBF
# A failed node is back soon: the random clock draws its next wait from the nodes up at the time,
# so the fewer are down, the closer each node's failure rate stays to 1/M.
NODE_RETURNS_AFTER = 300.0
CHECKPOINT_BYTES = 7e9 * 14  # 7B parameters, bf16 weights and fp32 Adam state
# How far from Young's interval the sweep goes, as the issue asks: at least 7, from 0.25x to 4x.
FACTORS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0)


@dataclass(frozen=True)
class Costs:
    """C, R and M in seconds, as the rig's settings state them."""

    checkpoint: float
    restart: float
    mtbf: float
    step_time: float

    @property
    def young(self) -> float:
        return math.sqrt(2 * self.checkpoint * self.mtbf)

    def expected_waste(self, interval: float) -> float:
        """C/T + (T/2 + R)/M: first-order checkpoint theory."""
        return self.checkpoint / interval + (interval / 2 + self.restart) / self.mtbf

    def every_steps(self, factor: float) -> int:
        """The checkpoint cadence in whole steps nearest `factor` times Young's interval."""
        return max(1, round(factor * self.young / self.step_time))


def rig(*, read_seconds: float = READ_SECONDS, mtbf: float = NODE_MTBF) -> Incident:
    """The rig: eight quiet 8-GPU nodes, one 8-GPU job that never finishes within a night, nodes
    failing at random at `mtbf`, and a volume whose bandwidths set C and the checkpoint read."""
    return Incident.model_validate(
        {
            "schema": SCHEMA_VERSION,
            "id": "theory-rig",
            "title": "Checkpoint theory rig",
            "briefing": "One job, nodes failing at random, nobody at the keyboard.",
            "night": {"start": "00:00", "length": NIGHT},
            "cluster": {
                "gpus_per_node": 8,
                "islands": [{"name": "a", "leaves": 1, "nodes_per_leaf": 8}],
                "heartbeat_timeout": 30.0,
                "scheduling_interval": 30.0,
                "startup": 60.0,
                "rendezvous": 30.0,
            },
            "storage": [
                {
                    "name": "ckpt",
                    "capacity": "1PB",
                    "read_bandwidth": f"{CHECKPOINT_BYTES / read_seconds / 1e6:.3f}MB/s",
                    "write_bandwidth": f"{CHECKPOINT_BYTES / WRITE_SECONDS / 1e6:.3f}MB/s",
                }
            ],
            "jobs": [
                {
                    "name": JOB,
                    "yours": True,
                    "gpus": 8,
                    "steps": 100_000,
                    "step_time": STEP_TIME,
                    "model_params": 7e9,
                    "bytes_per_param": 14.0,
                    "retry": {"max_restarts": 100, "backoff": 0.0},
                    "checkpoint": {"every": 50, "keep": 2, "volume": "ckpt"},
                }
            ],
            "background": {"utilization": 0.0, "arrivals_per_hour": 0.0},
            "faults": [
                {
                    "id": "failures",
                    "kind": "random_failures",
                    "at": 0.0,
                    "mtbf": mtbf,
                    "duration": NODE_RETURNS_AFTER,
                    # Every failure the host stopping: R below prices that one kind.
                    "mix": "host",
                }
            ],
        }
    )


def costs(incident: Incident) -> Costs:
    """C, R and M from the rig's settings. R is what a restart waits through: the heartbeat
    timeout that notices the dead node, the retry backoff, half a scheduling interval on average
    for the next pass, start-up, rendezvous and the checkpoint read."""
    cluster = incident.cluster
    job = incident.learner_job
    volume = next(v for v in incident.storage if v.name == job.checkpoint.volume)
    size = job.model_params * job.bytes_per_param
    restart = (
        cluster.heartbeat_timeout
        + job.retry.backoff
        + cluster.scheduling_interval / 2
        + cluster.startup
        + cluster.rendezvous
        + size / volume.read_bandwidth
    )
    mtbf = next(f.mtbf for f in incident.faults if f.kind == "random_failures")
    return Costs(size / volume.write_bandwidth, restart, mtbf, job.step_time)


@dataclass(frozen=True)
class Night:
    window: float  # seconds from the job's first checkpoint to the night's end
    useful: float  # training seconds the job kept
    failures: int  # attempts that ended in a failure

    @property
    def wasted(self) -> float:
        return self.window - self.useful


def play_night(incident: Incident, seed: int) -> Night:
    """One night, counted over a window that starts at a random moment of the job's first
    checkpoint interval (so the cadence's phase there is as likely as any) and runs to the
    night's end. Before the first checkpoint a restart starts from scratch and reads nothing,
    which is not the restart the theory prices; and a window that started on a checkpoint would
    end, on average, part way into an interval whose failures are not yet paid for."""
    world = World(incident, seed)
    job = world.jobs[JOB]
    cycle = job.policy.every * job.step_time + costs(incident).checkpoint
    offset = substream(seed, "theory-window").uniform(0.0, cycle)
    window: dict[str, float] = {}

    def open_window():
        while job.checkpoints.latest_step is None:
            yield world.env.timeout(job.step_time)
        yield world.env.timeout(offset)
        window["start"] = world.now
        window["kept"] = _kept(job)

    world.env.process(open_window())
    world.run_until(incident.night.length)
    if "start" not in window:
        return Night(0.0, 0.0, 0)
    failures = sum(
        1
        for a in job.attempts
        if a.ended_as in ("failed", "node_fail") and a.end is not None and a.end > window["start"]
    )
    kept = (_kept(job) - window["kept"]) * job.step_time
    return Night(incident.night.length - window["start"], kept, failures)


@dataclass(frozen=True)
class Measurement:
    factor: float
    every: int
    interval: float  # T in seconds
    waste: float  # wasted seconds per useful second, over all nights
    se: float  # its standard error across nights
    expected: float  # the curve at T
    nights: int
    failures: int

    @property
    def z(self) -> float:
        return (self.waste - self.expected) / self.se if self.se else math.inf


def measure(incident: Incident, every: int, seeds: list[int], factor: float = 0.0) -> Measurement:
    """Play the rig at a cadence of `every` steps over the seeded nights. The waste is a ratio of
    sums (wasted over useful); its standard error is the ratio estimator's, across nights."""
    theory = costs(incident)
    job = incident.learner_job
    spec = job.model_copy(update={"checkpoint": job.checkpoint.model_copy(update={"every": every})})
    variant = incident.model_copy(update={"jobs": [spec]})
    nights = [play_night(variant, seed) for seed in seeds]
    wasted = sum(n.wasted for n in nights)
    useful = sum(n.useful for n in nights)
    ratio = wasted / useful
    n = len(nights)
    mean_useful = useful / n
    spread = sum((night.wasted - ratio * night.useful) ** 2 for night in nights) / (n - 1)
    se = math.sqrt(spread / n) / mean_useful
    interval = every * theory.step_time
    return Measurement(
        factor,
        every,
        interval,
        ratio,
        se,
        theory.expected_waste(interval),
        n,
        sum(night.failures for night in nights),
    )


def sweep(incident: Incident, seeds: list[int], factors=FACTORS) -> list[Measurement]:
    """Every factor of Young's interval over the same seeded nights (the same failures hit each
    cadence, so the comparison between cadences is sharper than the noise of each)."""
    theory = costs(incident)
    return [measure(incident, theory.every_steps(f), seeds, f) for f in factors]


def fitted_minimum(points: list[Measurement]) -> float:
    """Where the measured waste is least: the interval minimising a least-squares fit of
    A/T + B*T + D to the measurements, weighted by their standard errors."""
    rows = [(1 / p.interval, p.interval, 1.0) for p in points]
    weights = [1 / (p.se**2) if p.se else 1.0 for p in points]
    values = [p.waste for p in points]
    a, b, _ = _weighted_least_squares(rows, values, weights)
    if a <= 0 or b <= 0:
        return math.nan  # no minimum inside: the measurements do not look like the theory
    return math.sqrt(a / b)


def _weighted_least_squares(rows, values, weights) -> list[float]:
    size = len(rows[0])
    normal = [[0.0] * size for _ in range(size)]
    rhs = [0.0] * size
    for row, value, weight in zip(rows, values, weights, strict=True):
        for i in range(size):
            rhs[i] += weight * row[i] * value
            for j in range(size):
                normal[i][j] += weight * row[i] * row[j]
    return _solve(normal, rhs)


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting, for the 3 by 3 normal equations."""
    size = len(rhs)
    m = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, size):
            f = m[r][col] / m[col][col]
            for c in range(col, size + 1):
                m[r][c] -= f * m[col][c]
    out = [0.0] * size
    for r in range(size - 1, -1, -1):
        out[r] = (m[r][size] - sum(m[r][c] * out[c] for c in range(r + 1, size))) / m[r][r]
    return out


def disagreements(points: list[Measurement], young: float) -> list[str]:
    """What in the measurements disagrees with the theory: a waste more than two standard errors
    off the curve, or a least waste further than 20 percent from Young's interval."""
    out = [
        f"at {p.factor:g}x Young's interval (every {p.every} steps) the waste was {p.waste:.4f},"
        f" {abs(p.z):.1f} standard errors {'below' if p.z < 0 else 'above'} the curve's"
        f" {p.expected:.4f}"
        for p in points
        if abs(p.z) > 2
    ]
    least = fitted_minimum(points)
    if math.isnan(least) or abs(least / young - 1) > 0.2:
        out.append(
            f"the measured waste is least at {least / young:.2f}x Young's interval, not within"
            " 20 percent of it"
        )
    return out


# The seeds the quoted measurements come from (drill/season/measured.py) and the slow test uses.
SEEDS = tuple(range(1, 301))


def measured_module(points: list[Measurement], young: float) -> str:
    """drill/season/measured.py's text: the sweep, as the cadence advice quotes it."""
    rows = "\n".join(
        f"    ({p.factor!r}, {p.every}, {p.interval!r}, {round(p.waste, 5)!r}, {round(p.se, 5)!r},"
        f" {round(p.expected, 5)!r}, {p.failures}),"
        for p in points
    )
    return (
        '"""The simulator against checkpoint theory, measured: written by\n'
        "`python -m drill.season.theory`, checked by tests/theory/test_checkpoint_theory.py.\n\n"
        "Each row: factor of Young's interval, cadence in steps, interval T in seconds, measured\n"
        'waste, its standard error, the curve C/T + (T/2 + R)/M at T, failures counted."""\n\n'
        f"NIGHTS = {len(SEEDS)}\n"
        f"CHECKPOINT = {round(costs(rig()).checkpoint, 3)!r}\n"
        f"RESTART = {round(costs(rig()).restart, 3)!r}\n"
        f"MTBF = {costs(rig()).mtbf!r}\n"
        f"YOUNG = {round(young, 3)!r}\n"
        f"LEAST_AT = {round(fitted_minimum(points) / young, 3)!r}  # x Young's interval\n"
        f"ROWS = (\n{rows}\n)\n"
    )


if __name__ == "__main__":
    import sys

    rig_incident = rig()
    sweep_points = sweep(rig_incident, list(SEEDS))
    sys.stdout.write(measured_module(sweep_points, costs(rig_incident).young))

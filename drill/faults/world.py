"""FaultWorld: everything a fault kind may read in the simulated world and do to it.

A fault kind (drill/faults/NAME.py) is handed the world when it fires and when it picks its
targets, and reaches it only through these protocols: it never imports the simulation, so the
fault kinds sit below drill/sim and the simulation's World satisfies FaultWorld by its shape
(drill/sim/world.py says so to the type checker; tests/sim/test_fault_world.py checks it on a
real world). A kind that needs more of the world adds the member here first, where a reviewer
sees the surface grow.

Members a kind only reads are read-only properties; the flags and counters a kind sets are plain
attributes; lists and dicts it appends to are read-only properties of mutable type. `J` is the
world's own job type: a kind hands back to the world (a crash, a stall, a log line) only jobs
the world gave it.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from drill.faults.pick import Pick
from drill.states import JobState, NodeState

if TYPE_CHECKING:  # a type only: the loader reads the fault kinds before SimPy is needed
    import simpy


class FaultGpu(Protocol):
    @property
    def bus_id(self) -> str: ...
    @property
    def throttles(self) -> dict[str, float]: ...  # cause -> step time factor

    broken: bool
    needs_reset: bool
    remap_pending: bool
    xid: int | None
    held_by: tuple[int, int] | None  # (pid, MiB) of a process that outlived its job
    holder_unkillable: bool  # that process is stuck in the driver: only a reboot ends it
    wrong_results: tuple[int, int] | None  # silent data corruption: (seed, steps until NaN)

    def break_down(self, xid: int, clears_on_reboot: bool) -> None: ...


class FaultHca(Protocol):
    """One InfiniBand port of a node (drill/sim/hca.py)."""

    @property
    def name(self) -> str: ...
    @property
    def up(self) -> bool: ...

    def goes_down(self, symbol_errors: int = ..., rcv_errors: int = ...) -> None: ...
    def comes_up(self) -> None: ...


class FaultNode(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def island(self) -> str: ...
    @property
    def leaf(self) -> str | None: ...
    @property
    def gpu_count(self) -> int: ...
    @property
    def gpus(self) -> Sequence[FaultGpu]: ...
    @property
    def pid_base(self) -> int: ...
    def spawn(self) -> int: ...  # a fresh pid for a process started on the node
    @property
    def address(self) -> str: ...
    @property
    def responsive(self) -> bool: ...
    @property
    def state(self) -> NodeState: ...
    @property
    def kernel_log(self) -> list[tuple[float, str]]: ...
    @property
    def hcas(self) -> Sequence[FaultHca]: ...
    @property
    def journal(self) -> dict[str, list[tuple[float, str]]]: ...  # unit -> journal lines

    link_events: int
    shm_full: bool
    fabric_manager_up: bool
    fabric_manager_fails_on_boot: bool
    image_mismatch: tuple[str, str] | None  # (driver, NCCL) when not the fleet's


class FaultCluster(Protocol):
    @property
    def nodes(self) -> Mapping[str, FaultNode]: ...
    @property
    def leaves(self) -> Mapping[str, tuple[str, list[str]]]: ...  # leaf -> (island, nodes)
    @property
    def gpus_per_node(self) -> int: ...
    @property
    def switch_log(self) -> dict[str, list[tuple[float, str]]]: ...  # leaf -> port events
    @property
    def uplink_downs(self) -> dict[str, int]: ...

    def in_service(self) -> Sequence[FaultNode]: ...


class FaultCheckpoint(Protocol):
    @property
    def step(self) -> int: ...

    condition: str  # ok, torn, corrupt


class FaultCheckpoints(Protocol):
    def live(self) -> Sequence[FaultCheckpoint]: ...
    def get(self, step: int) -> FaultCheckpoint | None: ...


class FaultAttempt(Protocol):
    @property
    def nodes(self) -> Sequence[str]: ...
    @property
    def training(self) -> bool: ...
    @property
    def crashed(self) -> bool: ...
    @property
    def blocked_in(self) -> dict[int, list[str]]: ...  # rank -> the frames it is stuck in


class FaultJob(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def state(self) -> JobState: ...
    @property
    def yours(self) -> bool: ...
    @property
    def training(self) -> bool: ...
    @property
    def nodes(self) -> Sequence[str]: ...
    @property
    def placement(self) -> Sequence[tuple[str, list[int]]]: ...  # node -> GPUs
    @property
    def attempts(self) -> Sequence[FaultAttempt]: ...
    @property
    def current(self) -> FaultAttempt | None: ...
    @property
    def checkpoints(self) -> FaultCheckpoints: ...
    @property
    def bad_data(self) -> list[tuple[int, int]]: ...  # steps whose data is corrupt
    @property
    def code_version(self) -> str: ...  # the training code's version it runs

    def ranks_on(self, node_name: str) -> Sequence[int]: ...


J = TypeVar("J", bound=FaultJob)
J_in = TypeVar("J_in", bound=FaultJob, contravariant=True)  # a job only handed in


class FaultFailures(Protocol[J_in]):
    """What happens to jobs and nodes once a fault strikes (drill/sim/failures.py)."""

    def crash(self, job: J_in, rank: int, error: str, exitcode: int = ...) -> None: ...
    def network_error(
        self, job: J_in, rank: int, peer_address: str, warn: str, raised: str
    ) -> None: ...
    def stall(
        self,
        job: J_in,
        rank: int,
        clears_after: float | None = ...,
        how: str = ...,
        cause: str = ...,
    ) -> None: ...
    def node_down(
        self, node_name: str, duration: float | None, persists: bool, cause: str = ...
    ) -> None: ...
    def flap_leaf(self, leaf: str, cause: str, slowdown: float, duration: float | None) -> None: ...
    def link_lost(self, job: J_in, node_name: str, rank: int, cause: str, held: float) -> None: ...
    def diverge(self, job: J_in, divergence: Any) -> None: ...
    def slow_alert(self, job: J_in, factor: float) -> Generator[Any, Any, None]: ...
    def repaired_by_automation(
        self, node_name: str, duration: float | None, cause: str
    ) -> None: ...


class FaultVolume(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def quotas(self) -> dict[str, int]: ...  # team -> bytes
    @property
    def slowdowns(self) -> dict[str, float]: ...  # cause -> factor
    @property
    def rebuild_delay(self) -> dict[str, float]: ...  # cause -> seconds client reads added

    def add_rate(self, now: float, team: str, rate: float) -> None: ...


class FaultTraining(Protocol):
    """The training backend's damage hooks: a checkpoint's bytes, a range of data steps."""

    def corrupt(self, job: str, step: int, seed: int) -> None: ...
    def corrupt_data(self, job: str, first: int, last: int, seed: int) -> None: ...


class FaultLedger(Protocol):
    def record_pick(self, fault_id: str, pick: Pick) -> None: ...


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class _Fleet(Protocol):
    @property
    def mtbf(self) -> float | None: ...


class FaultIncident(Protocol):
    """The two things of the incident file a kind reads at fire time."""

    @property
    def learner_job(self) -> _Named: ...
    @property
    def cluster(self) -> _Fleet: ...


class FaultWorld(Protocol[J]):
    @property
    def now(self) -> float: ...
    @property
    def env(self) -> simpy.Environment: ...  # to run a process that ends the fault later
    @property
    def cluster(self) -> FaultCluster: ...
    @property
    def jobs(self) -> Mapping[str, J]: ...
    @property
    def volumes(self) -> Mapping[str, FaultVolume]: ...
    @property
    def failures(self) -> FaultFailures[J]: ...
    @property
    def training(self) -> FaultTraining: ...
    @property
    def faults(self) -> FaultLedger: ...
    @property
    def incident(self) -> FaultIncident: ...

    def rng(self, name: str) -> random.Random: ...
    def jobs_on_gpu(self, node_name: str, gpu: int) -> Sequence[tuple[J, int]]: ...
    def pid_on_gpu(self, node_name: str, gpu: int) -> int | None: ...  # the process there
    def running_jobs(self) -> Sequence[J]: ...
    def log(self, job: J, rank: int | None, text: str) -> None: ...
    def alert(self, severity: str, source: str, text: str, noise: bool = ...) -> None: ...

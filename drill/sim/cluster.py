"""Fabric islands, leaf switches, nodes and GPUs, with the node states operators know.

Node states follow Slurm: `up` takes work; `cordoned` takes no new work; `draining` takes no new
work while running work finishes, then becomes `drained`; `down` is out (no heartbeat, or swapped
out for repair); `rebooting` comes back `up` after the reboot time. A spare is out of service
until `swap` brings it in.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

from drill.faults.units import write_boot

# The Xid catalogue lives with the gpu_xid fault kind; `health` reads it from here too.
from drill.faults.xids import APP_XIDS, HW_XIDS, XID_NAMES  # noqa: F401
from drill.incident.models import Cluster as ClusterSpec
from drill.incident.naming import layout
from drill.sim.hca import HcaPort, ports_for
from drill.states import OUT_OF_SERVICE, NodeState

SCHEDULABLE = NodeState.UP
NODE_STATES = tuple(NodeState)
UPTIME_DAYS = 9  # nodes the night finds up booted 9 to 19 days before it


class Allocations(dict[str, list[int]]):
    """A node's job -> GPU indexes. Every change names the node in the cluster's `changed` set,
    so the scheduler's free-GPU index (drill/sim/free_index.py) updates that node alone."""

    __slots__ = ("_changed", "_node", "_used")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._changed: set[str] | None = None
        self._node = ""
        # The GPU indexes held, kept until the next change: every start, end and index sync
        # asks the node, and its allocations change far less often than that.
        self._used: frozenset[int] | None = None

    def _bind(self, changed: set[str] | None, node: str) -> None:
        self._changed, self._node = changed, node
        self._touch()

    def _touch(self) -> None:
        self._used = None
        if self._changed is not None:
            self._changed.add(self._node)

    def used(self) -> frozenset[int]:
        """Every GPU index some job holds here (the lists are not changed in place)."""
        used = self._used
        if used is None:
            used = self._used = frozenset(i for indexes in self.values() for i in indexes)
        return used

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self._touch()

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self._touch()

    def pop(self, *args):
        value = super().pop(*args)
        self._touch()
        return value

    def popitem(self):
        item = super().popitem()
        self._touch()
        return item

    def setdefault(self, key, default=None):
        value = super().setdefault(key, default)
        self._touch()
        return value

    def update(self, *args, **kwargs) -> None:
        super().update(*args, **kwargs)
        self._touch()

    def clear(self) -> None:
        super().clear()
        self._touch()


class Throttles(dict[str, float]):
    """A GPU's step time factor per cause of throttling. Every change bumps `version`, shared
    by all GPUs: a job keeps its step factor until a placement or a version changes, so a
    training step does not scan its gang's GPUs when nothing changed (World.step_factor)."""

    __slots__ = ()
    version = 0

    @classmethod
    def _bump(cls) -> None:
        cls.version += 1

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        self._bump()

    def __delitem__(self, key) -> None:
        super().__delitem__(key)
        self._bump()

    def pop(self, *args):
        value = super().pop(*args)
        self._bump()
        return value

    def popitem(self):
        item = super().popitem()
        self._bump()
        return item

    def setdefault(self, key, default=None):
        value = super().setdefault(key, default)
        self._bump()
        return value

    def update(self, *args, **kwargs) -> None:
        super().update(*args, **kwargs)
        self._bump()

    def clear(self) -> None:
        super().clear()
        self._bump()


@dataclass(slots=True)
class Gpu:
    """One GPU. Slotted, and its throttles made when first read: a fleet has tens of thousands
    of GPUs that nothing ever throttles, and each object the collector tracks is walked again
    at every full collection of the night's heap."""

    index: int
    xid: int | None = None  # the last Xid this GPU raised, while it is still broken
    broken: bool = False  # unusable: work placed on it fails
    clears_on_reboot: bool = False
    # Step time factor per cause of throttling (thermal, power): the worst one sets the clock.
    # None stands for none yet: _ThrottlesField makes an empty Throttles when first read.
    throttles: Throttles = None  # type: ignore[assignment]
    # Broken in a way a GPU reset (`reset`) clears, as well as a reboot: Xid 48, 74, 95, 119
    # (drill/faults/xids.py, drill/sim/gpu_state.py).
    needs_reset: bool = False
    # A row remap the next reset applies. Not broken: new work starts on the GPU meanwhile.
    remap_pending: bool = False
    # Memory a process outside any job still holds: (its pid, MiB). A process a crashed rank
    # left behind keeps the device open; a start-up on this GPU runs out of memory. Killing
    # that pid or a reboot frees it; a GPU reset is refused while it lives, as the driver's is.
    held_by: tuple[int, int] | None = None
    # The holder cannot be killed: stuck in the driver in uninterruptible sleep (D state), it
    # ignores even SIGKILL, and only a reboot frees the memory.
    holder_unkillable: bool = False
    # It computes wrong results with no Xid (gpu_sdc): (seed of the error, steps a job trains
    # on it before its loss is NaN). Neither a reset nor a reboot clears it.
    wrong_results: tuple[int, int] | None = None
    # How many times any GPU of this process was set to compute wrong results (never less).
    wrong_ever: ClassVar[int] = 0

    @property
    def throttled(self) -> float:
        throttles = _THROTTLES_SLOT.__get__(self)  # read as stored: none yet makes none
        return max(throttles.values(), default=1.0) if throttles else 1.0

    def break_down(self, xid: int, clears_on_reboot: bool) -> None:
        """A hardware fault: a second one only makes it harder to fix, never easier."""
        self.clears_on_reboot = clears_on_reboot and (self.clears_on_reboot or not self.broken)
        self.broken = True
        self.xid = xid

    @property
    def bus_id(self) -> str:
        # Plausible PCI addresses, one per slot, as the kernel prints them (NVRM, lspci).
        return f"0000:{0x18 + self.index * 0x11:02x}:00.0"

    @property
    def smi_bus_id(self) -> str:
        """The same address as nvidia-smi prints it: an eight-digit domain, upper-case hex."""
        return "0000" + self.bus_id.upper()


@dataclass
class Node:
    name: str
    island: str
    leaf: str | None
    gpus: list[Gpu]
    state: NodeState = NodeState.UP
    state_reason: str = ""
    responsive: bool = True  # sends heartbeats
    last_heartbeat: float = 0.0
    allocations: Allocations = field(default_factory=Allocations)  # job -> gpu indexes
    # The kernel's ring buffer (`dmesg`): kernel lines only, emptied at boot. A line may carry
    # more lines after a newline (a hung task's call trace), printed with the same time.
    kernel_log: list[tuple[float, str]] = field(default_factory=list)
    # systemd's journal of the node's units (`systemctl NODE SERVICE`): unit -> lines, each
    # written as journalctl writes it after the host name, like `systemd[1]: Started ...`.
    journal: dict[str, list[tuple[float, str]]] = field(default_factory=dict)
    # When the running kernel booted, in sim seconds: days before the night (from its name, so
    # every node has its own uptime), or the last reboot's.
    booted_at: float | None = None
    link_events: int = 0
    dead_until_swap: bool = False  # a failure that a reboot does not fix
    # Why it is not answering, by cause (a fault's id): it answers again when none is left.
    down_causes: set[str] = field(default_factory=set)
    out_for_repair: bool = False  # swapped out: no longer part of the cluster
    # When a person took this node out of service while it was healthy, and the GPU-seconds
    # of healthy capacity that has cost so far.
    taken_healthy_at: float | None = None
    healthy_gpu_seconds_taken: float = 0.0
    # A person put it back in service while one of its GPUs was broken: what fails on it now
    # is their doing.
    put_back_broken: bool = False
    pid_base: int = 0
    # The next pid a process started here gets: every start takes a fresh one, as the kernel
    # hands them out, so no two processes of a night share a pid on this node.
    next_pid: int = 0
    # What a start-up on this node meets besides its GPUs (drill/sim/gpu_state.py): /dev/shm
    # full of stale segments, the NVSwitch fabric manager not running.
    shm_full: bool = False
    fabric_manager_up: bool = True
    fabric_manager_fails_on_boot: bool = False
    address: str = ""  # its IP on the compute fabric, as NCCL names a peer
    # Its InfiniBand ports, one HCA per GPU (drill/sim/hca.py): what `ibstat` reads.
    hcas: list[HcaPort] = field(default_factory=list)
    # Its place in the cluster's node order (None until a cluster adds it): its ports' LIDs.
    ordinal: int | None = None
    # Its image's NVIDIA driver and NCCL when they are not the fleet's (version_mismatch): a
    # gang's NCCL start-up with a node on it never completes.
    image_mismatch: tuple[str, str] | None = None

    def __post_init__(self) -> None:
        if self.booted_at is None:
            self.booted_at = -float(UPTIME_DAYS * 86400 + zlib.crc32(self.name.encode()) % 864000)
        # An empty journal is this boot's, written when first read (_JournalField).
        self.__dict__["_journal_boot"] = self.booted_at

    @property
    def gpu_count(self) -> int:
        return len(self.gpus)

    def spawn(self) -> int:
        """A fresh pid for a process that starts on this node."""
        pid = max(self.next_pid, self.pid_base)
        self.next_pid = pid + 1
        return pid

    def used_gpus(self) -> set[int]:
        return set(self.allocations.used())

    def free_gpus(self) -> list[int]:
        used = self.allocations.used()
        if not used:
            return [gpu.index for gpu in self.gpus]
        return [gpu.index for gpu in self.gpus if gpu.index not in used]

    @property
    def schedulable(self) -> bool:
        return self.state == SCHEDULABLE and self.responsive

    @property
    def in_service(self) -> bool:
        return self.state not in OUT_OF_SERVICE


class _ThrottlesField:
    """Gpu.throttles: always a Throttles of its own, made when first read (an empty one given
    is not kept), and every assignment bumps the version (a descriptor, so that setting the
    GPU's other fields costs a plain store). `slot` is the dataclass's own storage."""

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, gpu: Any, owner: type | None = None) -> Any:
        if gpu is None:
            return self
        throttles = self.slot.__get__(gpu)
        if throttles is None:
            throttles = Throttles()
            self.slot.__set__(gpu, throttles)
        return throttles

    def __set__(self, gpu: Any, value: dict[str, float] | None) -> None:
        self.slot.__set__(gpu, Throttles(value) if value else None)
        Throttles.version += 1


class _WrongResultsField:
    """Gpu.wrong_results: setting one counts it in Gpu.wrong_ever, so a training step asks
    its gang's GPUs only once some GPU of this process has computed wrong results."""

    def __init__(self, slot: Any) -> None:
        self.slot = slot

    def __get__(self, gpu: Any, owner: type | None = None) -> Any:
        if gpu is None:
            return self
        return self.slot.__get__(gpu)

    def __set__(self, gpu: Any, value: tuple[int, int] | None) -> None:
        self.slot.__set__(gpu, value)
        if value is not None:
            Gpu.wrong_ever += 1


class _PlacementField:
    """A Node field that decides where work can go (state, heartbeat): a change names the node
    in the cluster's `changed` set, for the free-GPU index."""

    def __init__(self, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, node: Any, owner: type | None = None) -> Any:
        if node is None:
            return self
        return node.__dict__[self.slot]

    def __set__(self, node: Any, value: Any) -> None:
        stored = node.__dict__
        stored[self.slot] = value
        changed = stored.get("_changed")
        if changed is not None:
            changed.add(stored["name"])


class _AllocationsField(_PlacementField):
    """Node.allocations: always an Allocations bound to the cluster's `changed` set."""

    def __set__(self, node: Any, value: Any) -> None:
        if not isinstance(value, Allocations):
            value = Allocations(value)
        stored = node.__dict__
        stored[self.slot] = value
        changed = stored.get("_changed")
        if changed is not None:
            changed.add(stored["name"])
            value._bind(changed, stored["name"])


class _JournalField:
    """Node.journal: left empty, it is the boot's journal, written when first read (the units'
    lines for thousands of nodes that nobody reads were much of building a fleet)."""

    def __get__(self, node: Any, owner: type | None = None) -> Any:
        if node is None:
            return self
        stored = node.__dict__
        journal = stored.get("_journal")
        if journal is None:
            journal = stored["_journal"] = {}
            write_boot(journal, stored["_journal_boot"], fabric_manager_fails=False)
        return journal

    def __set__(self, node: Any, value: dict[str, list[tuple[float, str]]]) -> None:
        node.__dict__["_journal"] = value or None


class _HcasField:
    """Node.hcas: left empty, a node in a cluster has one port per GPU, made when first read
    from its ordinal (Cluster._add sets it); a node in no cluster has none."""

    def __get__(self, node: Any, owner: type | None = None) -> Any:
        if node is None:
            return self
        stored = node.__dict__
        ports = stored.get("_hcas")
        if ports is None:
            ordinal = stored.get("ordinal")
            if ordinal is None:
                return []
            ports = stored["_hcas"] = ports_for(ordinal, len(stored["gpus"]))
        return ports

    def __set__(self, node: Any, value: list[HcaPort]) -> None:
        node.__dict__["_hcas"] = value or None


# The storage of Gpu.throttles as the slotted dataclass made it, before _ThrottlesField wraps it.
_THROTTLES_SLOT = Gpu.__dict__["throttles"]
_DESCRIPTORS: dict[type, dict[str, object]] = {
    # The slotted fields' own descriptors become the storage the wrappers keep.
    Gpu: {
        "throttles": _ThrottlesField(_THROTTLES_SLOT),
        "wrong_results": _WrongResultsField(Gpu.__dict__["wrong_results"]),
    },
    Node: {
        "state": _PlacementField("state"),
        "responsive": _PlacementField("responsive"),
        "allocations": _AllocationsField("allocations"),
        "journal": _JournalField(),
        "hcas": _HcasField(),
    },
}
for _cls, _fields in _DESCRIPTORS.items():
    for _name, _descriptor in _fields.items():
        setattr(_cls, _name, _descriptor)


class Cluster:
    """All nodes by name, in a stable order (islands as declared, then leaf, then index)."""

    def __init__(self, spec: ClusterSpec):
        self.spec = spec
        self.gpus_per_node = spec.gpus_per_node
        self.nodes: dict[str, Node] = {}
        self.islands: dict[str, list[str]] = {}
        self.leaves: dict[str, tuple[str, list[str]]] = {}  # leaf -> (island, nodes)
        # What each leaf switch logged about its ports (the subnet manager's event view), and
        # how often its links went down: a flap shows there, not in the nodes' kernel logs.
        self.switch_log: dict[str, list[tuple[float, str]]] = {}
        self.uplink_downs: dict[str, int] = {}
        # Nodes whose state or allocations changed since the scheduler's index last looked.
        self.changed: set[str] = set()
        # The free-GPU index, a FreeIndex that drill/sim/free_index.py builds on first use (Any:
        # naming the type here would have the cluster import the module that imports it).
        self.free_index: Any = None
        for island in spec.islands:
            self.islands[island.name] = []
        for slot in layout(spec):
            if slot.spare:
                self._add(Node(slot.name, slot.island, None, self._gpus(), state=NodeState.SPARE))
                continue
            assert slot.leaf is not None  # only a spare is behind no leaf
            self._add(Node(slot.name, slot.island, slot.leaf, self._gpus()))
            self.islands[slot.island].append(slot.name)
            self.leaves.setdefault(slot.leaf, (slot.island, []))[1].append(slot.name)

    def _gpus(self) -> list[Gpu]:
        return [Gpu(i) for i in range(self.gpus_per_node)]

    def _add(self, node: Node) -> None:
        node.pid_base = 40000 + 1000 * len(self.nodes)
        node.next_pid = node.pid_base
        node.address = f"10.0.{len(self.nodes) // 200}.{len(self.nodes) % 200 + 10}"
        node.ordinal = len(self.nodes)  # its HCA ports' LIDs follow from it (made when read)
        self.nodes[node.name] = node
        object.__setattr__(node, "_changed", self.changed)
        node.allocations._bind(self.changed, node.name)

    def in_service(self) -> list[Node]:
        return [node for node in self.nodes.values() if node.in_service]

    def spares_in(self, island: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.island == island and n.state == NodeState.SPARE]

    def total_gpus(self) -> int:
        return sum(node.gpu_count for node in self.in_service())

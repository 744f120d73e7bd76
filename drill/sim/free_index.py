"""Free GPUs per usable node, kept up to date by the nodes that change, for placement at scale.

The scheduler's rules (drill/sim/scheduler.py) ask two questions many times a pass: which usable
node has the fewest free GPUs that still fit a job (best fit, ties to the node listed first), and
which island has enough wholly free nodes for a gang. Scanning every node for every pending job
made a pass cost nodes times jobs. This index answers both from buckets instead:

- `buckets[k]`: positions (in the cluster's node order) of usable nodes with exactly k free GPUs,
  sorted, so the best fit is the first position in the lowest bucket that fits;
- `whole[island]`: indexes (in that island's member order) of its usable, wholly free nodes.

Nodes tell the cluster when their state, heartbeat or allocations change (drill/sim/cluster.py
`changed`); `sync` rereads those nodes only. A pass works on a `Scratch`, which takes GPUs (and,
for a reservation, gives running jobs' GPUs back) in the index's own lists without touching the
cluster, and puts them back when the pass is done with it.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Collection, Iterable

from drill.sim.cluster import Cluster

UNUSABLE = -1


class FreeIndex:
    def __init__(self, cluster: Cluster):
        self.cluster = cluster
        self.gpn = cluster.gpus_per_node
        self.names = list(cluster.nodes)
        self.pos = {name: i for i, name in enumerate(self.names)}
        self.count = [UNUSABLE] * len(self.names)
        self.buckets: list[list[int]] = [[] for _ in range(self.gpn + 1)]
        self.whole: dict[str, list[int]] = {island: [] for island in cluster.islands}
        self.usable_in: dict[str, int] = {island: 0 for island in cluster.islands}
        self.usable = 0
        # GPUs of nodes in service (not a spare, not joining): what background sizes fit in.
        self.in_service: list[bool] = [False] * len(self.names)
        self.in_service_gpus = 0
        # node position -> (island, index in that island's member list), for island members.
        self.member: dict[int, tuple[str, int]] = {}
        self.members_seen: dict[str, int] = {}
        self.members_total = 0
        # Counts the syncs that reread a node: equal between two looks, no node changed state,
        # heartbeat or allocations in between (a scheduling pass with nothing else new skips).
        self.version = 0
        # Scratches not yet undone, oldest first (they change the lists above in place).
        self.open: list[Scratch] = []
        self._read_members()
        cluster.changed.update(self.names)
        self.sync()

    def _read_members(self) -> None:
        """Island member lists only grow (a swapped-in spare joins its island's list)."""
        for island, members in self.cluster.islands.items():
            if self.members_seen.get(island) == len(members):
                continue
            self.whole.setdefault(island, [])
            self.usable_in.setdefault(island, 0)
            for index in range(self.members_seen.get(island, 0), len(members)):
                position = self.pos[members[index]]
                self._set(position, UNUSABLE)  # out, then back in as a member
                self.member[position] = (island, index)
                self.cluster.changed.add(members[index])
            self.members_seen[island] = len(members)
        self.members_total = sum(self.members_seen.values())

    def sync(self) -> None:
        if self.open:
            raise RuntimeError("the free-GPU index synced while a scratch of it is open")
        cluster = self.cluster
        if sum(map(len, cluster.islands.values())) != self.members_total:
            self._read_members()
        if not cluster.changed:
            return
        self.version += 1
        changed = list(cluster.changed)  # each node is reread alone: the order does not matter
        cluster.changed.clear()
        for name in changed:
            node = cluster.nodes[name]
            position = self.pos[name]
            if node.in_service != self.in_service[position]:
                self.in_service[position] = node.in_service
                self.in_service_gpus += len(node.gpus) if node.in_service else -len(node.gpus)
            if node.schedulable:
                self._set(position, len(node.free_gpus()))
            else:
                self._set(position, UNUSABLE)

    def _set(self, position: int, count: int) -> None:
        old = self.count[position]
        if old == count:
            return
        member = self.member.get(position)
        if old != UNUSABLE:
            bucket = self.buckets[old]
            del bucket[bisect_left(bucket, position)]
            self.usable -= 1
            if member is not None:
                self.usable_in[member[0]] -= 1
                if old == self.gpn:
                    whole = self.whole[member[0]]
                    del whole[bisect_left(whole, member[1])]
        self.count[position] = count
        if count != UNUSABLE:
            insort(self.buckets[count], position)
            self.usable += 1
            if member is not None:
                self.usable_in[member[0]] += 1
                if count == self.gpn:
                    insort(self.whole[member[0]], member[1])

    def positions(self, names: Collection[str]) -> frozenset[int]:
        return frozenset(self.pos[name] for name in names if name in self.pos)

    def scratch(self) -> Scratch:
        return Scratch(self)

    def ever_fits(self, world: int, skip: frozenset[int]) -> bool:
        """Could a job of `world` GPUs fit if nothing ran, on the usable nodes it may use?"""
        gpn = self.gpn
        if world <= gpn:
            if not skip:
                return self.usable > 0
            return any(count != UNUSABLE and i not in skip for i, count in enumerate(self.count))
        if world % gpn:
            return False
        need = world // gpn
        for island, members in self.cluster.islands.items():
            if self.usable_in.get(island, 0) < need:
                continue
            if not skip:
                return True
            usable = sum(
                1
                for name in members
                if self.count[self.pos[name]] != UNUSABLE and self.pos[name] not in skip
            )
            if usable >= need:
                return True
        return False


class Scratch:
    """One pass's working view of the index: placement takes GPUs here, not on the cluster.

    It changes the index's own lists and keeps what it changed, and `undo` puts them back: a
    pass takes from a handful of nodes, while a copy of the index costs every node (at 8,192
    nodes, a copy per pass was most of a pass). So a scratch is always undone when its user is
    done with it, the latest one first (`with index.scratch() as scratch:`), and the index
    refuses to sync, or an older scratch to change, while a newer one is open."""

    def __init__(self, index: FreeIndex):
        self.index = index
        self.gpn = index.gpn
        self.count = index.count
        self.buckets = index.buckets
        self.whole = index.whole
        self.log: list[tuple[int, int]] = []  # (node position, its free GPUs before), in order
        index.open.append(self)

    def __enter__(self) -> Scratch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.undo()

    def copy(self) -> Scratch:
        """A scratch on top of this one: it starts from this one's changes, and must be undone
        before this one is changed or read again."""
        return Scratch(self.index)

    def undo(self) -> None:
        open_ = self.index.open
        if not open_ or open_[-1] is not self:
            raise RuntimeError("a scratch of the free-GPU index undone out of turn")
        for position, before in reversed(self.log):
            self._move(position, self.count[position], before)
        self.log.clear()
        open_.pop()

    def adjust(self, position: int, delta: int) -> None:
        """Take (negative) or give back (positive) GPUs on a usable node."""
        old = self.count[position]
        if old == UNUSABLE or delta == 0:
            return
        new = min(self.gpn, max(0, old + delta))
        if new == old:
            return
        if self.index.open[-1] is not self:
            raise RuntimeError("a scratch of the free-GPU index changed under a newer one")
        self.log.append((position, old))
        self._move(position, old, new)

    def _move(self, position: int, old: int, new: int) -> None:
        bucket = self.buckets[old]
        del bucket[bisect_left(bucket, position)]
        insort(self.buckets[new], position)
        self.count[position] = new
        member = self.index.member.get(position)
        if member is not None:
            whole = self.whole[member[0]]
            if old == self.gpn:
                del whole[bisect_left(whole, member[1])]
            elif new == self.gpn:
                insort(whole, member[1])

    def none_free(self) -> bool:
        """No usable node has a free GPU: only a job of no GPUs could start. (Every usable
        node is in one bucket, and a scratch moves nodes between buckets, never out.)"""
        return len(self.buckets[0]) == self.index.usable

    def usable(self, position: int) -> bool:
        return self.count[position] != UNUSABLE

    def fits_on(self, position: int, world: int) -> bool:
        return self.count[position] >= world

    def best_node(self, world: int, skip: Collection[int]) -> int | None:
        """Fewest free GPUs that fit, ties to the node listed first: best fit."""
        for count in range(world, self.gpn + 1):
            for position in self.buckets[count]:
                if position not in skip:
                    return position
        return None

    def whole_nodes(self, need: int, skip: Collection[int]) -> list[str] | None:
        """The first island, as declared, with `need` wholly free nodes: the first ones listed."""
        cluster = self.index.cluster
        for island, members in cluster.islands.items():
            whole = self.whole.get(island, ())
            if len(whole) < need:
                continue
            chosen: list[str] = []
            for member in whole:
                name = members[member]
                if skip and self.index.pos[name] in skip:
                    continue
                chosen.append(name)
                if len(chosen) == need:
                    return chosen
        return None

    def island_has_whole(self, island: str, need: int, skip: Collection[int]) -> bool:
        return _has_whole(self.index, island, self.whole.get(island, ()), need, skip)


class Overlay:
    """A reservation's trial on a scratch: running jobs' GPUs given back, as new counts of the
    few nodes they touch, read over the scratch's for every other node. The walk through
    running jobs' ends gives back to a few dozen nodes per blocked pass; moving each of them
    through the buckets and back was most of a busy pass. Giving back only raises a count, so a
    node the scratch has wholly free is never in the overlay, and a node in the overlay is in
    the scratch's bucket of its old count, passed over there."""

    def __init__(self, base: Scratch):
        self.base = base
        self.index = base.index
        self.gpn = base.gpn
        self.count: dict[int, int] = {}  # node position -> its free GPUs with the ends given
        self.whole: dict[str, list[int]] = {}  # island -> members made wholly free, sorted

    def usable(self, position: int) -> bool:
        return self.base.count[position] != UNUSABLE

    def free(self, position: int) -> int:
        return self.count.get(position, self.base.count[position])

    def fits_on(self, position: int, world: int) -> bool:
        return self.free(position) >= world

    def give_back(
        self, placement: Iterable[tuple[str, list[int]]], skip: Collection[int]
    ) -> list[int]:
        """A running job's end: its GPUs given back on the usable nodes it holds off `skip`.
        Returns the positions whose free count rose: only there can a job fit that did not
        before. (The reservation's walk does this for every end it reads, on locals.)"""
        raised = []
        pos, count, base, gpn = self.index.pos, self.count, self.base.count, self.gpn
        for node, gpus in placement:
            position = pos.get(node)
            if position is None or position in skip or not gpus:
                continue
            old = count.get(position)
            if old is None:
                old = base[position]
                if old == UNUSABLE:
                    continue
            new = min(gpn, old + len(gpus))
            if new != old:
                count[position] = new
                raised.append(position)
                member = self.index.member.get(position)
                if new == gpn and member is not None:
                    insort(self.whole.setdefault(member[0], []), member[1])
        return raised

    def best_node(self, world: int, skip: Collection[int]) -> int | None:
        """Scratch.best_node over the overlay: the lowest count that fits, then the first node."""
        changed = self.count
        for count in range(world, self.gpn + 1):
            found = next(
                (p for p in self.base.buckets[count] if p not in skip and p not in changed), None
            )
            for position, free in changed.items():
                if free == count and position not in skip and (found is None or position < found):
                    found = position
            if found is not None:
                return found
        return None

    def _whole(self, island: str) -> list[int]:
        """The island's wholly free members (indexes in its member list), in member order."""
        whole = self.base.whole.get(island, [])
        more = self.whole.get(island)
        return sorted(whole + more) if more else whole

    def whole_nodes(self, need: int, skip: Collection[int]) -> list[str] | None:
        """Scratch.whole_nodes over the overlay."""
        index = self.index
        for island, members in index.cluster.islands.items():
            whole = self._whole(island)
            if len(whole) < need:
                continue
            chosen = [members[m] for m in whole if not skip or index.pos[members[m]] not in skip]
            if len(chosen) >= need:
                return chosen[:need]
        return None

    def island_has_whole(self, island: str, need: int, skip: Collection[int]) -> bool:
        return _has_whole(self.index, island, self._whole(island), need, skip)


def of(cluster: Cluster) -> FreeIndex:
    """The cluster's index, brought up to date with every node that changed."""
    index = cluster.free_index
    if index is None:
        index = FreeIndex(cluster)
        cluster.free_index = index
    else:
        index.sync()
    return index


def _has_whole(index, island: str, whole, need: int, skip: Collection[int]) -> bool:
    """Whether `need` of an island's wholly free members (`whole`, indexes into its member
    list) lie off the `skip` positions."""
    if len(whole) < need:
        return False
    if not skip:
        return True
    members = index.cluster.islands[island]
    pos = index.pos
    return sum(1 for m in whole if pos[members[m]] not in skip) >= need

"""Target selection shared by the fault kinds: the candidates a `target:` block allows at the
moment a fault fires, and the seeded pick among them.

Candidates come from the placement at fire time. With `job`, they are that job's ranks where
they run; otherwise the nodes in service, narrowed by `node`, else `leaf`, else `island`. A kind
that strikes a GPU draws a seeded GPU on each node; a node or leaf kind counts each node or leaf
once. The loader's name checks for targets live here too, so a kind's rules are in one place.
"""

from __future__ import annotations

import random

from drill.faults.base import Loc, Names, Pick, Target, Unit
from drill.faults.world import FaultWorld


def select(world: FaultWorld, target: Target, unit: Unit, rng: random.Random) -> list[Pick]:
    candidates = _candidates(world, target, unit, rng)
    if unit == "node":
        candidates = _unique(candidates, "node")
    elif unit == "leaf":
        candidates = _unique(candidates, "leaf")
        if target.leaf:
            members = world.cluster.leaves[target.leaf][1]
            candidates = [Pick(leaf=target.leaf, node=members[0])]
    if not candidates:
        return []
    count = selection_size(target, len(candidates))
    return [candidates[i] for i in sorted(rng.sample(range(len(candidates)), count))]


def _candidates(world: FaultWorld, target: Target, unit: Unit, rng: random.Random) -> list[Pick]:
    cluster = world.cluster
    if target.job:
        job = world.jobs[target.job]
        placement = job.placement or [
            (n, list(range(cluster.gpus_per_node)))
            for n in (job.attempts[-1].nodes if job.attempts else [])
        ]
        picks = []
        rank = 0
        for node, gpus in placement:
            leaf = cluster.nodes[node].leaf
            for gpu in gpus:
                picks.append(Pick(node=node, gpu=gpu, job=job.name, rank=rank, leaf=leaf))
                rank += 1
        if target.rank is not None:
            picks = [p for p in picks if p.rank == target.rank] or picks[:1]
        return picks
    nodes = list(cluster.in_service())
    if target.node:
        nodes = [cluster.nodes[target.node]]
    elif target.leaf:
        nodes = [n for n in nodes if n.leaf == target.leaf]
    elif target.island:
        nodes = [n for n in nodes if n.island == target.island]
    picks = []
    for each in nodes:
        gpu = rng.randrange(each.gpu_count) if unit == "gpu" else 0
        owners = world.jobs_on_gpu(each.name, gpu)
        job_name, owner_rank = (owners[0][0].name, owners[0][1]) if owners else (None, None)
        picks.append(Pick(node=each.name, gpu=gpu, job=job_name, rank=owner_rank, leaf=each.leaf))
    return picks


def _unique(picks: list[Pick], field: str) -> list[Pick]:
    seen: set = set()
    out = []
    for pick in picks:
        value = pick.field(field)
        if value not in seen:
            seen.add(value)
            out.append(pick)
    return out


def selection_size(target: Target, available: int) -> int:
    if target.select == "all":
        return available
    if target.select == "count":
        return min(available, target.count or 1)
    if target.select == "percent":
        return max(1, min(available, round(available * (target.percent or 100) / 100)))
    return 1


def check_target(target: Target, names: Names, at: Loc) -> list[tuple[Loc, str]]:
    """Every name in a target must exist, and select's companion field must be there."""
    problems: list[tuple[Loc, str]] = []
    if target.job and target.job not in names.jobs:
        problems.append(
            ((*at, "job"), f"no job named {target.job!r}; {suggest(target.job, set(names.jobs))}")
        )
    if target.node and target.node not in names.nodes:
        problems.append(
            ((*at, "node"), f"no node named {target.node!r}; {suggest(target.node, names.nodes)}")
        )
    if target.leaf and target.leaf not in names.leaves:
        problems.append(
            ((*at, "leaf"), f"no leaf named {target.leaf!r}; {suggest(target.leaf, names.leaves)}")
        )
    if target.island and target.island not in names.islands:
        problems.append(
            (
                (*at, "island"),
                f"no island named {target.island!r}; {suggest(target.island, names.islands)}",
            )
        )
    if target.rank is not None and target.job in names.jobs:
        width = names.jobs[target.job]
        if target.rank >= width:
            problems.append(
                (
                    (*at, "rank"),
                    f"{target.job} has ranks 0 to {width - 1}; pick a rank in that range",
                )
            )
    if target.select == "count" and target.count is None:
        problems.append((at, "select: count needs `count: N`"))
    if target.select == "percent" and target.percent is None:
        problems.append((at, "select: percent needs `percent: P`"))
    return problems


def suggest(word: str, options: set[str]) -> str:
    import difflib

    found = difflib.get_close_matches(word, sorted(options), n=1, cutoff=0.5)
    if found:
        return f"did you mean {found[0]!r}?"
    return f"valid names include {', '.join(sorted(options)[:4])}"

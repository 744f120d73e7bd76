"""How a sim night's cost grows with the cluster: time per node, against a small cluster's.

    .venv/bin/python benchmarks/bench_scale.py [--nodes 64,256,1024] [--length 1h] [--repeat N]

Builds the same incident at several cluster sizes (islands of up to 64 leaves of 64 nodes, the
learner's job on one node, background load scaled with the cluster), builds the world and plays
one sim night of each with nobody acting, and times both. Prints each size's time per node and its ratio to the
smallest size's time per node, measured in the same run. A ratio near 1 means the cost grows
with nodes (the design's goal: events, not nodes times ticks); a ratio that grows with the size
means the cost grows faster, as it does with a scheduler that scans every node for every queued
job. It asserts nothing: machines differ, and this is a measuring tool.
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from drill.engine.drill import Drill  # noqa: E402
from drill.incident.loader import load_incident  # noqa: E402

BASE = REPO / "incidents" / "tutorial.yaml"


def incident_with(nodes: int, length: str, folder: Path):
    data = yaml.safe_load(BASE.read_text())
    data = copy.deepcopy(data)
    data["night"]["length"] = length
    # The learner's job trains all night, so every size plays the whole night.
    data["jobs"][0].update(steps=100_000, time_limit="12h")
    per_island = 64 * 64
    islands = []
    left = nodes
    for index in range((nodes + per_island - 1) // per_island):
        count = min(per_island, left)
        leaves = min(64, count)
        islands.append({"name": "abcd"[index], "leaves": leaves, "nodes_per_leaf": count // leaves})
        left -= leaves * (count // leaves)
    data["cluster"]["islands"] = islands
    path = folder / f"scale-{nodes}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return load_incident(path).incident


def night_seconds(incident, repeat: int) -> tuple[float, float]:
    """(building the world, playing the night), each the best of `repeat`. Building places the
    starting background load, which is where a scheduler that scans every node shows first."""
    build = play = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        drill = Drill.create(incident, 1, "sim")
        built = time.perf_counter()
        drill.play_out()
        build = min(build, built - start)
        play = min(play, time.perf_counter() - built)
    return build, play


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="64,128,256,512", help="cluster sizes, comma separated")
    parser.add_argument("--length", default="1h", help="night length (a duration)")
    parser.add_argument("--repeat", type=int, default=2, help="timed nights per size (best kept)")
    args = parser.parse_args()
    sizes = sorted(int(n) for n in args.nodes.split(","))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for nodes in sizes:
            incident = incident_with(nodes, args.length, Path(folder))
            actual = sum(i.leaves * i.nodes_per_leaf for i in incident.cluster.islands)
            build, play = night_seconds(incident, args.repeat)
            rows.append((actual, build, play))
            print(f"  {actual:5d} nodes: build {build:.2f} s, play {play:.2f} s", flush=True)
    reference = (rows[0][1] + rows[0][2]) / rows[0][0]
    print(f"sim night of {args.length}, nobody acting, best of {args.repeat}")
    print(f"reference: {rows[0][0]} nodes, {reference * 1000:.3f} ms per node (build and play)")
    print("nodes    build s    play s   ms/node   ratio to reference")
    for nodes, build, play in rows:
        per_node = (build + play) / nodes
        print(
            f"{nodes:5d}  {build:8.2f}  {play:8.2f}  {per_node * 1000:8.3f}"
            f"   {per_node / reference:6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

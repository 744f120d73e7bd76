"""How fast the TUI starts and how long the cluster map takes to draw a big cluster.

    .venv/bin/python benchmarks/bench_tui.py [--repeat N]

Prints numbers and asserts nothing (machines differ):

- first frame: wall time from spawning `python` to the picker's first frame, in a fresh process
  (interpreter start, imports, loading the shipped incidents, the first paint), and whether torch
  was imported by then (it must not be).
- cluster map at 1,024 nodes of 8 GPUs: a cluster built in code (8 islands x 8 leaves x 16
  nodes) with background work on it, played a little so jobs sit on GPUs. Times the engine's
  snapshot, the map's lines (the rollup it shows at this size, and the full cell-by-cell layout
  for comparison), and a real widget: `show(snapshot)` plus every visible line at 200x60.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FIRST_FRAME = textwrap.dedent(
    """
    import sys
    from drill.tui.app import DrillApp

    class Timed(DrillApp):
        def on_mount(self):
            super().on_mount()
            self.call_after_refresh(self.first_frame)

        def first_frame(self):
            print(type(self.screen).__name__, "torch" in sys.modules, flush=True)
            self.exit(0)

    Timed(backend="inprocess").run(headless=True, size=(120, 40))
    """
)


def first_frame(repeat: int) -> None:
    times = []
    torch_loaded = False
    screen = ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", FIRST_FRAME],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        # The child exits right after printing; its exit adds little, so the wall time to the
        # printed line is what a person waits for the picker.
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            print(done.stderr, file=sys.stderr)
            raise SystemExit(1)
        screen, loaded = done.stdout.split()[:2]
        torch_loaded = torch_loaded or loaded == "True"
    print(
        f"first frame ({screen}): best {min(times):.3f}s, median {statistics.median(times):.3f}s over {repeat} runs"
    )
    print(f"torch imported at the first frame: {'yes' if torch_loaded else 'no'}")


def big_incident():
    from drill.incident.models import Incident

    islands = [{"name": f"i{n}", "leaves": 8, "nodes_per_leaf": 16, "spares": 0} for n in range(8)]
    return Incident.model_validate(
        {
            "schema": 1,
            "id": "big-cluster",
            "title": "A big cluster, for the map benchmark",
            "briefing": "Built in code by the benchmark.",
            "night": {"start": "03:00", "length": "2h"},
            "cluster": {"gpus_per_node": 8, "islands": islands},
            "jobs": [{"name": "llm", "yours": True, "gpus": 64, "steps": 300, "step_time": "12s"}],
            "background": {
                "utilization": 0.6,
                "arrivals_per_hour": 20,
                "sizes": [1, 2, 4, 8, 16, 32],
            },
            "seeds": [1],
        }
    )


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def cluster_map(repeat: int) -> None:
    from drill.engine.drill import Drill
    from drill.tui.widgets.cluster_map import ClusterMap, cell_lines, map_lines

    incident = big_incident()
    drill = Drill(incident, 1)
    drill.advance(600)
    snapshot = drill.snapshot()
    nodes = len(snapshot.nodes)
    gpus = sum(len(n.gpus) for n in snapshot.nodes)
    busy = sum(1 for n in snapshot.nodes for g in n.gpus if g.job)
    print(f"cluster: {nodes} nodes, {gpus} GPUs, {busy} busy")
    print(f"engine snapshot: {timed(drill.snapshot, repeat) * 1000:.1f} ms")
    rollup = map_lines(snapshot, 196, 54)
    print(
        f"map lines, rollup (what the panel shows at this size, {len(rollup)} lines): "
        f"{timed(lambda: map_lines(snapshot, 196, 54), repeat) * 1000:.1f} ms"
    )
    cells = cell_lines(snapshot, 196)
    print(
        f"map lines, every node cell by cell ({len(cells)} lines): "
        f"{timed(lambda: cell_lines(snapshot, 196), repeat) * 1000:.1f} ms"
    )

    from textual.app import App

    class MapOnly(App):
        def compose(self):
            yield ClusterMap(id="map")

    results: list[float] = []

    async def run() -> None:
        app = MapOnly()
        async with app.run_test(size=(200, 60)) as pilot:
            widget = app.query_one(ClusterMap)
            await pilot.pause()
            for _ in range(repeat):
                widget._key = ()  # force a rebuild, as a changed cluster would
                start = time.perf_counter()
                widget.show(snapshot)
                for y in range(widget.size.height):
                    widget.render_line(y)
                results.append(time.perf_counter() - start)
            start = time.perf_counter()
            widget.refresh()
            await pilot.pause()
            results.append(-(time.perf_counter() - start))

    asyncio.run(run())
    frame = -results.pop()
    print(f"map widget, show() plus every visible line at 200x60: {min(results) * 1000:.1f} ms")
    print(f"map widget, one full repaint through Textual: {frame * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    first_frame(max(1, args.repeat))
    cluster_map(max(1, args.repeat))


if __name__ == "__main__":
    main()

"""The cluster map at fleet size: 4,096 nodes get a rollup per island and the list of unhealthy
nodes; a cluster whose cells fit in the panel keeps a cell per GPU."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drill.engine.drill import Drill
from drill.incident.library import resolve_incident
from drill.tui.widgets.cluster_map import ClusterMap, cell_line_count, cell_lines, map_lines
from tests.tui.fleet import ISLANDS, YOURS, fleet_snapshot
from tests.tui.tuikit import sync

FLEET = fleet_snapshot()


def _text(lines) -> list[str]:
    return ["".join(segment.text for segment in line) for line in lines]


def test_the_fleet_is_4096_nodes_in_16_islands():
    assert len(FLEET.nodes) == 4096 and len({n.island for n in FLEET.nodes}) == ISLANDS
    assert {len(n.gpus) for n in FLEET.nodes} == {8}


def test_a_fleet_gets_a_rollup_and_every_unhealthy_node():
    lines = _text(map_lines(FLEET, 196, 54))
    islands = [line for line in lines if line.startswith("island ")]
    assert len(islands) == ISLANDS
    for island in sorted({n.island for n in FLEET.nodes}):
        nodes = [n for n in FLEET.nodes if n.island == island]
        busy = sum(1 for n in nodes for g in n.gpus if g.job)
        line = next(text for text in islands if text.split()[1] == island)
        assert f"{len(nodes)} nodes" in line and f"{busy}/{len(nodes) * 8} GPUs busy" in line
    # Unhealthy, counted here from the snapshot itself: not up (or spare), or a dead GPU.
    sick = [
        n.name
        for n in FLEET.nodes
        if n.state not in ("up", "spare") or any(g.broken for g in n.gpus)
    ]
    assert 0 < len(sick) < 200
    assert f"Unhealthy nodes ({len(sick)})" in lines
    drawn = " ".join(lines)
    for name in sick:
        assert f"{name} " in drawn
    mine = [n.name for n in FLEET.nodes if YOURS in n.jobs]
    start = lines.index("Your job's nodes")
    assert all(name in " ".join(lines[start : start + 3]) for name in mine)
    assert len(lines) < 60  # a few screens at most, not 4,096 cells


@settings(max_examples=25, deadline=None)
@given(width=st.integers(min_value=20, max_value=320))
def test_the_cell_count_is_what_cell_lines_draws(width):
    """`fits` decides on the count without drawing; the count must be the drawing's."""
    small = _dead_rank()
    assert cell_line_count(small, width) == len(cell_lines(small, width))


@settings(max_examples=4, deadline=None)
@given(width=st.sampled_from([60, 120, 196, 300]))
def test_the_cell_count_holds_at_fleet_size(width):
    assert cell_line_count(FLEET, width) == len(cell_lines(FLEET, width))


_SMALL = []


def _dead_rank():
    if not _SMALL:
        drill = Drill(resolve_incident("dead-rank").incident, 1)
        drill.advance(31 * 60)
        [(node, _)] = [
            (n, g) for n, node in drill.world.cluster.nodes.items() for g in node.gpus if g.broken
        ]
        assert drill.act(f"health {node}").accepted  # the map marks it once a look has shown it
        _SMALL.append(drill.snapshot())
    return _SMALL[0]


def test_cells_while_they_fit_and_the_rollup_once_they_do_not():
    small = _dead_rank()
    width = 60
    needed = cell_line_count(small, width)
    assert needed > 10  # the test needs a map taller than the smallest panel
    assert _text(map_lines(small, width, needed)) == _text(cell_lines(small, width))
    rolled = _text(map_lines(small, width, needed - 1))
    assert any(line.startswith("island a") for line in rolled)
    assert "Unhealthy nodes (1)" in rolled  # gpu-a-2, its GPU dead once health has seen it
    assert _text(map_lines(small, 200, 20)) == _text(cell_lines(small, 200))


@sync
async def test_the_map_widget_draws_the_fleet_rollup():
    from textual.app import App

    class MapOnly(App):
        def compose(self):
            yield ClusterMap(id="map")

    app = MapOnly()
    async with app.run_test(size=(200, 60)) as pilot:
        widget = app.query_one(ClusterMap)
        widget.show(FLEET)
        await pilot.pause()
        drawn = [widget.render_line(y).text for y in range(widget.size.height)]
        assert any(line.startswith("island f15") for line in drawn)
        assert widget.line_count == len(map_lines(FLEET, widget.size.width, widget.size.height))

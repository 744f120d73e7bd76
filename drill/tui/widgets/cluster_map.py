"""The cluster map: islands, leaves, nodes and GPUs, coloured by state and by job.

One widget that renders lines (the Line API): building a few hundred Static widgets for a big
cluster takes seconds, drawing lines takes milliseconds. When every node's cell fits in the
panel it shows every GPU; when it does not (a fleet of thousands of nodes, or a small panel),
it shows a rollup per island, the learner's nodes and the nodes that are not healthy.

A click on a node's name puts it on the prompt (the screen's `pick` action).
"""

from __future__ import annotations

from collections import defaultdict

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from drill.engine.snapshot import NodeView, Snapshot
from drill.tui.widgets.pick import pick_style

GPU_CHAR = "■"
IDLE_CHAR = "·"
DEAD_CHAR = "X"

YOURS = Style(color="bright_green", bold=True)
IDLE = Style(color="grey42")
DEAD = Style(color="bright_white", bgcolor="red", bold=True)
OTHER_JOBS = (
    Style(color="dodger_blue2"),
    Style(color="medium_purple"),
    Style(color="dark_cyan"),
    Style(color="steel_blue"),
    Style(color="orchid"),
    Style(color="cadet_blue"),
)
NODE_STYLES = {
    "up": Style(color="grey78"),
    "cordoned": Style(color="black", bgcolor="yellow"),
    "draining": Style(color="black", bgcolor="dark_orange"),
    "drained": Style(color="black", bgcolor="dark_orange"),
    "down": Style(color="bright_white", bgcolor="red", bold=True),
    "rebooting": Style(color="black", bgcolor="magenta"),
    "joining": Style(color="black", bgcolor="cyan"),
    "spare": Style(color="grey50", italic=True),
}
LABEL = Style(color="grey62")
TITLE = Style(bold=True)
HEALTHY = ("up", "spare")
MIN_HEIGHT = 10  # a panel shorter than this still gets the cells if they fit in ten lines

Line = list[Segment]


def _job_styles(snapshot: Snapshot) -> tuple[str | None, dict[str, Style]]:
    yours = next((job.name for job in snapshot.jobs if job.yours), None)
    others = sorted({job for node in snapshot.nodes for job in node.jobs if job != yours})
    styles = {job: OTHER_JOBS[i % len(OTHER_JOBS)] for i, job in enumerate(others)}
    if yours:
        styles[yours] = YOURS
    return yours, styles


def unhealthy(node: NodeView) -> bool:
    return node.state not in HEALTHY or any(gpu.broken for gpu in node.gpus)


def node_cell(node: NodeView, name_width: int, styles: dict[str, Style]) -> Line:
    """`gpu-a-2 ■■X■■··· `: the name in its state's colour, one character per GPU."""
    segments = [
        Segment(
            node.name.ljust(name_width),
            pick_style("node", node.name, NODE_STYLES.get(node.state, LABEL)),
        ),
        Segment(" "),
    ]
    run_text, run_style = "", None
    for gpu in node.gpus:
        if gpu.broken:
            char, style = DEAD_CHAR, DEAD
        elif gpu.job:
            char, style = GPU_CHAR, styles.get(gpu.job, OTHER_JOBS[0])
        else:
            char, style = IDLE_CHAR, IDLE
        if style is run_style:
            run_text += char
        else:
            if run_text:
                segments.append(Segment(run_text, run_style))
            run_text, run_style = char, style
    if run_text:
        segments.append(Segment(run_text, run_style))
    segments.append(Segment("  "))
    return segments


def _cell_width(name_width: int, gpus: int) -> int:
    return name_width + 1 + gpus + 2


LEGEND = (
    (GPU_CHAR, YOURS, "your job"),
    (GPU_CHAR, OTHER_JOBS[0], "other jobs"),
    (IDLE_CHAR, IDLE, "idle"),
    (DEAD_CHAR, DEAD, "dead GPU"),
    ("cordoned", NODE_STYLES["cordoned"], ""),
    ("drained", NODE_STYLES["drained"], ""),
    ("down", NODE_STYLES["down"], ""),
    ("rebooting", NODE_STYLES["rebooting"], ""),
)


def legend(width: int) -> list[Line]:
    """The key to the colours, wrapped to the panel."""
    lines: list[Line] = [[]]
    used = 0
    for mark, style, label in LEGEND:
        item = [Segment(mark, style)] + ([Segment(f" {label}")] if label else [])
        size = len(mark) + (len(label) + 1 if label else 0) + 2
        if used and used + size > width:
            lines.append([])
            used = 0
        lines[-1] += item + [Segment("  ")]
        used += size
    return lines


def _wrap_cells(
    prefix: Line, prefix_width: int, cells: list[Line], cell_width: int, width: int
) -> list[Line]:
    per_row = max(1, (width - prefix_width) // cell_width)
    lines = []
    for start in range(0, len(cells), per_row):
        lead = prefix if start == 0 else [Segment(" " * prefix_width)]
        line = list(lead)
        for cell in cells[start : start + per_row]:
            line += cell
        lines.append(line)
    return lines or [list(prefix)]


def cell_lines(snapshot: Snapshot, width: int) -> list[Line]:
    """Every node, grouped by island and leaf switch."""
    _, styles = _job_styles(snapshot)
    name_width = max((len(n.name) for n in snapshot.nodes), default=8)
    gpus = max((len(n.gpus) for n in snapshot.nodes), default=8)
    cell_width = _cell_width(name_width, gpus)
    by_island: dict[str, dict[str, list[NodeView]]] = defaultdict(lambda: defaultdict(list))
    for node in snapshot.nodes:
        by_island[node.island][node.leaf or "spares"].append(node)
    leaf_width = max((len(leaf) for leaves in by_island.values() for leaf in leaves), default=6) + 1
    lines: list[Line] = legend(width)
    for island, leaves in by_island.items():
        lines.append([Segment(f"island {island}", TITLE)])
        for leaf, nodes in leaves.items():
            prefix = [Segment(" " + leaf.ljust(leaf_width), LABEL)]
            cells = [node_cell(node, name_width, styles) for node in nodes]
            lines += _wrap_cells(prefix, leaf_width + 1, cells, cell_width, width)
    return lines


def _bar(fraction: float, width: int) -> Line:
    filled = max(0, min(width, round(fraction * width)))
    return [
        Segment("█" * filled, Style(color="dodger_blue2")),
        Segment("░" * (width - filled), IDLE),
    ]


def rollup_lines(snapshot: Snapshot, width: int) -> list[Line]:
    """A line per island, then the learner's nodes and every unhealthy node cell by cell.
    One pass over the GPUs: at 4,096 nodes this is most of the map's frame."""
    yours, styles = _job_styles(snapshot)
    name_width = max((len(n.name) for n in snapshot.nodes), default=8)
    gpus = max((len(n.gpus) for n in snapshot.nodes), default=8)
    cell_width = _cell_width(name_width, gpus)
    # island -> [nodes, GPUs, busy, yours, dead, not up]
    islands: dict[str, list[int]] = {}
    own: list[NodeView] = []
    sick_nodes: list[NodeView] = []
    for node in snapshot.nodes:
        counts = islands.get(node.island)
        if counts is None:
            counts = islands[node.island] = [0, 0, 0, 0, 0, 0]
        counts[0] += 1
        counts[1] += len(node.gpus)
        dead = 0
        if node.jobs:
            for gpu in node.gpus:
                if gpu.job:
                    counts[2] += 1
                    if gpu.job == yours:
                        counts[3] += 1
                if gpu.broken:
                    dead += 1
        else:
            dead = sum(1 for gpu in node.gpus if gpu.broken)
        counts[4] += dead
        if node.state not in HEALTHY:
            counts[5] += 1
        if yours and yours in node.jobs:
            own.append(node)
        if dead or node.state not in HEALTHY:
            sick_nodes.append(node)
    lines: list[Line] = legend(width)
    island_width = max((len(name) for name in islands), default=4)
    for island, (count, total, busy, mine, dead, sick) in islands.items():
        line: Line = [
            Segment(f"island {island:<{island_width}}", TITLE),
            Segment(f" {count:>5} nodes "),
        ]
        line += _bar(busy / total if total else 0.0, 12)
        line.append(Segment(f" {busy}/{total} GPUs busy"))
        if mine:
            line += [Segment(", "), Segment(f"{mine} yours", YOURS)]
        if dead:
            line += [Segment(", "), Segment(f"{dead} dead", DEAD)]
        if sick:
            line += [Segment(", "), Segment(f"{sick} not up", NODE_STYLES["drained"])]
        lines.append(line)
    if own:
        lines.append([Segment("Your job's nodes", TITLE)])
        lines += _wrap_cells(
            [], 0, [node_cell(n, name_width, styles) for n in own], cell_width, width
        )
    lines.append([Segment(f"Unhealthy nodes ({len(sick_nodes)})", TITLE)])
    if sick_nodes:
        cells = [
            node_cell(n, name_width, styles)
            + [Segment(f"{n.state if n.state not in HEALTHY else 'dead GPU':<10}", LABEL)]
            for n in sick_nodes
        ]
        lines += _wrap_cells([], 0, cells, cell_width + 10, width)
    else:
        lines.append([Segment(" none: every node is up with no dead GPU", LABEL)])
    return lines


def cell_line_count(snapshot: Snapshot, width: int) -> int:
    """How many lines the cell-by-cell map takes at this width, without drawing it."""
    name_width = max((len(n.name) for n in snapshot.nodes), default=8)
    gpus = max((len(n.gpus) for n in snapshot.nodes), default=8)
    leaf_width = max((len(n.leaf or "spares") for n in snapshot.nodes), default=6) + 1
    per_row = max(1, (width - leaf_width - 1) // _cell_width(name_width, gpus))
    leaves: dict[tuple[str, str], int] = defaultdict(int)
    for node in snapshot.nodes:
        leaves[(node.island, node.leaf or "spares")] += 1
    islands = {island for island, _ in leaves}
    rows = sum(-(-count // per_row) for count in leaves.values())
    return len(legend(width)) + len(islands) + rows


def fits(snapshot: Snapshot, width: int, height: int) -> bool:
    """Every node's cell fits in the panel (an unknown height counts as ten lines)."""
    return cell_line_count(snapshot, width) <= max(height, MIN_HEIGHT)


def map_lines(snapshot: Snapshot, width: int, height: int = 0) -> list[Line]:
    """Cell by cell when it fits in the panel; a rollup and the unhealthy nodes when not."""
    if fits(snapshot, width, height):
        return cell_lines(snapshot, width)
    return rollup_lines(snapshot, width)


def _key(snapshot: Snapshot) -> tuple:
    # NodeView and GpuView are frozen dataclasses: comparing the tuple compares every field.
    return snapshot.nodes


class ClusterMap(ScrollView, can_focus=True):
    """Scrolls when the map is taller than the panel; redraws only when the cluster changed."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._snapshot: Snapshot | None = None
        self._key: tuple = ()
        self._strips: list[Strip] = []
        self._built_for: tuple[int, int] = (0, 0)

    def show(self, snapshot: Snapshot) -> None:
        key = _key(snapshot)
        if key == self._key and self._strips:
            return
        self._snapshot, self._key = snapshot, key
        self._rebuild()

    def on_resize(self) -> None:
        if self._snapshot is not None and self._built_for != (self.size.width, self.size.height):
            self._rebuild()

    def _rebuild(self) -> None:
        if self._snapshot is None:
            return
        width = max(20, self.scrollable_content_region.width or self.size.width or 80)
        height = self.size.height
        self._built_for = (self.size.width, height)
        self._strips = [Strip(line).simplify() for line in map_lines(self._snapshot, width, height)]
        longest = max((strip.cell_length for strip in self._strips), default=0)
        self.virtual_size = Size(longest, len(self._strips))
        self.refresh()

    @property
    def line_count(self) -> int:
        return len(self._strips)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.scrollable_content_region.width
        base = self.rich_style
        if index >= len(self._strips):
            return Strip.blank(width, base)
        return self._strips[index].crop_extend(scroll_x, scroll_x + width, base).apply_style(base)

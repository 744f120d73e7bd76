"""The queue: every job the scheduler knows, with the learner's first. A click on a job's name
puts it on the prompt."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from drill.engine.snapshot import JobView, Snapshot
from drill.tui.widgets.panel import Panel
from drill.tui.widgets.pick import pick_style

STATE_STYLES = {
    "running": "green",
    "pending": "yellow",
    "preempted": "bold magenta",
    "requeued": "yellow",
    "failed": "bold red",
    "node_fail": "bold red",
    "completed": "cyan",
    "cancelled": "grey50",
}
ACTIVE = ("running", "pending")


def visible_jobs(snapshot: Snapshot) -> list[JobView]:
    """The learner's job, then live work, then the rest; other teams' finished jobs drop off,
    as they do in `queue`."""
    jobs = [j for j in snapshot.jobs if j.yours or j.state not in ("completed", "cancelled")]
    return sorted(jobs, key=lambda j: (not j.yours, j.state not in ACTIVE, j.name))


def _nodes(names: tuple[str, ...]) -> str:
    if len(names) <= 2:
        return ",".join(names) or "-"
    return f"{names[0]},+{len(names) - 1}"


class QueueView:
    """Fixed columns that fit the panel: job, state, GPUs (world size), step, last checkpoint,
    attempts, nodes, team; a pending reason goes on its own line under the job."""

    def __init__(self, jobs: list[JobView]) -> None:
        self.jobs = jobs

    def __rich_console__(self, console, options):
        width = options.max_width
        name_w = min(24, max([len(j.name) + (8 if j.yours else 0) for j in self.jobs] + [3]))
        fixed = [
            ("STATE", 9, "<"),
            ("GPUS", 4, ">"),
            ("STEP", 7, ">"),
            ("CKPT", 5, ">"),
            ("TRY", 3, ">"),
        ]
        used = name_w + sum(w + 1 for _, w, _ in fixed)
        room = max(0, width - used - 1)
        nodes_w = min(room, max([len(_nodes(j.nodes)) for j in self.jobs] + [5]))
        team_w = max(0, room - nodes_w - 1)
        header = Text(f"{'JOB':<{name_w}}", style="bold")
        for title, w, align in fixed:
            header.append(f" {title:{align}{w}}", style="bold")
        if nodes_w:
            header.append(f" {'NODES':<{nodes_w}}", style="bold")
        if team_w >= 4:
            header.append(f" {'TEAM':<{team_w}}"[: team_w + 1], style="bold")
        yield header
        for job in self.jobs:
            name = (job.name + (" (yours)" if job.yours else ""))[:name_w]
            row = Text()
            # Only the job's name is clickable; the rest of the column is padding.
            clickable = job.name[:name_w]
            bold = Style(bold=job.yours)
            row.append(clickable, style=pick_style("job", job.name, bold))
            row.append(f"{name[len(clickable) :]:<{name_w - len(clickable)}}", style=bold)
            row.append(f" {job.state[:9]:<9}", style=STATE_STYLES.get(job.state, ""))
            step = f"{job.step}/{job.steps}" if job.steps else "-"
            ckpt = "-" if job.last_checkpoint is None else str(job.last_checkpoint)
            row.append(f" {job.gpus:>4} {step:>7} {ckpt:>5} {job.attempts:>3}")
            if nodes_w:
                row.append(f" {_nodes(job.nodes)[:nodes_w]:<{nodes_w}}")
            if team_w >= 4:
                row.append(f" {job.team}/{job.priority}"[: team_w + 1], style="grey62")
            yield row
            if job.reason and job.state != "running":
                why = Text(f"  why: {job.reason}", style="grey62")
                why.truncate(width, overflow="ellipsis")
                yield why


def queue_table(snapshot: Snapshot) -> QueueView:
    return QueueView(visible_jobs(snapshot))


def _key(snapshot: Snapshot) -> tuple:
    return tuple(visible_jobs(snapshot))


class QueuePanel(Panel):
    def __init__(self, *, id: str | None = "queue", classes: str | None = None) -> None:
        super().__init__("Queue", id=id, classes=classes)

    def show(self, snapshot: Snapshot) -> None:
        self.set_body(_key(snapshot), queue_table(snapshot))

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


def _nodes(names: tuple[str, ...], most: int = 2) -> str:
    if len(names) <= most:
        return ",".join(names) or "-"
    return f"{names[0]},+{len(names) - 1}"


def _team(job: JobView, priority: bool) -> str:
    return f"{job.team}/{job.priority}" if priority else job.team


class QueueView:
    """Columns sized to what they hold: job, state, GPUs (world size), step, last checkpoint,
    attempts, nodes, team; a pending reason goes on its own line under the job. When the panel
    is narrow the team drops its priority, then a job's nodes read "gpu-a-1,+1", before anything
    is cut (at 80 columns the team once read "ml/no")."""

    def __init__(self, jobs: list[JobView]) -> None:
        self.jobs = jobs

    def _widths(self, title: str, cells: list[str], least: int = 0) -> int:
        return max([len(title), least] + [len(c) for c in cells])

    def __rich_console__(self, console, options):
        width = options.max_width
        jobs = self.jobs
        name_w = min(24, max([len(j.name) + (8 if j.yours else 0) for j in jobs] + [3]))
        steps = [f"{j.step}/{j.steps}" if j.steps else "-" for j in jobs]
        ckpts = ["-" if j.last_checkpoint is None else str(j.last_checkpoint) for j in jobs]
        fixed = [
            ("STATE", self._widths("STATE", [j.state for j in jobs]), "<"),
            ("GPUS", self._widths("GPUS", [str(j.gpus) for j in jobs]), ">"),
            ("STEP", self._widths("STEP", steps), ">"),
            ("CKPT", self._widths("CKPT", ckpts), ">"),
            ("TRY", self._widths("TRY", [str(j.attempts) for j in jobs]), ">"),
        ]
        used = name_w + sum(w + 1 for _, w, _ in fixed)
        room = max(0, width - used)
        # The widest layout that fits: full nodes and team/priority, then less of each.
        for most, priority in ((2, True), (2, False), (1, False)):
            nodes_w = self._widths("NODES", [_nodes(j.nodes, most) for j in jobs])
            team_w = self._widths("TEAM", [_team(j, priority) for j in jobs])
            if nodes_w + team_w + 2 <= room:
                break
        if nodes_w + 1 > room:
            nodes_w, team_w = max(0, room - 1), 0
        elif nodes_w + team_w + 2 > room:
            team_w = max(0, room - nodes_w - 2)
        header = Text(f"{'JOB':<{name_w}}", style="bold")
        for title, w, align in fixed:
            header.append(f" {title:{align}{w}}", style="bold")
        if nodes_w:
            header.append(f" {'NODES':<{nodes_w}}"[: nodes_w + 1], style="bold")
        if team_w >= 4:
            header.append(f" {'TEAM':<{team_w}}", style="bold")
        yield header
        state_w, gpus_w, step_w, ckpt_w, try_w = (w for _, w, _ in fixed)
        for job, step, ckpt in zip(jobs, steps, ckpts, strict=True):
            name = (job.name + (" (yours)" if job.yours else ""))[:name_w]
            row = Text()
            # Only the job's name is clickable; the rest of the column is padding.
            clickable = job.name[:name_w]
            bold = Style(bold=job.yours)
            row.append(clickable, style=pick_style("job", job.name, bold))
            row.append(f"{name[len(clickable) :]:<{name_w - len(clickable)}}", style=bold)
            row.append(f" {job.state:<{state_w}}", style=STATE_STYLES.get(job.state, ""))
            row.append(f" {job.gpus:>{gpus_w}} {step:>{step_w}} {ckpt:>{ckpt_w}}")
            row.append(f" {job.attempts:>{try_w}}")
            if nodes_w:
                row.append(f" {_nodes(job.nodes, most)[:nodes_w]:<{nodes_w}}")
            if team_w >= 4:
                row.append(f" {_team(job, priority)}"[: team_w + 1], style="grey62")
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

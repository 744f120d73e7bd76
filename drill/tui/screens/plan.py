"""The pre-shift plan: the job settings the incident lets the learner choose, inside its ranges,
with what each choice costs in storage. The choices become `set JOB KEY VALUE` actions at the
night's start, so they are saved and replayed like any other action."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Input, Label, Static, Switch

from drill.engine.actions.catalog import PLAN_VERB
from drill.incident.job_settings import CKPT_EVERY, CKPT_KEEP, JOB_SETTINGS, MAX_NUMBER
from drill.incident.models import Incident
from drill.tui.bindings import bindings
from drill.values.units import format_duration, format_size


def defaults(incident: Incident) -> dict[str, int | bool]:
    """The job's settings as the incident file has them, moved inside the plan's ranges."""
    plan = incident.plan
    job = next(j for j in incident.jobs if plan and j.name == plan.job)
    current = {key: s.value(job.checkpoint) for key, s in JOB_SETTINGS.items()}
    values: dict[str, int | bool] = {}
    for key, choice in plan.choices.items():  # type: ignore[union-attr]
        value = current[key]
        if choice.allowed is None:
            value = max(choice.min or 1, min(choice.max or MAX_NUMBER, int(value)))
        values[key] = value
    return values


def plan_lines(incident: Incident, values: dict[str, int | bool]) -> list[str]:
    job = incident.plan.job  # type: ignore[union-attr]
    lines = []
    for key, value in values.items():
        lines.append(f"{PLAN_VERB.name} {job} {key} {JOB_SETTINGS[key].word(value)}")
    return lines


def costs(incident: Incident, values: dict[str, int | bool]) -> list[str]:
    """Checkpoint size = parameters x bytes per parameter; kept checkpoints x size; writes per
    hour at the job's step time. Arithmetic on the incident's own numbers, nothing else."""
    plan = incident.plan
    job = next(j for j in incident.jobs if plan and j.name == plan.job)
    size = job.model_params * job.bytes_per_param
    every = int(values.get(CKPT_EVERY.key, CKPT_EVERY.value(job.checkpoint)))
    keep = int(values.get(CKPT_KEEP.key, CKPT_KEEP.value(job.checkpoint)))
    params = (
        f"{job.model_params / 1e9:g}B"
        if job.model_params >= 1e9
        else f"{job.model_params / 1e6:g}M"
    )
    lines = [
        f"One checkpoint: {format_size(size)} ({params} parameters x {job.bytes_per_param:g} bytes each)."
    ]
    volume = next((v for v in incident.storage if v.name == job.checkpoint.volume), None)
    kept = f"Kept on disk: {keep} x {format_size(size)} = {format_size(keep * size)}"
    if volume is not None:
        quota = volume.quotas.get(job.team)
        room = f" of team {job.team}'s {format_size(quota)} quota" if quota else ""
        kept += f"{room} on {volume.name} ({format_size(volume.capacity)} volume, {format_size(volume.used)} used by others at the start)"
        kept += f"; a new one needs room before the oldest is deleted, so {format_size((keep + 1) * size)} at peak."
    else:
        kept += "."
    lines.append(kept)
    interval = every * job.step_time
    per_hour = 3600.0 / interval if interval else 0.0
    lines.append(
        f"Writes: every {every} steps x {format_duration(job.step_time)} a step = one every"
        f" {format_duration(interval)}, {per_hour:.1f} an hour, {format_size(per_hour * size)} written an hour."
    )
    if volume is not None:
        lines.append(
            f"Each write takes about {format_duration(size / volume.write_bandwidth)} at {format_size(volume.write_bandwidth)}/s with nobody else writing."
        )
    else:
        lines.append(f"Each write takes about {format_duration(job.checkpoint.write_time)}.")
    lines.append(
        f"A failure loses up to {every} steps ({format_duration(interval)} of training) since the last checkpoint."
    )
    return lines


def _step(low: int, high: int) -> int:
    span = high - low
    return 1 if span <= 20 else 5 if span <= 100 else 25


class PlanScreen(Screen):
    BINDINGS = bindings("plan")

    def __init__(self, incident: Incident) -> None:
        super().__init__()
        self.incident = incident
        self.values = defaults(incident)

    def compose(self) -> ComposeResult:
        plan = self.incident.plan
        assert plan is not None
        with VerticalScroll(id="plan"):
            yield Static(Text(f"Pre-shift plan for {plan.job}", style="bold"), id="plan-title")
            yield Static(
                "Decide these before the night starts. They go into your save as `set` actions at"
                f" {self.incident.night.start}, and the night then tests them.",
                id="plan-intro",
                markup=False,
            )
            for key, choice in plan.choices.items():
                with Vertical(classes="choice"):
                    with Horizontal(classes="choice-row"):
                        yield Label(JOB_SETTINGS[key].label, classes="choice-label")
                        if choice.allowed is not None:
                            yield Switch(value=bool(self.values[key]), id=f"switch-{key}")
                            yield Label(
                                "yes" if self.values[key] else "no",
                                id=f"word-{key}",
                                classes="choice-range",
                            )
                        else:
                            yield Button("-", id=f"down-{key}", classes="stepper")
                            yield Input(
                                str(self.values[key]),
                                id=f"input-{key}",
                                type="integer",
                                classes="choice-input",
                            )
                            yield Button("+", id=f"up-{key}", classes="stepper")
                            yield Label(f"{choice.min} to {choice.max}", classes="choice-range")
                    if choice.why:
                        yield Static(choice.why, classes="choice-why", markup=False)
            yield Static("", id="plan-costs", markup=False)
        yield Static("", id="plan-error", markup=False)
        with Horizontal(id="plan-buttons"):
            yield Button("Start the night (ctrl+s)", id="start", variant="primary")
        yield Footer()

    def on_mount(self) -> None:
        self._show_costs()
        first = self.query("Input, Switch").first()
        first.focus()

    def _show_costs(self) -> None:
        self.query_one("#plan-costs", Static).update("\n".join(costs(self.incident, self.values)))

    def _problem(self) -> str:
        plan = self.incident.plan
        for key, choice in plan.choices.items():  # type: ignore[union-attr]
            if choice.allowed is not None:
                continue
            text = self.query_one(f"#input-{key}", Input).value.strip()
            if not text.isdigit() or not (choice.min or 1) <= int(text) <= (
                choice.max or MAX_NUMBER
            ):
                return f"{JOB_SETTINGS[key].label} must be a whole number from {choice.min} to {choice.max}."
        return ""

    def on_input_changed(self, event: Input.Changed) -> None:
        key = (event.input.id or "").removeprefix("input-")
        if event.value.strip().isdigit():
            self.values[key] = int(event.value)
            self._show_costs()
        self.query_one("#plan-error", Static).update(self._problem())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_start()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        key = (event.switch.id or "").removeprefix("switch-")
        self.values[key] = event.value
        self.query_one(f"#word-{key}", Label).update("yes" if event.value else "no")
        self._show_costs()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button = event.button.id or ""
        if button == "start":
            self.action_start()
            return
        direction, _, key = button.partition("-")
        choice = self.incident.plan.choices[key]  # type: ignore[union-attr]
        low, high = choice.min or 1, choice.max or MAX_NUMBER
        field = self.query_one(f"#input-{key}", Input)
        current = int(field.value) if field.value.strip().isdigit() else int(self.values[key])
        step = _step(low, high)
        current = current + step if direction == "up" else current - step
        field.value = str(max(low, min(high, current)))

    def action_start(self) -> None:
        problem = self._problem()
        if problem:
            self.query_one("#plan-error", Static).update(problem)
            return
        self.app.start_night(plan_lines(self.incident, self.values))

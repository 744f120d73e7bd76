"""Who is playing: asked once before a course's first night (`drill play --course PACK`).

The name goes into the header of every save of the course, so a save says whose it is however
it reaches the instructor. Enter takes it; a name that cannot go into a save says why under the
box and waits. Nothing is written until a night starts, except the name kept in the pack for
next time (not under `drill serve`, where one pack serves many learners).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from drill.classroom.pack_play import CoursePlay, learner_problem
from drill.saves.reader import MAX_LEARNER
from drill.text_safety import visible


class LearnerScreen(Screen):
    def __init__(self, course: CoursePlay, then: Callable[[], None]) -> None:
        super().__init__(classes="dialog-screen")
        self.course, self.then = course, then

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(
                visible(f"{self.course.course.title}: who is playing?"),
                id="dialog-question",
                markup=False,
            )
            yield Static(
                "Your name goes into every save of this course, so your instructor can grade"
                " your nights. Type it as it is on the class list, then press Enter.",
                id="dialog-detail",
                markup=False,
            )
            yield Input(placeholder="Your name", max_length=MAX_LEARNER, id="learner-name")
            yield Static("", id="learner-problem", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self.call_after_refresh(self.app.drawn, self)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        problem = learner_problem(event.value)
        if problem:
            self.query_one("#learner-problem", Static).update(problem)
            return
        self.course.set_learner(event.value)
        self.then()

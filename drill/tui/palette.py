"""The command palette (ctrl+p): every action and every screen, searchable.

Actions that change something are put on the prompt for the learner to check and run with
Enter, never run from the palette directly: at 3am the last look before Enter matters.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from drill.engine.actions.catalog import VERBS
from drill.tui.pacing import SPEEDS

NODE_VERBS = ("health", "cordon", "uncordon", "drain", "reboot", "swap")
JOB_VERBS = ("status", "logs", "requeue", "restart", "cancel", "hold", "release", "ckpt list")


class NightCommands(Provider):
    def _commands(self, *, named: bool) -> list[tuple[str, str, object]]:
        screen = self.screen
        out: list[tuple[str, str, object]] = [
            ("Debrief", "End the night and see the score", screen.action_debrief),
            ("Pause", "Hold the clock (not saved)", partial(screen.action_pause, True)),
            ("Resume", "Let the clock run again", partial(screen.action_pause, False)),
            ("Quit", "Leave; every action is already saved", self.app.action_quit),
        ]
        out += [
            (f"Speed {s}x", f"{s} seconds of night per second", partial(screen.action_set_speed, s))
            for s in SPEEDS
        ]
        out += [
            (
                f"Show panel: {label}",
                "Bring this panel to the front",
                partial(screen.show_panel, key),
            )
            for key, label in _panels()
        ]
        for verb in VERBS.values():
            if verb.name == "help":
                continue
            text = verb.name if verb.usage == verb.name else verb.name + " "
            out.append((f"Action: {verb.usage}", verb.summary, partial(screen.fill, text)))
        if named and screen.frame is not None:
            snapshot = screen.frame.snapshot
            nodes = [n.name for n in snapshot.nodes if n.state != "spare"]
            jobs = [j.name for j in snapshot.jobs]
            for verb in NODE_VERBS:
                out += [
                    (f"{verb} {n}", VERBS[verb].summary, partial(screen.fill, f"{verb} {n}"))
                    for n in nodes
                ]
            for verb in JOB_VERBS:
                out += [
                    (f"{verb} {j}", VERBS[verb].summary, partial(screen.fill, f"{verb} {j}"))
                    for j in jobs
                ]
            out += [
                (f"ack {a.id}", a.text, partial(screen.fill, f"ack {a.id}"))
                for a in snapshot.alerts
                if not a.acked
            ]
        return out

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands(named=False):
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands(named=True):
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)


def _panels():
    from drill.tui.screens.night import PANELS

    return PANELS


class AppCommands(Provider):
    """On every screen: help and quit."""

    def _commands(self):
        return [
            ("Help", "Every action, the keys and the pacing rules", self.app.action_help),
            ("Incidents", "Back to the list of incidents", self.app.action_picker),
        ]

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)

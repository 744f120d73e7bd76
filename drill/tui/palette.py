"""The command palette (ctrl+p): every action and every screen, searchable.

Actions that change something are put on the prompt for the learner to check and run with
Enter, never run from the palette directly: at 3am the last look before Enter matters.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from drill.engine.actions.catalog import FAST_FORWARD, VERBS, Kind, On, Verb
from drill.tui.bindings import keys_for
from drill.tui.pacing import SPEEDS
from drill.tui.panels import PANELS
from drill.tui.words import DEBRIEF, PAUSE, QUIT, RESUME, SPEED


def named_entries(
    verb: Verb, pools: dict[str, list[tuple[str, str]]]
) -> list[tuple[str, str, str]]:
    """(title, help, line) for each name the verb's first argument may take now: nodes, jobs
    (only the learner's own for a verb refused on other teams' jobs), volumes, open pages. A line
    that still needs more words ends in a space, ready to type them."""
    first = verb.args[0] if verb.args else None
    if first is None or first.type.names is None:
        return []
    kind = first.type.names
    if kind == "job" and not verb.others_jobs:
        kind = "own_job"
    more = any(not a.optional for a in verb.args[1:]) or any(o.required for o in verb.options)
    return [
        (
            f"{verb.name} {name}",
            about or verb.summary,
            f"{verb.name} {name}" + (" " if more else ""),
        )
        for name, about in pools.get(kind, [])
    ]


class NightCommands(Provider):
    def _commands(self, *, named: bool) -> list[tuple[str, str, object]]:
        screen = self.screen
        calls = {  # what each declared TUI word does from the palette (drill/tui/words.py)
            DEBRIEF: screen.action_debrief,
            PAUSE: partial(screen.action_pause, True),
            RESUME: partial(screen.action_pause, False),
            QUIT: self.app.action_quit,
        }
        out: list[tuple[str, str, object]] = [(w.title, w.about, calls[w]) for w in calls]
        out += [
            (
                f"{SPEED.title} {s}x",
                f"{s} second{'s' if s != 1 else ''} of night per second",
                partial(screen.action_set_speed, s),
            )
            for s in SPEEDS
        ]
        keys = keys_for("night.fast-forward", self.app.config.keymap)
        out.append(  # the fast-forward key's line, put on the prompt like every action
            (
                f"Action: {FAST_FORWARD}",
                f"Fast-forward to the next signal: a new page or your job stopping ({keys})",
                partial(screen.fill, FAST_FORWARD),
            )
        )
        out += [
            (
                f"Show panel: {label}",
                "Bring this panel to the front",
                partial(screen.show_panel, key),
            )
            for key, label in PANELS
        ]
        for verb in VERBS.values():
            if verb.on == On.NOTHING and verb.kind == Kind.LOOK:
                continue  # `help`: the Help entry opens its screen
            text = verb.name if verb.usage == verb.name else verb.name + " "
            out.append((f"Action: {verb.usage}", verb.summary, partial(screen.fill, text)))
        if named and screen.frame is not None:
            pools = _pools(screen.frame)
            for verb in VERBS.values():
                out += [
                    (title, about, partial(screen.fill, line))
                    for title, about, line in named_entries(verb, pools)
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


def _pools(frame) -> dict[str, list[tuple[str, str]]]:
    """What can be named now, from the screen's latest frame, by the kind of name."""
    snapshot = frame.snapshot
    return {
        "node": [(n.name, "") for n in snapshot.nodes if n.state != "spare"],
        "job": [(j.name, "") for j in snapshot.jobs],
        "own_job": [(j.name, "") for j in snapshot.jobs if j.yours],
        "volume": [(v.name, "") for v in frame.storage.volumes],
        "page": [(a.id, a.text) for a in snapshot.alerts if not a.acked],
    }


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

"""Replaying a save and checking that it is what it says: the code behind `drill replay --verify`,
shared with the instructors' course (drill/classroom), which grades a save only once this says
it verifies.

`check_header` runs the checks on line 1 that need no replay (a header edited after the night,
another engine or drill version); `replay_and_score` replays every action, checks the save is
whole, plays the night out, scores it and compares the score. Each problem is a NotVerified
with the save's line, the field, and the sentence `drill replay --verify` prints; `differs` tells
a difference ("replay differs") from what could not be checked ("not verified").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from drill import ENGINE_VERSION, __version__
from drill.saves import Save
from drill.saves.header_check import edited_header, edited_header_field, other_version
from drill.saves.verify import compare_score
from drill.session import ReplayMismatch, Session, mismatch, replica_figures_differ
from drill.values.units import plural


class NotVerified(Exception):
    """A save that does not verify: where, which field, and the message verify prints."""

    def __init__(self, message: str, *, line: int, field: str, differs: bool):
        super().__init__(message)
        self.line, self.field, self.differs = line, field, differs

    @property
    def heading(self) -> str:
        return "replay differs" if self.differs else "not verified"


@dataclass
class Replayed:
    """A verified (or, without verify, merely replayed) night: its session, still open for the
    caller to read and close, and the score the replay gave."""

    session: Session
    score: object  # drill.engine.scoring.score.Score


def check_header(save: Save, *, across_versions: bool = False) -> None:
    """What verify checks on line 1 before replaying anything."""
    edited = edited_header(save)
    if edited:
        raise NotVerified(edited, line=1, field=edited_header_field(save) or "", differs=True)
    other = other_version(save, engine_version=ENGINE_VERSION, drill_version=__version__)
    if other and not across_versions:
        made_by = "engine_version" if save.header.get("engine_version") != ENGINE_VERSION else ""
        raise NotVerified(other, line=1, field=made_by or "drill_version", differs=False)


def replay_and_score(
    save: Save, loaded, *, verify: bool, stage: Callable[[str], None] | None = None
) -> Replayed:
    """The save's night through the engine. With verify, every action, the save's wholeness,
    the score and the end time are checked, and the first problem raises NotVerified. The
    caller closes the returned session; on NotVerified it is closed here."""
    from drill.engine.scoring.par import is_cached, par_and_floor

    say = stage or (lambda text: None)
    say(f"starting the {save.backend} backend")
    session = Session.for_replay(loaded, save)
    try:
        drill = session.drill
        say(f"replaying the save's {len(save.actions)} actions")
        try:
            session.replay(save, verify=verify)
        except ReplayMismatch as exc:
            raise NotVerified(str(exc), line=exc.line, field=exc.field, differs=True) from None
        if verify:
            gap = unchecked(save)
            if gap:
                raise NotVerified(gap, line=_unchecked_line(save), field=_unchecked_field(save),
                                  differs=False)  # fmt: skip
        say("playing out the rest of the night")
        drill.play_out()  # what finish() does first; it finds the night over
        if is_cached(drill.incident, drill.seed, drill.backend, drill.cache_dir):
            say("reading par and floor from the cache")
        else:
            say(
                "measuring par and floor (the reference solution and an empty night on this"
                " seed; once, then cached)"
            )
        par_and_floor(drill.incident, drill.seed, drill.backend, cache_dir=drill.cache_dir)
        say("scoring the night")
        score = session.finish()
        if verify:
            tolerant = replica_figures_differ(save)
            found = compare_score(score.to_json(), drill.end_time, save, tolerant=tolerant)
            if found is not None:
                differs = mismatch(save, found)
                raise NotVerified(str(differs), line=differs.line, field=found.key, differs=True)
    except BaseException:
        session.close()
        raise
    return Replayed(session, score)


def unchecked(save: Save) -> str | None:
    """What a verify could not check, located, or None when the save is whole."""
    count = len(save.actions)
    played = (
        f"its {plural(count, 'action')} {'matches' if count == 1 else 'match'}"
        if count
        else "it has no actions"
    )
    if save.truncated:
        return (
            f"{save.path}:{save.lines + 1}: the last line was cut short (a crash mid-write), so"
            f" it was not checked; {played}"
        )
    if save.score is None:
        return (
            f"{save.path}:{save.lines + 1}: the save ends without its score line (the night was"
            f" not finished), so the score was not checked; {played}. Finish the night with"
            f" `drill run --resume {save.path}`"
        )
    return None


def _unchecked_line(save: Save) -> int:
    return save.lines + 1


def _unchecked_field(save: Save) -> str:
    return "the line cut short" if save.truncated else "the score line"

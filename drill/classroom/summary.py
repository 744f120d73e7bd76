"""`drill course report`: the class in the terminal, as text. Learners by night with each kept
score and grade, then each night's figures: how many were graded and refused, the mean score,
the component where the class lost the most points, and the most common first wrong act. Every
refused save is listed with the line and field where it stopped being what it says."""

from __future__ import annotations

from collections import Counter
from statistics import mean

from drill.classroom.results import ClassResults, GradedNight
from drill.figures import title
from drill.text_safety import visible


def summary_text(results: ClassResults) -> str:
    lines = [results.title, ""]
    if not results.learners:
        return (
            "\n".join([*lines, "No saves collected yet: `drill course collect FOLDER...`."]) + "\n"
        )
    width = max(len("Learner"), *(len(name) for name in results.learners))
    heads = [night[:14] for night in results.nights]
    cols = [max(9, len(h)) for h in heads]
    lines.append(
        "  ".join(["Learner".ljust(width), *(h.ljust(c) for h, c in zip(heads, cols, strict=True))])
    )
    for learner in results.learners:
        cells = [
            _cell(results, learner, night).ljust(c)
            for night, c in zip(results.nights, cols, strict=True)
        ]
        lines.append("  ".join([learner.ljust(width), *cells]).rstrip())
    lines.append("")
    for night in results.nights:
        kept = [g for g in results.for_night(night) if g.verified]
        refused = [g for g in results.refused if g.night == night]
        line = f"{night}: {len(kept)} graded, {len(refused)} refused"
        if kept:
            line += f", mean {mean(g.total or 0.0 for g in kept):.1f}"
            lost = _most_lost(kept)
            if lost:
                line += f"; the class lost most in {title(lost).lower()}"
            acts = Counter(g.first_wrong_act for g in kept if g.first_wrong_act)
            if acts:
                act, count = acts.most_common(1)[0]
                line += f"; most common first wrong act: `{act}` ({count})"
        lines.append(line)
    if results.pending:
        lines += [
            "",
            f"{results.pending} collected saves are not graded yet: `drill course grade`.",
        ]
    if results.refused:
        lines += ["", "Refused saves (not graded):"]
        for g in results.refused:
            refusal = g.refusal
            assert refusal is not None
            lines.append(
                f"- {g.learner}, {g.night}: {g.save_name}:{refusal.line}: {refusal.field}:"
                f" {refusal.reason}"
            )
    return visible("\n".join(lines)) + "\n"


def _cell(results: ClassResults, learner: str, night: str) -> str:
    cell = results.cell(learner, night)
    if cell is None:
        return "waiting" if (learner, night) in results.waiting else "-"
    if not cell.verified:
        return "refused"
    return f"{cell.total:.0f} {cell.grade}" + (" late" if cell.late else "")


def _most_lost(kept: list[GradedNight]) -> str | None:
    lost: dict[str, float] = {}
    for g in kept:
        for c in g.components:
            lost[c.name] = lost.get(c.name, 0.0) + c.lost
    if not lost:
        return None
    name = max(lost, key=lambda key: lost[key])
    return name if lost[name] > 0 else None

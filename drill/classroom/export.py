"""`drill course export --csv`: one row per learner and night, for an LMS gradebook.

Every learner the gradebook knows gets a row for every night of the course, in the course's
order, whether or not they handed it in: an LMS import wants the full grid. A cell of text that
a spreadsheet would read as a formula (it starts with =, +, -, @, a tab or a carriage return;
a learner's name comes from their save) is written with a ' in front.
"""

from __future__ import annotations

import csv
import io

from drill.classroom.results import ClassResults
from drill.figures import title

COLUMNS = (
    "learner",
    "night",
    "status",
    "score",
    "grade",
    "seed",
    "attempts",
    "late",
    "lost_most",
    "first_wrong_act",
    "save",
    "refusal",
)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_rows(results: ClassResults) -> list[dict[str, str]]:
    rows = []
    waiting = set(results.waiting)
    for learner in results.learners:
        for night in results.nights:
            cell = results.cell(learner, night)
            row = dict.fromkeys(COLUMNS, "")
            row.update(learner=learner, night=night, attempts="0")
            if cell is None:
                row["status"] = "not graded yet" if (learner, night) in waiting else "not handed in"
            else:
                row.update(
                    attempts=str(cell.attempts),
                    seed=str(cell.seed),
                    save=cell.save_name,
                    late="yes" if cell.late else "no",
                )
                if cell.verified:
                    row.update(
                        status="graded",
                        score=f"{cell.total:.1f}",
                        grade=cell.grade or "",
                        lost_most=title(cell.lost_most) if cell.lost_most else "",
                        first_wrong_act=cell.first_wrong_act or "",
                    )
                else:
                    refusal = cell.refusal
                    assert refusal is not None
                    row.update(
                        status="refused",
                        refusal=f"line {refusal.line}, {refusal.field}: {refusal.reason}",
                    )
            rows.append(row)
    return rows


def csv_text(results: ClassResults) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in csv_rows(results):
        writer.writerow({key: _cell(value) for key, value in row.items()})
    return out.getvalue()


def _cell(value: str) -> str:
    return f"'{value}" if value.startswith(FORMULA_START) else value

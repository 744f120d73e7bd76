"""The saves folder: where a new save goes, and the best score per incident for the picker."""

from __future__ import annotations

import os
from pathlib import Path

from drill.saves.model import SaveError
from drill.saves.reader import read_save


def default_save_path(incident_id: str, seed: int) -> Path:
    """The next free name in the saves folder. A name taken by anything, a dangling symbolic
    link included, is skipped: the writer never follows a link."""
    from drill.saves_dir import saves_dir

    folder = saves_dir()
    n = 1
    while os.path.lexists(folder / f"{incident_id}-seed{seed}-{n:03d}.jsonl"):
        n += 1
    return folder / f"{incident_id}-seed{seed}-{n:03d}.jsonl"


def best_scores(folder: Path | None = None) -> dict[str, float]:
    """The best finished score per incident id among the saves in a folder. A save that does
    not read is skipped: the picker must open even when one save is damaged or hostile."""
    from drill.saves_dir import saves_dir

    folder = folder or saves_dir()
    best: dict[str, float] = {}
    if not folder.is_dir():
        return best
    for path in sorted(folder.glob("*.jsonl")):
        try:
            save = read_save(path)
        except SaveError:
            continue
        if save.score is None:
            continue
        total = float(save.score["total"])
        incident_id = save.header["incident_id"]
        best[incident_id] = max(best.get(incident_id, 0.0), total)
    return best

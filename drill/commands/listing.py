"""`drill list`: the incidents, in the suggested order."""

from __future__ import annotations

import argparse
from pathlib import Path

from drill.cli import print_json
from drill.commands.resolve import shipped_incident_files
from drill.incident.loader import load_incident


def incident_files(paths: list[str]) -> list[Path]:
    if not paths:
        return shipped_incident_files()
    files: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            files += sorted(path.glob("*.yaml")) + sorted(path.glob("*.yml"))
        else:
            files.append(path)
    return files


def list_incidents(args: argparse.Namespace) -> int:
    rows = []
    for path in incident_files(args.paths):
        incident = load_incident(path).incident
        rows.append(
            {
                "id": incident.id,
                "title": incident.title,
                "difficulty": incident.difficulty,
                "tags": list(incident.tags),
                "faults": sorted({f.kind for f in incident.faults}),
                "order": incident.order,
                "estimated_minutes": incident.estimated_minutes,
                "path": str(path),
            }
        )
    rows.sort(key=lambda r: (r["order"], r["id"]))
    if args.json:
        print_json(rows)
        return 0
    for number, row in enumerate(rows, start=1):
        print(
            f"{number}. {row['id']:<16} {row['difficulty']:<8} ~{row['estimated_minutes']}m  {row['title']}"
        )
    return 0

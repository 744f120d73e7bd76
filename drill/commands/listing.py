"""`drill list`: the incidents, in the suggested order."""

from __future__ import annotations

import argparse

from drill.commands.printing import print_json, say
from drill.incident.library import incident_files
from drill.incident.loader import load_incident


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
    width = max((len(row["id"]) for row in rows), default=0)
    for number, row in enumerate(rows, start=1):
        say(
            f"{number}. {row['id']:<{width}}  {row['difficulty']:<8} ~{row['estimated_minutes']}m  {row['title']}"
        )
    return 0

"""Write the golden saves: every shipped incident's reference and graded runbooks at its first
seed, played by the real CLI with the in-process replica. Run from the repo root after a change
that is meant to change a night:

    .venv/bin/python tests/golden/regenerate.py

then look at the diff of tests/golden/ before committing it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent


def runbooks(incident_path: Path) -> list[str]:
    sys.path.insert(0, str(REPO))
    from drill.incident.loader import load_incident

    incident = load_incident(incident_path).incident
    return ["reference"] + [r.name for r in incident.runbooks]


def main() -> int:
    for old in GOLDEN.glob("*.jsonl"):
        old.unlink()
    for incident_path in sorted((REPO / "drill" / "incidents").glob("*.yaml")):
        relative = incident_path.relative_to(REPO)
        for name in runbooks(incident_path):
            save = GOLDEN / f"{incident_path.stem}--{name}.jsonl"
            # The author's own lines: templates and all, as `drill test` plays them.
            how = ["--reference"] if name == "reference" else ["--runbook", name]
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "drill",
                    "run",
                    str(relative),
                    *how,
                    "--save",
                    str(save),
                    "--json",
                ],
                cwd=REPO,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                return 1
            print(f"wrote {save.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

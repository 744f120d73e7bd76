"""The engine, the simulation and the incident layer never pull in a UI or torch."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    """
    import sys

    import drill.cli
    import drill.engine
    import drill.incident
    import drill.sim
    from drill.commands import run_command
    from drill.engine.account import account
    from drill.engine.drill import Drill
    from drill.engine.headless import play
    from drill.engine.timed import parse_text
    from drill.incident.loader import load_incident

    incident = load_incident("incidents/dead-rank.yaml").incident
    d = Drill(incident, 1)
    actions = parse_text("\\n".join(incident.reference), "ref", {f.id for f in incident.faults})
    data = account(d, play(d, actions))
    assert data["recovered"], data["jobs"]
    d.snapshot()
    d.events()
    loaded = sorted({m.split(".")[0] for m in sys.modules} & {"textual", "rich", "torch"})
    print("loaded:", ",".join(loaded))
    """
)


def test_core_layers_never_import_ui_or_torch():
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "loaded:", done.stdout

"""Imports point down the layers of DESIGN.md, and the core never pulls in a UI or torch.

The layers are import-linter contracts in pyproject.toml; these tests run them, check that every
module of drill sits in a layer, show that a wrong import really breaks them, and (the
Harlequin check) import and play the core in a fresh process to see textual and torch stay out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PYPROJECT = REPO / "pyproject.toml"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def contracts() -> list[dict]:
    return tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]


def layered_modules() -> list[str]:
    """The modules of the top-level layers contract (the others order one package inside)."""
    (layers,) = [c for c in contracts() if c["type"] == "layers" and "containers" not in c]
    return [name.strip() for layer in layers["layers"] for name in layer.split(":")]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """`lint-imports` on the tree at `root`, in a process that imports drill from there."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_import_contracts_hold():
    done = lint_imports(REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout, done.stdout


def test_every_module_of_drill_sits_in_a_layer():
    """A new top-level module or package must be given a layer, or nothing checks its imports."""
    modules = {
        f"drill.{path.stem}" if path.is_file() else f"drill.{path.name}"
        for path in (REPO / "drill").iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    missing = sorted(modules - set(layered_modules()))
    assert not missing, f"add these to a layer in pyproject.toml: {missing}"


def test_there_is_a_contract_for_each_rule_of_design_md():
    forbidden = [
        (set(c["source_modules"]), set(c["forbidden_modules"]))
        for c in contracts()
        if c["type"] == "forbidden"
    ]

    def covered(module: str, sources: set[str]) -> bool:
        # A contract on a package covers its modules: "drill" rules drill.engine too.
        return any(module == s or module.startswith(s + ".") for s in sources)

    def ruled(sources: set[str], banned: set[str]) -> bool:
        return any(all(covered(m, s) for m in sources) and banned <= b for s, b in forbidden)

    core = {"drill.engine", "drill.sim", "drill.incident", "drill.faults"}
    assert ruled(core, {"textual", "rich"})
    assert ruled(core, {"torch"})
    assert ruled({"drill"}, {"torch"}), "torch belongs in replica/, behind its interface"
    assert ruled({"replica"}, {"drill", "simpy", "textual"})
    assert layered_modules()[:2] == ["drill.__main__", "drill.cli"]
    protected = [c for c in contracts() if c["type"] == "protected"]
    assert any(c["protected_modules"] == ["replica"] for c in protected), "who may import replica"
    inner = {tuple(c["containers"]) for c in contracts() if "containers" in c}
    assert ("drill.engine",) in inner, "the engine's inner order: scoring above the night"
    importlinter = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    assert importlinter["exclude_type_checking_imports"] is False, "type-only imports count"


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        (
            "drill/engine/scoring/score.py",
            "from drill.saves_dir import saves_dir",
            "drill.saves_dir",
        ),
        # The night never imports its own judge, not even for a type.
        (
            "drill/engine/drill.py",
            "from drill.engine.scoring.par import score_drill",
            "drill.engine.drill -> drill.engine.scoring.par",
        ),
        (
            "drill/engine/snapshot.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from drill.engine.drill import Drill",
            "drill.engine.snapshot -> drill.engine.drill",
        ),
        (
            "drill/engine/actions/argtypes.py",
            "from drill.engine.actions.catalog import VERBS",
            "drill.engine.actions.argtypes -> drill.engine.actions.catalog",
        ),
        (
            "drill/tui/driver.py",
            "from replica.build import warm_up",
            "drill.tui.driver -> replica.build",
        ),
        ("drill/incident/clock.py", "import textual", "textual"),
        ("drill/sim/rng.py", "import replica.trainer", "replica"),
        ("replica/errors.py", "import simpy", "simpy"),
        ("drill/tui/messages.py", "import drill.commands", "drill.commands"),
        ("drill/report.py", "import torch", "torch"),
    ],
)
def test_a_wrong_import_breaks_the_contracts(tmp_path, module, line, broken):
    """The contracts can fail: a copy of the tree with one wrong import does not pass."""
    for part in ("drill", "replica"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PYPROJECT, tmp_path / "pyproject.toml")
    target = tmp_path / module
    target.write_text(target.read_text() + f"\n{line}  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0, done.stdout
    assert "BROKEN" in done.stdout and broken in done.stdout, done.stdout


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
    from drill.incident.library import resolve_incident

    incident = resolve_incident("dead-rank").incident
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

"""docs/bring-your-replica.md: its minimal example runs exactly as written, from a folder of its
own, through the installed `drill` command: the page's pyproject.toml is installed with pip
(its `drill.replicas` entry point is real package metadata) and its `[tool.drill]` table
chooses the replica by that name."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "bring-your-replica.md"
TEXT = PAGE.read_text(encoding="utf-8")
# The example is what the section of that name shows, nothing from earlier on the page.
EXAMPLE = TEXT[TEXT.index("## A minimal example that runs") :]


def _blocks() -> list[tuple[str, str]]:
    """(language, text) of every fenced block, in order."""
    out, language, lines = [], None, []
    for line in EXAMPLE.splitlines():
        fence = re.fullmatch(r"\s*```(\w*)", line)
        if fence and language is None:
            language, lines = fence.group(1), []
        elif fence:
            out.append((language, "\n".join(lines) + "\n"))
            language = None
        elif language is not None:
            lines.append(line)
    return out


def _block(language: str, marker: str) -> str:
    found = [text for lang, text in _blocks() if lang == language and marker in text]
    assert len(found) == 1, f"expected one {language} block with {marker!r}"
    return found[0]


def _drill_command() -> list[str]:
    script = Path(sys.executable).with_name("drill")
    return [str(script)] if script.exists() else [sys.executable, "-m", "drill"]


def test_the_page_is_plain_english() -> None:
    assert "\u2014" not in TEXT


def test_the_minimal_example_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "myreplica.py").write_text(_block("python", "class SineFit"))
    (tmp_path / "pyproject.toml").write_text(_block("toml", 'replica = "sine-fit"'))
    assert _block("", "pip install").strip() == "pip install -e ."
    # The page installs it into drill's environment; the test installs the same package into
    # a folder of its own (a real install: pip builds it and writes its dist-info), so the
    # shared environment is left as it was.
    site = tmp_path.parent / f"{tmp_path.name}-site"
    pip = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(tmp_path)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert pip.returncode == 0, pip.stderr
    assert (site / "myreplica.py").exists()
    command = _block("", "drill run").strip()
    assert command == "drill run dead-rank --reference --json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DRILL_SAVES_DIR")}
    # This checkout's drill first (the script may belong to another checkout's install), then
    # the folder the package was installed into.
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(site)])
    done = subprocess.run(
        _drill_command() + command.split()[1:],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    replica = json.loads(done.stdout)["replica"]
    assert replica["replica"] == "sine-fit"
    assert replica["final_step"] == 300 and replica["match"] == "bitexact"
    assert replica["final_loss"] < 0.5  # an MSE on sin(2x) that trained
    save = next((tmp_path / "saves").glob("dead-rank-*.jsonl"))
    header = json.loads(save.read_text().splitlines()[0])
    assert header["replica"] == "sine-fit"  # the entry point's name, never a module path
    data = (site / "myreplica.py").read_bytes()
    fingerprint = hashlib.sha256(b"myreplica.py\0" + hashlib.sha256(data).digest()).hexdigest()
    assert header["replica_sha256"] == fingerprint

"""`drill report`: one self-contained HTML page, rendered by headless Chromium to check that the
sections, the curves and the timelines are really on the page."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from drill.saves import SaveWriter, read_save
from tests.clikit import run_drill

pytestmark = pytest.mark.slow  # a real night with the replica, then Chromium
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (.ci/run does it with apt-get)")
        pytest.skip("chromium is not installed here")
    return found


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    save = folder / "night.jsonl"
    done = run_drill("run", "dead-rank", "--reference", "--save", str(save))
    assert done.returncode == 0, done.stderr
    writer = SaveWriter.reopen(read_save(save))
    writer.text("opinion", "A person should decide, but the drain should be one command away.")
    writer.close()
    page = folder / "night.html"
    done = run_drill("report", str(save), "-o", str(page))
    assert done.returncode == 0, done.stderr
    return page


def test_the_page_is_self_contained(report):
    text = report.read_text()
    for outside in ("<script src", "<link ", "@import", "url(http"):
        assert outside not in text
    assert "\u2014" not in text


def test_chromium_renders_every_section(report, tmp_path):
    dom = subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            report.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    ).stdout
    for section in (
        "score",
        "loss-curve",
        "timeline",
        "key-concepts",
        "takeaways",
        "opinion",
        "runbook",
    ):
        assert f'id="{section}"' in dom, section
    assert "Key concepts" in dom and "Takeaways" in dom
    assert "the drain should be one command away" in dom
    assert 'class="learner"' in dom and 'class="baseline"' in dom  # both curves are drawn
    assert 'id="timeline-svg"' in dom and "<rect" in dom
    assert "## Queue" not in dom and "<h3>Queue</h3>" in dom  # the runbook is HTML, not Markdown
    shot = tmp_path / "page.png"
    subprocess.run(
        [
            chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={tmp_path / 'p2'}",
            "--window-size=1200,2000",
            f"--screenshot={shot}",
            report.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert shot.exists() and shot.stat().st_size > 10_000

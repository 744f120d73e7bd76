"""`drill report`: one self-contained HTML page, rendered by headless Chromium to check that the
sections, the curves and the timelines are really on the page; and, on a quick sim night, that
the figures read like a person wrote them and a broken reference column breaks the report."""

from __future__ import annotations

import re
import subprocess

import pytest

from drill.cli import main
from drill.saves import SaveWriter, read_save
from tests.chromiumkit import CHROMIUM_FLAGS, chromium
from tests.clikit import run_drill

slow = pytest.mark.slow  # a real night with the replica, then Chromium


@pytest.fixture(scope="module")
def report(tmp_path_factory):  # slow: a real night with the replica
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


@slow
def test_the_page_is_self_contained(report):
    text = report.read_text()
    for outside in ("<script src", "<link ", "@import", "url(http"):
        assert outside not in text
    assert "\u2014" not in text


@slow
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


# -- a quick night with the sim backend ------------------------------------------------------


@pytest.fixture(scope="module")
def sim_save(tmp_path_factory):
    save = tmp_path_factory.mktemp("report-sim") / "night.jsonl"
    args = ["run", "dead-rank", "--reference", "--backend", "sim", "--save", str(save)]
    assert main(args) == 0
    return save


def _table(page: str, heading: str) -> str:
    """The rows of the timeline table under an h3 (You, Reference)."""
    return page.split(f"<h3>{heading}</h3>", 1)[1].split("</table>", 1)[0]


def test_the_reference_column_is_the_reference_solution(sim_save, capsys):
    from drill.report import write_report

    page = write_report(str(sim_save))
    capsys.readouterr()
    reference = _table(page, "Reference")
    assert "<code>drain gpu-a-2</code>" in reference
    assert "<code>restart llm-pretrain --from latest --exclude gpu-a-2</code>" in reference
    assert reference.count("<tr>") == len(_table(page, "You").split("<tr>")) - 1


def test_a_broken_reference_column_breaks_the_report(sim_save, monkeypatch):
    """No broad except: a reference that cannot be read is an error, not an empty column."""
    import drill.report

    def broken(*args, **kwargs):
        raise RuntimeError("the par cache is unreadable")

    monkeypatch.setattr(drill.report, "reference_actions", broken)
    with pytest.raises(RuntimeError, match="par cache is unreadable"):
        drill.report.write_report(str(sim_save))


def test_figures_are_for_a_person_and_the_floor_is_doing_nothing(sim_save):
    from drill.report import write_report

    page = write_report(str(sim_save))
    score = page.split('<section id="score">', 1)[1].split("</section>", 1)[0]
    assert "<th>Doing nothing</th>" in score and "Nobody" not in page
    cells = re.findall(r"<td[^>]*>(.*?)</td>", score)
    for cell in cells:
        assert not re.search(r"\d\.\d{3,}", cell), cell  # no 6.991 or 0.8125
        assert "_" not in cell, cell  # no steps_recomputed
    assert any("GPU hours" in cell for cell in cells)
    assert any(re.fullmatch(r"\d{1,3}%", cell) for cell in cells)  # discipline as a share
    assert "Time to recovery" in score


def test_one_heading_per_section(sim_save):
    from drill.report import write_report

    page = write_report(str(sim_save))
    assert not re.search(r"</h\d>\s*<h\d", page), re.search(r"</h\d>\s*<h\d.{0,80}", page)
    assert page.count("<h2>Your cluster runbook</h2>") == 1 and "<h2>Cluster runbook" not in page

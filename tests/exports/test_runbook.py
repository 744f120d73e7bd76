"""`drill runbook`: four sections, numbers from the night, Young's formula with its inputs, the
learner's own words, and several nights merged into one document."""

from __future__ import annotations

import re

import pytest

from drill.saves import SaveWriter, read_save
from tests.clikit import run_drill

EM_DASH = "\u2014"


@pytest.fixture(scope="module")
def saves(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nights")
    out = {}
    for incident in ("dead-rank", "full-disk"):
        path = folder / f"{incident}.jsonl"
        done = run_drill("run", incident, "--reference", "--backend", "sim", "--save", str(path))
        assert done.returncode == 0, done.stderr
        out[incident] = path
    writer = SaveWriter.reopen(read_save(out["dead-rank"]))
    writer.text(
        "runbook.health", "Run health on every node of a hung job before touching any of them."
    )
    writer.close()
    return out


def test_four_sections_with_numbers_and_own_words(saves):
    done = run_drill("runbook", str(saves["dead-rank"]))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    for heading in ("## Queue", "## Health", "## Checkpoint", "## What you do at 3am"):
        assert heading in text
    assert "Young's formula: interval = sqrt(2 x 45s write x 1000h between failures) = 5h," in text
    assert "1000h on average" in text  # 2000h per node over the job's two nodes
    assert "You chose every 50 steps" in text
    assert "Run health on every node of a hung job" in text
    assert "no training progress" in text  # the page that fired, with what it meant
    assert "`health gpu-a-" in text
    assert EM_DASH not in text


def test_merge_several_nights_and_write_a_file(saves, tmp_path):
    out = tmp_path / "runbook.md"
    done = run_drill("runbook", str(saves["dead-rank"]), str(saves["full-disk"]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.count("### A GPU falls off the bus") == 4
    assert text.count("### The checkpoint volume fills up") == 4
    assert "980.0GB" in text  # full-disk checkpoint size: 70B parameters x 14 bytes
    assert EM_DASH not in text


def test_an_abandoned_night_still_exports(tmp_path):
    path = tmp_path / "abandoned.jsonl"
    actions = tmp_path / "a.actions"
    actions.write_text("03:05 status\n")
    assert (
        run_drill(
            "run", "dead-rank", "--actions", str(actions), "--backend", "sim", "--save", str(path)
        ).returncode
        == 0
    )
    lines = path.read_text().splitlines()
    path.write_text("\n".join(line for line in lines if '"type": "score"' not in line) + "\n")
    done = run_drill("runbook", str(path))
    assert done.returncode == 0, done.stderr
    assert "the night did not finish" in done.stdout


def test_a_broken_save_is_a_located_error(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text("not json\n")
    done = run_drill("runbook", str(path))
    assert done.returncode == 2
    assert f"{path}:1:" in done.stderr and "Traceback" not in done.stderr


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_the_3am_section_holds_the_whole_night_in_order(saves):
    """Audit defect 10: "What you do at 3am" held only the `ack` lines, the recovery steps were
    filed elsewhere, and dead-rank (no pre-shift choice) was told "the night rewarded your
    choice"."""
    done = run_drill("runbook", str(saves["dead-rank"]))
    assert done.returncode == 0, done.stderr
    night = _section(done.stdout, "## What you do at 3am")
    steps = [line for line in night.splitlines() if re.match(r"\d+\. `", line)]
    texts = [line.split("`")[1] for line in steps]
    saved = [a.text for a in read_save(saves["dead-rank"]).actions if a.accepted]
    assert texts == saved  # every action, in the order it was taken
    assert any(t.startswith("drain ") for t in texts) and any(
        t.startswith("restart ") for t in texts
    )
    assert "your choice" not in done.stdout


def test_figures_read_as_a_person_writes_them(saves):
    """Audit defect 12: "sqrt(2 x 45s write x 3600000s between failures) = 18000s", "2 node(s)",
    a page and its meaning joined as ".:", and every list item numbered "1."."""
    done = run_drill("runbook", str(saves["dead-rank"]), str(saves["full-disk"]))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "(s)" not in text and ".:" not in text, text
    assert "The job spans 2 nodes;" in text
    assert not re.search(r"\d{4,}s\b", text), "a duration in raw seconds"
    # Each ordered list counts 1, 2, 3... from its own start.
    for block in re.split(r"\n(?!\d+\. )", text):
        numbers = [int(n) for n in re.findall(r"^(\d+)\. ", block, flags=re.M)]
        assert numbers == list(range(1, len(numbers) + 1)), block
    whole = _section(text, "## What you do at 3am")
    assert "\n2. `" in whole and "\n3. `" in whole


def test_one_plural_for_every_count():
    from drill.values.units import plural

    assert [plural(n, "node") for n in (0, 1, 2)] == ["0 nodes", "1 node", "2 nodes"]
    assert plural(1, "variant night") == "1 variant night"
    assert plural(3, "body", "bodies") == "3 bodies"

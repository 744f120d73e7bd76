"""The class report's HTML page: self-contained, its figures the class's, every hostile word
escaped, written whole. (Chromium's rendering of it: test_class_page_chromium.py.)"""

from __future__ import annotations

import re

import pytest

from drill.classroom.class_figures import class_component_losses, first_wrong_acts, night_counts
from drill.classroom.class_page import class_page_html, write_class_page
from drill.classroom.heat import cell_text
from drill.classroom.results import ClassResults, GradedNight, Refusal, TimelineLine
from drill.text_safety import first_unsafe
from tests.classroom.class_sample import FIRST_NAMES, NIGHTS, SAMPLE, sample_class


@pytest.fixture(scope="module")
def page() -> str:
    return class_page_html(SAMPLE)


def _section(page: str, name: str) -> str:
    return page.split(f'<section id="{name}">', 1)[1].split("</section>", 1)[0]


# -- self-contained -------------------------------------------------------------------------


def test_the_page_names_no_outside_address_and_loads_nothing(page):
    assert not re.search(r"https?:", page, re.IGNORECASE)
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert "url(" not in page  # no background image, font or anything fetched by the style
    for attribute in re.findall(r'\b(?:src|href)="([^"]*)"', page):
        assert attribute.startswith("#"), attribute  # only links within the page
    assert "src=" not in page


def test_every_link_on_the_page_lands_on_something_on_it(page):
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert len(links) == len(SAMPLE.learners) and set(links) <= ids


def test_the_page_is_plain_english_with_a_title(page):
    assert "\u2014" not in page  # no em dash
    assert "<title>Cluster operations, spring cohort: class report</title>" in page
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")


# -- the figures on the page are the class's ------------------------------------------------


def test_the_heat_table_has_one_cell_per_learner_and_night_with_its_words(page):
    table = _section(page, "heat")
    cells = re.findall(
        r'<td class="heat h-([A-Za-z]+)" data-night="([^"]+)"[^>]*>([^<]*)</td>', table
    )
    assert len(cells) == len(SAMPLE.learners) * len(SAMPLE.nights)
    expected = [(SAMPLE.cell(learner, n), n) for learner in SAMPLE.learners for n in SAMPLE.nights]
    for (key, night, words), (entry, n) in zip(cells, expected, strict=True):
        assert night == n and words == cell_text(entry)
        if entry is None:
            assert key == "missing"
        elif entry.refusal is not None:
            assert key == "refused"
        else:
            assert key == entry.grade
    assert sum(1 for c in cells if c[0] == "refused") == 5
    assert sum(1 for c in cells if c[0] == "missing") == 5


def test_the_histograms_bars_are_the_nights_counts(page):
    charts = _section(page, "distribution").split('<figure class="night-chart"')[1:]
    assert len(charts) == len(NIGHTS)
    for chart, night in zip(charts, NIGHTS, strict=True):
        assert chart.startswith(f' data-night="{night}"')
        bars = [
            int(n)
            for n in re.findall(r'<rect class="bar" data-bin="[^"]+" data-count="(\d+)"', chart)
        ]
        counts = night_counts(SAMPLE, night)
        assert tuple(bars) == counts.histogram
        assert (
            f"{counts.verified} verified, {counts.refused} refused, {counts.missing} missing"
            in chart
        )


def test_a_bars_height_follows_its_count(page):
    chart = _section(page, "distribution").split('<figure class="night-chart"')[1]
    bars = re.findall(
        r'data-count="(\d+)" x="[^"]+" y="[^"]+" width="[^"]+" height="([^"]+)"', chart
    )
    tallest = max(int(c) for c, _ in bars)
    top = max(float(h) for _, h in bars)
    for count, height in bars:
        assert float(height) == pytest.approx(top * int(count) / tallest, abs=0.06)


def test_the_points_lost_per_component_are_the_classes(page):
    section = _section(page, "components")
    drawn = re.findall(r'<rect class="lost" data-component="([^"]+)"', section)
    losses = class_component_losses(SAMPLE)
    assert drawn == [c.name for c in losses]  # biggest loss first
    totals = re.findall(r'<td class="num">([\d.]+)</td></tr>', section)
    assert [float(t) for t in totals] == [round(c.lost, 1) for c in losses]


def test_the_most_common_first_wrong_act_leads_each_nights_list(page):
    section = _section(page, "wrong-acts")
    for night in NIGHTS:
        part = section.split(f'<h3 data-night="{night}">', 1)[1].split("<h3", 1)[0]
        shown = re.findall(r'<td><code>([^<]+)</code></td><td class="num">(\d+) of', part)
        assert [(a, int(n)) for a, n in shown] == [
            (w.act, w.count) for w in first_wrong_acts(SAMPLE, night)
        ]


def test_each_refused_save_shows_its_line_field_and_reason(page):
    section = _section(page, "refused")
    refused = [g for g in SAMPLE.graded if g.refusal is not None]
    assert section.count("<tr>") == len(refused) + 1  # and the heading row
    for entry in refused:
        r = entry.refusal
        assert r is not None and r.reason.replace("'", "&#x27;") in section
        row = section.split(entry.save_name, 1)[1].split("</tr>", 1)[0]
        assert (f">{r.line}<" if r.line else ">unreadable<") in row


def test_a_refused_save_beside_a_kept_verified_one_is_still_listed():
    """The gradebook keeps the verified attempt in `graded` and lists every refused save in
    `refused`: an edited save is news even when the learner has a good one."""
    kept = next(g for g in SAMPLE.graded if g.verified)
    edited = GradedNight(
        kept.learner,
        kept.night,
        kept.seed,
        "edited-copy.jsonl",
        kept.attempts + 1,
        None,
        None,
        refusal=Refusal(4, "actions[2].text", "the action on this line is not what was played"),
    )
    results = ClassResults(SAMPLE.title, SAMPLE.nights, SAMPLE.learners, SAMPLE.graded, (edited,))
    section = _section(class_page_html(results), "refused")
    assert "edited-copy.jsonl" in section
    refused = [g for g in SAMPLE.graded if g.refusal is not None]
    assert section.count("<tr>") == len(refused) + 2  # the heading row and the edited copy


def test_each_learner_has_a_drill_down_with_their_timeline(page):
    section = _section(page, "learners")
    assert section.count("<details ") == len(SAMPLE.learners)
    ada = section.split('<details id="learner-1">', 1)[1].split("</details>", 1)[0]
    for entry in SAMPLE.for_learner(FIRST_NAMES[0]):
        assert entry.save_name in ada
        for line in entry.timeline:
            assert line.text in ada
    wrong = [g for g in SAMPLE.for_learner(FIRST_NAMES[0]) if g.first_wrong_act]
    assert ada.count('<tr class="wrong">') == len(wrong)


def test_an_empty_class_still_makes_a_page():
    empty = ClassResults("Nobody yet", ("dead-rank",), ())
    text = class_page_html(empty)
    assert "0 learners, 1 night" in text and "nothing to count yet" in text


# -- hostile words --------------------------------------------------------------------------

HOSTILE = (
    '<script>alert("name")</script>',
    'O\'Brien "the admin" & co',
    "Eve\x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07",
    "Mallory\u202eevil",
    "[bold red]markup[/]",
)


@pytest.fixture(scope="module")
def hostile_page() -> str:
    base = sample_class(HOSTILE + FIRST_NAMES[len(HOSTILE) :])
    act = '<img src=x onerror="alert(1)">\x1b[31m'
    graded = list(base.graded)
    first = graded[0]
    graded[0] = GradedNight(
        learner=first.learner,
        night=first.night,
        seed=first.seed,
        save_name='"><script>x</script>.jsonl',
        attempts=1,
        total=50.0,
        grade="D",
        first_wrong_act=act,
        timeline=(TimelineLine(60.0, "03:01", "action", act),),
    )
    graded.append(
        GradedNight(
            learner=HOSTILE[1],
            night="</td><script>",
            seed=1,
            save_name="x.jsonl",
            attempts=1,
            total=None,
            grade=None,
            refusal=Refusal(2, "<b>field</b>", "reason </td><script>alert(2)</script>\x9b"),
        )
    )
    hostile = ClassResults(
        '<script>title</script> "class"',
        (*base.nights, "</td><script>"),
        base.learners,
        tuple(graded),
    )
    return class_page_html(hostile)


def test_hostile_names_actions_and_reasons_are_escaped(hostile_page):
    assert (
        "<script" not in hostile_page and "<img" not in hostile_page and "<b>" not in hostile_page
    )
    assert "&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;" in hostile_page
    assert "O&#x27;Brien &quot;the admin&quot; &amp; co" in hostile_page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in hostile_page
    assert "&lt;script&gt;title&lt;/script&gt;" in hostile_page.split("</title>")[0]


def test_no_control_character_reaches_the_page(hostile_page):
    assert first_unsafe(hostile_page) is None
    assert "Eve\u241b[2J\u241b]52;c;" in hostile_page  # ESC shows as its visible sign
    assert "Mallory\ufffdevil" in hostile_page  # the bidi override is neutralised


def test_hostile_names_never_become_ids_or_links(hostile_page):
    ids = re.findall(r'\bid="([^"]+)"', hostile_page)
    assert all(re.fullmatch(r"[a-z0-9-]+", i) for i in ids), ids


# -- written whole --------------------------------------------------------------------------


def test_the_page_is_written_whole_where_asked(tmp_path):
    target = tmp_path / "course" / "report" / "class.html"
    assert write_class_page(SAMPLE, target) == str(target)
    assert target.read_text(encoding="utf-8") == class_page_html(SAMPLE)
    assert [p.name for p in target.parent.iterdir()] == ["class.html"]  # no temp file left

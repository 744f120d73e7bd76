"""The class report's figures: the histogram's counts, the points lost per component, the most
common first wrong act, and the heat bands, on small classes whose answers are worked out by
hand, and on the forty-learner sample."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from drill.classroom.class_figures import (
    BINS,
    bin_label,
    bin_of,
    class_component_losses,
    first_wrong_acts,
    lost_most,
    night_counts,
    no_wrong_act,
)
from drill.classroom.heat import GRADE_HEAT, MISSING, REFUSED, cell_text, heat_of
from drill.classroom.results import ClassResults, ComponentPoints, GradedNight, Refusal
from tests.classroom.class_sample import MISSING_CELLS, NIGHTS, REFUSED_CELLS, SAMPLE


def night(learner, total, *, name="n1", components=(), wrong=None, refused=False):
    return GradedNight(
        learner=learner,
        night=name,
        seed=1,
        save_name=f"{learner}.jsonl",
        attempts=1,
        total=None if refused else total,
        grade=None if refused else ("A" if total >= 90 else "C"),
        components=tuple(ComponentPoints(*c) for c in components),
        first_wrong_act=wrong,
        refusal=Refusal(4, "score.total", "edited") if refused else None,
    )


def small_class(*graded, learners=("a", "b", "c", "d", "e")):
    return ClassResults("t", ("n1", "n2"), learners, tuple(graded))


# -- the histogram --------------------------------------------------------------------------


def test_the_histogram_counts_each_verified_score_in_its_ten_points():
    results = small_class(
        night("a", 0.0),
        night("b", 9.99),
        night("c", 90.0),
        night("d", 100.0),
        night("e", 55.0, refused=True),  # no score: not in a bar
    )
    counts = night_counts(results, "n1")
    assert counts.histogram == (2, 0, 0, 0, 0, 0, 0, 0, 0, 2)
    assert (counts.verified, counts.refused, counts.missing) == (4, 1, 0)
    assert counts.median == (9.99 + 90.0) / 2


def test_a_learner_with_no_save_for_a_night_is_missing_there():
    results = small_class(night("a", 70.0), night("b", 72.0, name="n2"))
    assert night_counts(results, "n1").missing == 4  # b, c, d, e
    assert night_counts(results, "n2").missing == 4
    assert night_counts(results, "n2").mean == 72.0


def test_the_bins_edges_and_labels():
    assert [bin_of(t) for t in (0, 9.99, 10, 89.9, 90, 99.99, 100)] == [0, 0, 1, 8, 9, 9, 9]
    assert bin_label(0) == "0-9" and bin_label(8) == "80-89" and bin_label(9) == "90-100"


@given(st.lists(st.floats(min_value=0, max_value=100, allow_nan=False), max_size=60))
def test_every_verified_total_is_in_exactly_the_bar_of_its_range(totals):
    results = ClassResults(
        "t",
        ("n1",),
        tuple(f"l{i}" for i in range(len(totals))),
        tuple(night(f"l{i}", t) for i, t in enumerate(totals)),
    )
    histogram = night_counts(results, "n1").histogram
    assert len(histogram) == BINS and sum(histogram) == len(totals)
    for index, count in enumerate(histogram):
        low, high = index * 10, 100 if index == BINS - 1 else index * 10 + 10
        inside = [t for t in totals if low <= t < high or (index == BINS - 1 and t == 100)]
        assert count == len(inside)


def test_the_samples_nights_add_up_to_the_class():
    for n, name in enumerate(NIGHTS):
        counts = night_counts(SAMPLE, name)
        refused = sum(1 for _, night_index in REFUSED_CELLS if night_index == n)
        missing = sum(1 for _, night_index in MISSING_CELLS if night_index == n)
        assert (counts.refused, counts.missing) == (refused, missing)
        assert sum(counts.histogram) == counts.verified == 40 - refused - missing


# -- points lost per component --------------------------------------------------------------


def test_points_lost_per_component_sum_the_verified_nights_only():
    results = small_class(
        night("a", 80, components=[("progress", 20, 25), ("plan", 0, 0)]),
        night("b", 60, components=[("progress", 10, 25), ("discipline", 12, 15)]),
        night("c", 90, name="n2", components=[("progress", 25, 25), ("plan", 4, 10)]),
        night("d", 0, components=[("progress", 0, 25)], refused=True),
    )
    losses = {c.name: c for c in class_component_losses(results)}
    assert losses["progress"].lost == 20.0  # 5 + 15 + 0; the refused save's 25 is not counted
    assert losses["progress"].nights == 3 and losses["progress"].mean_weight == 25.0
    assert losses["discipline"].lost == 3.0
    # Plan weighed nothing on a's night (no plan to judge): one night scored, not two.
    assert losses["plan"].lost == 6.0 and losses["plan"].nights == 1
    assert [c.name for c in class_component_losses(results)] == ["progress", "plan", "discipline"]


def test_lost_most_is_the_component_with_most_points_lost_together():
    nights = [
        night("a", 70, components=[("progress", 24, 25), ("discipline", 8, 15)]),
        night("a", 70, name="n2", components=[("progress", 20, 25), ("discipline", 14, 15)]),
    ]
    worst = lost_most(nights)
    assert worst is not None and worst.name == "discipline" and worst.lost == 8.0  # 7+1 over 1+5
    assert lost_most([night("a", 100, components=[("progress", 25, 25)])]) is None


def test_the_samples_losses_are_the_sum_over_its_nights():
    by_hand: dict[str, float] = {}
    for entry in SAMPLE.graded:
        if entry.verified:
            for c in entry.components:
                if c.weight > 0:
                    by_hand[c.name] = by_hand.get(c.name, 0.0) + c.weight - c.points
    losses = class_component_losses(SAMPLE)
    assert {c.name: c.lost for c in losses} == {k: round(v, 2) for k, v in by_hand.items()}
    assert [c.lost for c in losses] == sorted((c.lost for c in losses), reverse=True)


# -- the most common first wrong act --------------------------------------------------------


def test_the_most_common_first_wrong_act_comes_first_and_spaces_do_not_split_it():
    results = small_class(
        night("a", 50, wrong="reboot gpu-a-2"),
        night("b", 50, wrong="drain gpu-a-3"),
        night("c", 50, wrong="drain  gpu-a-3 "),
        night("d", 90),
        night("e", 0, wrong="reboot gpu-a-2", refused=True),  # refused: not counted
    )
    acts = first_wrong_acts(results, "n1")
    assert [(a.act, a.count) for a in acts] == [("drain gpu-a-3", 2), ("reboot gpu-a-2", 1)]
    assert no_wrong_act(results, "n1") == 1


def test_ties_between_first_wrong_acts_are_alphabetical_and_cut_at_three():
    acts = ["swap x", "ack all", "drain y", "kill z"]
    results = small_class(*(night(str(i), 50, wrong=a) for i, a in enumerate(acts)))
    assert [a.act for a in first_wrong_acts(results, "n1")] == ["ack all", "drain y", "kill z"]


def test_the_samples_most_common_first_wrong_act_per_night():
    for name in NIGHTS:
        texts = [g.first_wrong_act for g in SAMPLE.for_night(name) if g.verified]
        top = first_wrong_acts(SAMPLE, name)[0]
        assert top.count == max(texts.count(t) for t in set(texts) if t)
        assert top.count == texts.count(top.act)


# -- the heat bands -------------------------------------------------------------------------


def test_the_legend_says_the_engines_own_grade_cutoffs():
    from drill.engine.scoring.score import GRADES

    for cutoff, letter in GRADES:
        assert f"{letter}, {cutoff} " in GRADE_HEAT[letter].meaning
    assert "under " + str(GRADES[-1][0]) in GRADE_HEAT["F"].meaning


def test_the_heat_bands_go_darker_as_the_grade_falls():
    """One hue by lightness: the order must hold in grey, for a printout or colour blindness."""

    def lightness(colour: str) -> float:
        r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    bands = [GRADE_HEAT[letter].background for letter in "ABCDF"]
    assert [lightness(c) for c in bands] == sorted((lightness(c) for c in bands), reverse=True)


def test_each_cell_says_its_number_and_letter_or_its_word():
    assert heat_of(None) is MISSING and cell_text(None) == "missing"
    refused = night("a", 0, refused=True)
    assert heat_of(refused) is REFUSED and cell_text(refused) == "refused"
    capped = GradedNight("a", "n1", 1, "s", 1, 89.9, "B")
    assert cell_text(capped) == "89 B" and heat_of(capped).key == "B"  # not "90 B"


def test_every_cells_words_stand_out_from_its_colour():
    """WCAG's contrast ratio of the cell's text on its background: at least 4 to 1 everywhere."""

    def luminance(colour: str) -> float:
        def channel(hex_pair: str) -> float:
            c = int(hex_pair, 16) / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(colour[i : i + 2]) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    from drill.classroom.heat import HEATS

    for heat in HEATS:
        light, dark = sorted((luminance(heat.background), luminance(heat.foreground)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 4.0, heat.key

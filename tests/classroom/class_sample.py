"""A realistic graded class, built from plain values: forty learners, three nights of the shipped
incidents, a spread of scores, five refused saves and five nights nobody handed in.

Drawn once from a fixed seed when the module is imported, so every test (and every xdist
worker) sees the very same class: the randomness is in how the sample was made, not in a test.
The components carry the engine's default weights, a night's total is its points over what it
could earn, and the letter follows the engine's cutoffs, as a real grading run would give.
"""

from __future__ import annotations

import random

from drill.classroom.results import (
    ClassResults,
    ComponentPoints,
    GradedNight,
    Refusal,
    TimelineLine,
)

SEED = 26
NIGHTS = ("dead-rank", "full-disk", "corrupt-checkpoint")
WEIGHTS = {
    "progress": 25.0,
    "recovered": 15.0,
    "time_to_recovery": 15.0,
    "integrity": 10.0,
    "collateral": 10.0,
    "plan": 10.0,
    "discipline": 15.0,
}
NO_PLAN = {"dead-rank", "full-disk"}  # nights without a pre-shift plan: plan weighs nothing
CUTOFFS = ((90, "A"), (80, "B"), (65, "C"), (50, "D"))

FIRST_NAMES = (
    "Ada Brandt", "Bilal Chaudhry", "Carmen Diaz", "Dmitri Orlov", "Efua Mensah", "Farah Haddad",
    "Gustavo Lima", "Hana Sato", "Idris Okafor", "Jana Novak", "Kai Tanaka", "Lena Vogel",
    "Mateo Rossi", "Nadia Karim", "Oskar Berg", "Priya Nair", "Quinn Walsh", "Rosa Ferreira",
    "Sami Aalto", "Tomas Horak", "Uma Patel", "Viktor Lind", "Wen Zhao", "Ximena Cruz",
    "Yusuf Demir", "Zoe Laurent", "Arjun Rao", "Beatriz Souza", "Chen Wei", "Dalia Mansour",
    "Emil Strand", "Fatima Bello", "Goran Petrov", "Helga Olsen", "Ines Moreau", "Jonas Keller",
    "Keiko Mori", "Luca Bianchi", "Maya Cohen", "Nils Ek",
)  # fmt: skip

REFERENCE = {
    "dead-rank": (
        (1650, "page", "CRITICAL gpu-a-2: Xid 79, GPU 2 has fallen off the bus"),
        (1980, "action", "ack all"),
        (1980, "action", "status llm-pretrain"),
        (1980, "action", "health gpu-a-2"),
        (1980, "action", "drain gpu-a-2"),
        (1980, "action", "restart llm-pretrain --from latest --exclude gpu-a-2"),
        (1980, "action", "swap gpu-a-2"),
        (2400, "event", "llm-pretrain training again on 15 GPUs"),
    ),
    "full-disk": (
        (3000, "action", "df"),
        (3300, "page", "WARNING /scratch 97% full"),
        (3360, "action", "ack all"),
        (3360, "action", "ckpt list llm-pretrain"),
        (3360, "action", "ckpt verify llm-pretrain 200"),
        (3360, "action", "ckpt rm llm-pretrain 200"),
        (3360, "action", "set llm-pretrain ckpt-keep 2"),
        (3360, "action", "restart llm-pretrain --from 150"),
        (3660, "event", "llm-pretrain training again from step 150"),
    ),
    "corrupt-checkpoint": (
        (2100, "page", "CRITICAL llm-pretrain rank 5 OOM-killed on gpu-b-1"),
        (2160, "action", "ack all"),
        (2160, "action", "status llm-pretrain"),
        (2160, "action", "health gpu-b-1"),
        (2160, "action", "ckpt list llm-pretrain"),
        (2160, "action", "ckpt verify llm-pretrain 300"),
        (2160, "action", "ckpt verify llm-pretrain 100"),
        (2160, "action", "restart llm-pretrain --from 100"),
        (2520, "event", "llm-pretrain training again from step 100"),
    ),
}
# Per night, the wrong first steps learners take, most often first, and which components each
# costs the most: a realistic class keeps making the same few mistakes.
WRONG = {
    "dead-rank": (
        ("restart llm-pretrain --from latest", ("time_to_recovery", "progress")),
        ("restart llm-pretrain --from scratch --exclude gpu-a-2", ("progress", "recovered")),
        ("reboot gpu-a-2", ("time_to_recovery", "discipline")),
        ("drain gpu-a-3", ("collateral", "discipline")),
    ),
    "full-disk": (
        ("ckpt rm llm-pretrain 150", ("progress", "integrity")),
        ("restart llm-pretrain --from scratch", ("progress", "recovered")),
        ("kill vision-finetune", ("collateral", "discipline")),
    ),
    "corrupt-checkpoint": (
        ("restart llm-pretrain --from latest", ("integrity", "recovered")),
        ("drain gpu-b-1", ("collateral", "time_to_recovery")),
        ("ckpt rm llm-pretrain 300", ("progress", "plan")),
    ),
}
REFUSED_AT = (
    (14, "actions[6].text", "The action on this line differs from what the replay of the night did."),
    (3, "incident_sha256", "The save is from another version of the incident file."),
    (22, "score.total", "The score written in the save is not the score its actions earn."),
    (9, "actions[2].time", "The action's time was changed after the night was played."),
    (0, "", "The save is cut short: its last line is not whole JSON."),
)  # fmt: skip
# (learner index, night index) of the refused and the missing saves.
REFUSED_CELLS = ((3, 0), (11, 1), (11, 2), (27, 1), (35, 2))
MISSING_CELLS = ((7, 2), (19, 0), (19, 1), (30, 2), (38, 1))


def clock(seconds: float) -> str:
    """The game's 03:00 start plus the night's seconds."""
    minutes = 3 * 60 + int(seconds // 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def grade_of(total: float) -> str:
    return next((letter for cutoff, letter in CUTOFFS if total >= cutoff), "F")


def _components(night: str, skill: float, costly: tuple[str, ...], rng: random.Random):
    out = []
    for name, weight in WEIGHTS.items():
        if name == "plan" and night in NO_PLAN:
            weight = 0.0
        share = min(1.0, max(0.0, skill + rng.uniform(-0.08, 0.12)))
        if name in costly:
            share *= 0.35 if name == costly[0] else 0.6
        out.append(ComponentPoints(name, round(weight * share, 2), weight))
    return tuple(out)


def _timeline(night: str, wrong: str | None, rng: random.Random) -> tuple[TimelineLine, ...]:
    lines = list(REFERENCE[night])
    if wrong is not None:
        # The wrong act comes right after the learner's first look.
        place = next(i for i, line in enumerate(lines) if line[1] == "action") + 1
        seconds = lines[place - 1][0] + rng.choice((30, 60, 120))
        lines.insert(place, (seconds, "action", wrong))
        for i in range(place + 1, len(lines)):
            lines[i] = (max(lines[i][0], seconds), *lines[i][1:])
    return tuple(TimelineLine(float(s), clock(s), kind, text) for s, kind, text in lines)


def _night(learner: int, name: str, night: str, rng: random.Random) -> GradedNight:
    skill = rng.betavariate(5, 1.6)
    attempts = rng.choice((1, 1, 1, 2, 3))
    save_name = f"{night}-{learner + 1:02d}-{attempts}.jsonl"
    wrong: str | None = None
    costly: tuple[str, ...] = ()
    if rng.random() < 0.7:
        choices = WRONG[night]
        wrong, costly = choices[min(len(choices) - 1, int(rng.expovariate(1.2)))]
    components = _components(night, skill, costly, rng)
    possible = sum(c.weight for c in components)
    total = round(100 * sum(c.points for c in components) / possible, 1)
    return GradedNight(
        learner=name,
        night=night,
        seed=1000 + NIGHTS.index(night),
        save_name=save_name,
        attempts=attempts,
        total=total,
        grade=grade_of(total),
        components=components,
        first_wrong_act=wrong,
        timeline=_timeline(night, wrong, rng),
    )


def _refused(learner: int, name: str, night: str, why: tuple[int, str, str]) -> GradedNight:
    return GradedNight(
        learner=name,
        night=night,
        seed=1000 + NIGHTS.index(night),
        save_name=f"{night}-{learner + 1:02d}-1.jsonl",
        attempts=1,
        total=None,
        grade=None,
        refusal=Refusal(*why),
    )


def sample_class(learners: tuple[str, ...] = FIRST_NAMES, seed: int = SEED) -> ClassResults:
    """The class; `learners` renames them (the escaping tests put hostile names in)."""
    rng = random.Random(seed)
    graded = []
    refusals = iter(REFUSED_AT)
    for i, name in enumerate(learners):
        for n, night in enumerate(NIGHTS):
            if (i, n) in MISSING_CELLS:
                continue
            if (i, n) in REFUSED_CELLS:
                graded.append(_refused(i, name, night, next(refusals)))
                continue
            graded.append(_night(i, name, night, rng))
    return ClassResults(
        title="Cluster operations, spring cohort",
        nights=NIGHTS,
        learners=tuple(learners),
        graded=tuple(graded),
    )


SAMPLE = sample_class()

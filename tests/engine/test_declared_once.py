"""Job settings and runbook sections are spelled in their declarations only, like the verbs
(tests/engine/test_verbs.py): drill/incident/job_settings.py and drill/engine/runbook_sections.py.
Everything else asks them, so a new setting or a renamed section changes one file. Docstrings,
docs and tests may spell them."""

from __future__ import annotations

from pathlib import Path

from drill.engine.runbook_sections import COMPONENT_SECTION, RUNBOOK_SECTIONS, Section
from drill.incident.job_settings import JOB_SETTINGS
from tests.engine.test_verbs import REPO, _strings

MODULES = sorted((REPO / "drill").rglob("*.py"))
SETTINGS_DECLARATION = REPO / "drill" / "incident" / "job_settings.py"
SECTIONS_DECLARATION = REPO / "drill" / "engine" / "runbook_sections.py"

# Modules that file things under the runbook's sections or show them. In these, a section's
# name or title as a string would be a second list; elsewhere "queue", "health" and
# "checkpoint" mean other things (panels, event kinds, YAML fields).
SECTION_CONSUMERS = [
    REPO / "drill" / "runbook.py",
    REPO / "drill" / "report.py",
    REPO / "drill" / "course.py",
    REPO / "drill" / "engine" / "planned.py",
    *sorted((REPO / "drill" / "season").rglob("*.py")),
    *sorted((REPO / "drill" / "tui" / "screens").rglob("*.py")),
]
# Where a section's word is also another thing's name, with why.
NOT_A_SECTION = {
    ("night.py", "queue"): "the Queue panel's id",
    ("night.py", "checkpoint"): "a checkpoint event's kind",
    ("night.py", "Queue"): "the Queue panel's label",
    ("figures.py", "checkpoint"): "a checkpoint event's kind",
    ("theory.py", "checkpoint"): "the job's `checkpoint:` block",
}


def _where(path: Path, text: str) -> str:
    return f"{path.relative_to(REPO)}: {text!r}"


def test_no_module_but_the_declaration_spells_a_setting():
    spelled = {*JOB_SETTINGS, *(s.label for s in JOB_SETTINGS.values())}
    found = [
        _where(path, text)
        for path in MODULES
        if path != SETTINGS_DECLARATION
        for text in _strings(path)
        if any(word in text for word in spelled)
    ]
    assert found == []


def test_no_module_but_the_declaration_spells_a_section():
    # A save key ("runbook.health"), the night section's name and its titles mean nothing else:
    # no module spells them.
    names = {s.section.value for s in RUNBOOK_SECTIONS}
    titles = {t for s in RUNBOOK_SECTIONS for t in (s.title, s.short)}
    anywhere = {Section.NIGHT.value} | {t for t in titles if t.lower() not in names}
    found = [
        _where(path, text)
        for path in MODULES
        if path != SECTIONS_DECLARATION
        for text in _strings(path)
        if text in anywhere or text.startswith("runbook.")
    ]
    words = names | titles
    found += [
        _where(path, text)
        for path in SECTION_CONSUMERS
        for text in _strings(path)
        if text in words and (path.name, text) not in NOT_A_SECTION
    ]
    assert found == []


def test_every_scored_component_that_gives_advice_has_one_section():
    named = [c for s in RUNBOOK_SECTIONS for c in s.components]
    assert len(named) == len(set(named)) == len(COMPONENT_SECTION)
    assert [s.section for s in RUNBOOK_SECTIONS] == list(Section)  # each section once, in order

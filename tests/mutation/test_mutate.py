"""The mutation ratchet's own reading: mutmut's names as MUTATION.md writes them, the list it
allows, and the settings it writes for one group."""

from __future__ import annotations

import tomllib

from tests.mutation.mutate import GROUPS, RATCHET, key_of, listed, mutmut_section, with_section


def test_mutmut_names_read_as_file_function_and_number():
    assert (
        key_of("drill.sim.invariants.x_broken_rules__mutmut_12") == "invariants.py broken_rules 12"
    )
    assert key_of("drill.saves.verify.x__close__mutmut_6") == "verify.py _close 6"
    assert (
        key_of("drill.incident.yaml_source.xǁ_Builderǁtext__mutmut_3")
        == "yaml_source.py _Builder.text 3"
    )
    # The same function after the scoring modules move keeps its key.
    assert key_of("drill.engine.scoring.discipline.x__looks_part__mutmut_2") == (
        "discipline.py _looks_part 2"
    )


def test_the_list_allows_what_it_explains_and_not_what_was_killed_since():
    allowed = listed()
    assert {"verify.py _close 6", "yaml_source.py _Builder.build 56"} <= allowed
    assert "yaml_source.py _Builder.build 62" in allowed  # "56 to 62"
    assert "yaml_source.py _load 36" not in allowed  # killed since: history only


def test_each_group_gets_a_mutmut_table_of_its_own():
    pyproject = (
        "[project]\nname = 'x'\n\n[tool.mutmut]\nonly_mutate = ['old']\n\n[tool.other]\na = 1\n"
    )
    for name in RATCHET:
        text = with_section(pyproject, mutmut_section(GROUPS[name]))
        data = tomllib.loads(text)
        assert data["tool"]["mutmut"]["only_mutate"] == GROUPS[name]["files"]
        assert data["tool"]["other"] == {"a": 1} and data["project"] == {"name": "x"}
        assert all(
            t.startswith("tests/")
            for t in data["tool"]["mutmut"]["pytest_add_cli_args_test_selection"]
        )

"""config.toml and the history file: what is wrong in them is one line each, never a crash;
writing the theme keeps every other line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drill.tui.bindings import BY_ID, KEYS
from drill.tui.config import (
    HISTORY_MAX,
    append_history,
    config_dir,
    load_config,
    load_history,
    save_theme,
)


def test_the_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DRILL_CONFIG_DIR", str(tmp_path / "mine"))
    assert config_dir() == tmp_path / "mine"
    monkeypatch.delenv("DRILL_CONFIG_DIR")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "3am-drill"


def test_a_good_file(tmp_path):
    (tmp_path / "config.toml").write_text(
        '# mine\ntheme = "nord"\n[keymap]\n"night.pause" = "f9"\n"night.log-search" = "ctrl+f, f7"\n'
    )
    config = load_config(tmp_path)
    assert config.problems == []
    assert config.theme == "nord"
    assert config.keymap == {"night.pause": "f9", "night.log-search": "ctrl+f,f7"}


def test_no_file_is_the_defaults(tmp_path):
    config = load_config(tmp_path)
    assert (config.theme, config.keymap, config.problems) == (None, {}, [])


def test_each_problem_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord\n')
    (problem,) = load_config(tmp_path).problems
    assert problem.startswith(str(path)) and "line 1" in problem and "\n" not in problem
    path.write_text('colour = "red"\ntheme = 3\n[keymap]\n"night.pause" = "f9 or f10"\n')
    problems = load_config(tmp_path).problems
    assert len(problems) == 3 and all("\n" not in p for p in problems)
    assert "unknown setting `colour`" in problems[0]
    assert "theme must be a name" in problems[1]
    assert 'keymap "night.pause"' in problems[2]


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_in_the_file_is_problems_or_settings_never_an_exception(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "config.toml").write_text(text, encoding="utf-8")
    config = load_config(folder)
    assert all(isinstance(p, str) and "\n" not in p for p in config.problems)


def test_the_theme_is_written_back_keeping_every_other_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# my keys\n[keymap]\n"night.pause" = "f9"\n')
    save_theme("gruvbox", tmp_path)
    assert path.read_text() == '# my keys\ntheme = "gruvbox"\n[keymap]\n"night.pause" = "f9"\n'
    save_theme("nord", tmp_path)
    config = load_config(tmp_path)
    assert config.theme == "nord" and config.keymap == {"night.pause": "f9"}
    assert path.read_text().count("theme") == 1


def test_history_keeps_the_newest_lines(tmp_path):
    for n in range(HISTORY_MAX * 3):
        append_history(f"status job-{n}", tmp_path)
    append_history("  ", tmp_path)
    append_history("two\nlines", tmp_path)
    history = load_history(tmp_path)
    assert len(history) == HISTORY_MAX
    assert history[-1] == "two lines" and history[-2] == f"status job-{HISTORY_MAX * 3 - 1}"


def test_every_binding_has_a_unique_id_and_a_scope():
    assert len(BY_ID) == len(KEYS)
    assert all("." in key.id and key.keys for key in KEYS)

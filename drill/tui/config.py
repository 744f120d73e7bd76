"""The learner's own settings, kept between sessions in one folder:

    $DRILL_CONFIG_DIR, else $XDG_CONFIG_HOME/3am-drill, else ~/.config/3am-drill
        config.toml   the theme and key bindings (read at start; the theme is written back
                      when the learner picks one from the palette)
        history       the command line's history, one line per command, newest last

config.toml, every key optional:

    theme = "nord"                    # any theme from Textual's palette (ctrl+p, "theme")

    [keymap]                          # binding id = keys, comma separated, as Textual names them
    "night.pause" = "f9"
    "night.log-search" = "ctrl+f,f8"

The ids are listed in the help screen (F1) beside each key. A file that cannot be read, an
unknown id or an unknown theme never stops the game: it is named in a notice, and the defaults
stand.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from drill.atomic_file import write_text_atomic

CONFIG_NAME = "config.toml"
HISTORY_NAME = "history"
HISTORY_MAX = 500
KEY = re.compile(r"[a-z0-9_+\-]+")  # one key as Textual names it: f9, ctrl+f, shift+tab


def config_dir() -> Path:
    explicit = os.environ.get("DRILL_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "3am-drill"


@dataclass
class Config:
    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line each, for a notice
    path: Path | None = None


def load_config(folder: Path | None = None) -> Config:
    path = (folder or config_dir()) / CONFIG_NAME
    config = Config(path=path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return config
    except (OSError, UnicodeDecodeError) as exc:
        config.problems.append(f"{path}: cannot read it ({exc}); using the default keys")
        return config
    import tomllib  # only when there is a config.toml: most first frames have none

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        config.problems.append(f"{path}: {exc}; using the default keys and theme")
        return config
    for key in sorted(set(data) - {"theme", "keymap"}):
        config.problems.append(f"{path}: unknown setting `{key}`; the settings are theme, keymap")
    theme = data.get("theme")
    if theme is not None:
        if isinstance(theme, str):
            config.theme = theme
        else:
            config.problems.append(f'{path}: theme must be a name in quotes, like theme = "nord"')
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict):
        config.problems.append(f'{path}: [keymap] must be a table of "binding-id" = "keys"')
        keymap = {}
    for binding_id, keys in keymap.items():
        parts = [part.strip() for part in keys.split(",")] if isinstance(keys, str) else []
        if not parts or not all(KEY.fullmatch(part) for part in parts):
            config.problems.append(
                f'{path}: keymap "{binding_id}" needs keys like "f9" or "ctrl+f,f8"'
            )
            continue
        config.keymap[str(binding_id)] = ",".join(parts)
    return config


def unknown_ids(keymap: dict[str, str], known: set[str]) -> list[str]:
    return sorted(set(keymap) - known)


def save_theme(theme: str, folder: Path | None = None) -> Path:
    """Write `theme = "NAME"` into config.toml, keeping every other line as it is."""
    path = (folder or config_dir()) / CONFIG_NAME
    line = f'theme = "{theme}"'
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        lines = []
    pattern = re.compile(r"^\s*theme\s*=")
    for index, existing in enumerate(lines):
        if existing.lstrip().startswith("["):
            lines.insert(index, line)  # top-level keys go before the first table
            break
        if pattern.match(existing):
            lines[index] = line
            break
    else:
        lines.append(line)
    write_text_atomic(path, "\n".join(lines) + "\n")
    return path


# -- history ----------------------------------------------------------------------------------


def load_history(folder: Path | None = None) -> list[str]:
    path = (folder or config_dir()) / HISTORY_NAME
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if line.strip()][-HISTORY_MAX:]


def append_history(line: str, folder: Path | None = None) -> None:
    """One command per line, appended; the file is trimmed back to the newest lines when it
    has grown to twice the limit."""
    line = line.replace("\n", " ").strip()
    if not line:
        return
    folder = folder or config_dir()
    path = folder / HISTORY_NAME
    folder.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    if path.stat().st_size > HISTORY_MAX * 2 * 80:
        kept = load_history(folder)
        write_text_atomic(path, "\n".join(kept) + "\n")

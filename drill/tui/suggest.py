""" "Did you mean": the closest line the prompt could have completed to, word by word.

Built on the completion's own `candidates`, so a misspelt verb, node, job, step or option value
(`restart llm-pretrain --from latets`) gets the same names Tab would have offered.
"""

from __future__ import annotations

import difflib

from drill.tui.completion import Names, candidates


def suggest(line: str, names: Names) -> str | None:
    """The line with each word that is not a candidate at its place replaced by the closest
    one that is; None when nothing close was found or nothing changed."""
    words = line.split()
    fixed: list[str] = []
    changed = False
    for word in words:
        prefix = " ".join(fixed) + " " if fixed else ""
        options = candidates(prefix, names)
        if options and word not in options and word.lower() not in options:
            close = _closest(word, options)
            if close:
                word, changed = close, True
        fixed.append(word)
    result = " ".join(fixed)
    return result if changed and result != " ".join(words) else None


def _closest(word: str, options: list[str], cutoff: float = 0.6) -> str | None:
    """The one clearly closest option: a tie (gpu-a-9 is as close to gpu-a-1 as to gpu-a-2)
    suggests nothing rather than a guess."""
    scored = sorted(
        ((difflib.SequenceMatcher(None, word.lower(), o.lower()).ratio(), o) for o in options),
        reverse=True,
    )
    best, name = scored[0]
    if best < cutoff or (len(scored) > 1 and scored[1][0] == best):
        return None
    return name

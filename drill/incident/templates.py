"""`{fault.ID.FIELD}`: names of what a fault chose at the night's seed, for incident authors.

They are filled in where a reference or graded runbook line runs (drill/engine/headless.py) and
wherever the game shows an author's text: hints, a graded runbook's `why`, the debrief's
takeaways and opinion (drill/engine/shown_text.py). The grammar and the fields live here, below
both, so the loader can check every text an incident holds.

    node, gpu, rank, job, leaf, step   what the fault's first pick struck
    island                             the fabric island of that node
    nodes                              every node it struck, comma separated
    leaf_nodes                         every node behind the leaf (or leaves) it struck
    island_nodes                       every node of the island (or islands) it struck
    time                               when it fired, as a time of night
    pid                                the process it left holding a GPU (zombie_memory)
"""

from __future__ import annotations

import re

TEMPLATE = re.compile(r"\{fault\.([a-z0-9][a-z0-9-]*)\.([a-z_]+)\}")
FIELDS = (
    "node",
    "gpu",
    "rank",
    "job",
    "leaf",
    "island",
    "nodes",
    "leaf_nodes",
    "island_nodes",
    "step",
    "time",
    "pid",
)
# Anything that looks like an attempt at a template, to catch `{fault.x}` or `{fualt.x.node}`.
LOOSE = re.compile(r"\{[^{}\s]*\}")


def template_problems(text: str, fault_ids: set[str]) -> list[str]:
    """What is wrong with the `{fault.ID.FIELD}` names in a text, one message each."""
    problems = []
    for match in TEMPLATE.finditer(text):
        fault, field = match.groups()
        if field not in FIELDS:
            problems.append(
                f"{match.group(0)}: unknown fault field {field!r}; use one of {', '.join(FIELDS)}"
            )
        elif fault not in fault_ids:
            known = ", ".join(sorted(fault_ids)) or "none"
            problems.append(f"{match.group(0)}: no fault with id {fault!r}; faults here: {known}")
    for match in LOOSE.finditer(TEMPLATE.sub("", text)):
        if match.group(0).startswith("{fault"):
            problems.append(
                f"{match.group(0)} is not a template; write {{fault.ID.FIELD}}, like"
                " {fault.gpu-dies.node}"
            )
    return problems

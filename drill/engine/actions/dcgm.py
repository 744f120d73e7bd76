"""`diag NODE`: DCGM's Diagnostic test on every GPU of a node (`dcgmi diag -r diagnostic`).

The test runs large matrix multiplies on each GPU for about three minutes and checks every
result against the expected one, so it is the look that catches a GPU that computes wrong
results with no Xid and a health check that says ok (drill/faults/gpu_sdc.py). It loads every
GPU of the node fully, so it is refused while a job runs there, and prints the result table as
dcgmi does: one row per outcome with the GPUs it applies to, and a warning per failing GPU.
"""

from __future__ import annotations

import textwrap

from drill.engine.actions.context import Call, Context
from drill.engine.actions.errors import Reject

# The test itself runs three minutes by default; starting it and reading the table adds one.
DIAG_SECONDS = 240.0
_LEFT = 27
_RIGHT = 48  # dcgmi wraps a long message inside its result column


def diag(ctx: Context, call: Call) -> str:
    node = call["node"]
    if not node.responsive or node.state in ("down", "rebooting"):
        return f"ssh: connect to host {node.name} port 22: Connection timed out"
    busy = sorted(node.allocations)
    if busy:
        raise Reject(
            f"{node.name} is running {', '.join(busy)}: the Diagnostic test loads every GPU of"
            " the node for three minutes, so stop or move that work first"
        )
    failed: dict[int, str] = {}
    for gpu in node.gpus:
        if gpu.broken:
            failed[gpu.index] = f"GPU {gpu.index}: the test could not run on this GPU"
        elif gpu.wrong_results is not None:
            failed[gpu.index] = (
                f"GPU {gpu.index}: matrix multiply results did not match the expected values;"
                " the GPU computes wrong results"
            )
    passed = [g.index for g in node.gpus if g.index not in failed]
    rows: list[tuple[str, str]] = []
    if failed:
        rows.append(("Diagnostic", f"Fail - {_gpus(sorted(failed))}"))
    if passed:
        rows.append(("" if failed else "Diagnostic", f"Pass - {_gpus(passed)}"))
    for _, text in sorted(failed.items()):
        for n, piece in enumerate(textwrap.wrap(text, _RIGHT)):
            rows.append(("Warning" if n == 0 else "", piece))
    right = max(len(r) for _, r in rows)
    rule = f"+{'-' * (_LEFT + 2)}+{'-' * (right + 2)}+"
    section = f"+{'-----  Hardware  '.ljust(_LEFT + 2, '-')}+{'-' * (right + 2)}+"
    out = [
        f"Successfully ran diagnostic for group ({node.name}, {node.gpu_count} GPUs).",
        rule,
        _row("Diagnostic", "Result", right),
        rule.replace("-", "="),
        section,
        *(_row(left, text, right) for left, text in rows),
        rule,
    ]
    return "\n".join(out)


def _gpus(indexes: list[int]) -> str:
    if len(indexes) == 1:
        return f"GPU: {indexes[0]}"
    return "GPUs: " + ", ".join(str(i) for i in indexes)


def _row(left: str, right: str, width: int) -> str:
    return f"| {left:<{_LEFT}} | {right:<{width}} |"

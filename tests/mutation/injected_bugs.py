"""The 13 bugs of issue 22, injected one at a time: each must fail a fast test.

Run it from the repository root:

    PYTHONPATH=$PWD .venv/bin/python -m tests.mutation.injected_bugs        # all 13
    PYTHONPATH=$PWD .venv/bin/python -m tests.mutation.injected_bugs hint   # names containing "hint"

It copies the working tree (tracked files and untracked ones git does not ignore) to a temporary
folder, checks that the named tests pass there untouched, then for each bug replaces one exact
piece of source text, runs the tests named for it and expects them to fail, and puts the text
back. It prints a table (bug, file, the test that caught it, seconds) and exits 1 if a bug got
through, 2 if an anchor text is not found exactly once under drill/ (the code moved or changed:
update the bug here, so the check never silently tests nothing).

Each bug is found by its text, not its path: the scoring modules are moving between folders, and
the anchor is searched for in every file under drill/.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Bug:
    name: str
    old: str  # source text that must occur exactly once under drill/
    new: str
    tests: tuple[str, ...]  # pytest node ids; at least one must fail with the bug in


BUGS = (
    Bug(
        "grade C's cutoff moved",
        '(65, "C")',
        '(70, "C")',
        ("tests/scoring/test_scale_bands.py::test_every_grade_band_starts_at_its_cutoff",),
    ),
    Bug(
        "step_for_loss interpolation inverted",
        "part = (above - loss) / (above - below)",
        "part = (loss - below) / (above - below)",
        (
            "tests/engine/test_outcome_figures.py"
            "::test_a_loss_between_two_steps_lands_between_them_in_proportion",
        ),
    ),
    Bug(
        "recovery window boundary",
        "return since <= end - window",
        "return since < end - window",
        (
            "tests/engine/test_outcome_figures.py"
            "::test_trained_through_the_end_is_fifteen_minutes_on_a_long_night",
            "tests/engine/test_outcome_figures.py"
            "::test_trained_through_the_end_is_a_fifth_of_a_short_night",
        ),
    ),
    Bug(
        "RECOVERED_SHARE changed",
        "RECOVERED_SHARE = 0.2 ",
        "RECOVERED_SHARE = 0.25 ",
        (
            "tests/engine/test_outcome_figures.py"
            "::test_trained_through_the_end_is_a_fifth_of_a_short_night",
        ),
    ),
    Bug(
        "_newest_good_on_disk takes the oldest",
        "return max(good, key=lambda r: r.step, default=None)",
        "return min(good, key=lambda r: r.step, default=None)",
        (
            "tests/engine/test_outcome_figures.py::test_newest_good_on_disk_is_the_newest",
            "tests/engine/test_outcome_figures.py::test_a_dead_job_keeps_its_newest_whole_checkpoint",
        ),
    ),
    Bug(
        "_caught_by_condition counts every corrupt file",
        'if r.condition != "ok" and r.verified is False',
        'if r.condition != "ok"',
        (
            "tests/engine/test_outcome_figures.py"
            "::test_a_corrupt_checkpoint_is_caught_only_when_verify_found_it",
        ),
    ),
    Bug(
        "hint cap (discipline)",
        "HINTS_CHARGED = 3\n",
        "HINTS_CHARGED = 4\n",
        (
            "tests/engine/test_discipline_figures.py"
            "::test_each_of_the_first_three_hints_costs_the_same_and_a_fourth_nothing",
        ),
    ),
    Bug(
        "ack window (discipline)",
        "alert.acked_at - alert.time <= paging_target",
        "alert.acked_at - alert.time < paging_target",
        (
            "tests/engine/test_discipline_figures.py"
            "::test_an_ack_at_the_paging_target_is_in_time_and_a_second_later_is_not",
        ),
    ),
    Bug(
        "broken_rules misses a job on an excluded node",
        'problems.append(f"{job.name} runs on {name}, which it excludes")',
        "pass",
        ("tests/sim/test_invariants_catch.py::test_a_job_on_a_node_it_excludes_is_found",),
    ),
    Bug(
        "broken_rules misses a job across two islands",
        'problems.append(f"{job.name} runs across islands {sorted(islands)}")',
        "pass",
        ("tests/sim/test_invariants_catch.py::test_a_gang_across_two_islands_is_found",),
    ),
    Bug(
        "saves/verify treats true as 1",
        "if type(fresh) is type(saved) and fresh == saved:",
        "if fresh == saved:",
        ("tests/incident/test_bounds_bite.py::test_verify_tells_types_apart",),
    ),
    Bug(
        "save nesting limit off by one",
        "if nesting_depth(blob, MAX_DEPTH) > MAX_DEPTH:",
        "if nesting_depth(blob, MAX_DEPTH) >= MAX_DEPTH:",
        (
            "tests/incident/test_bounds_bite.py"
            "::test_a_save_line_nested_to_the_limit_reads_and_one_more_is_refused",
        ),
    ),
    Bug(
        "triggered fault's night-end check ignores jitter",
        "fault.at + fault.jitter >= length:",
        "fault.at >= length:",
        (
            "tests/incident/test_bounds_bite.py"
            "::test_a_triggered_faults_delay_plus_jitter_past_the_night_is_refused",
        ),
    ),
)


class AnchorMissing(Exception):
    pass


def locate(tree: Path, bug: Bug) -> Path:
    """The one file under drill/ that holds the bug's anchor text exactly once."""
    hits = []
    for path in sorted((tree / "drill").rglob("*.py")):
        count = path.read_text(encoding="utf-8").count(bug.old)
        hits += [path] * count
    if len(hits) != 1:
        where = ", ".join(str(p.relative_to(tree)) for p in hits) or "nowhere"
        raise AnchorMissing(
            f"{bug.name}: the text {bug.old!r} occurs {len(hits)} times under drill/ ({where});"
            " the code changed, so update this bug in tests/mutation/injected_bugs.py"
        )
    return hits[0]


def copy_tree(dest: Path) -> None:
    """The working tree as git sees it (tracked and untracked, not ignored): no .git, no
    .venv, no caches, and the edits not committed yet."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = raw.decode()
        src = ROOT / rel
        if not src.is_file():  # deleted but not yet committed
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def run_tests(tree: Path, tests: tuple[str, ...]) -> tuple[int, list[str], str]:
    """pytest's exit code, the node ids that failed, and its output's tail."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_XDIST_WORKER", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-rf", *tests],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    failed = re.findall(r"^FAILED (\S+)", result.stdout, flags=re.MULTILINE)
    return result.returncode, failed, result.stdout[-3000:] + result.stderr[-2000:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("only", nargs="*", help="run only the bugs whose name holds one of these")
    args = parser.parse_args(argv)
    bugs = [b for b in BUGS if not args.only or any(w in b.name for w in args.only)]
    if not bugs:
        print(f"no bug's name holds any of {args.only}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="injected-bugs-") as tmp:
        tree = Path(tmp)
        copy_tree(tree)
        try:
            files = [locate(tree, bug) for bug in bugs]
        except AnchorMissing as missing:
            print(f"injected_bugs: {missing}", file=sys.stderr)
            return 2
        every = tuple(dict.fromkeys(t for b in bugs for t in b.tests))
        code, failed, tail = run_tests(tree, every)
        if code != 0:
            # A test that fails on the untouched code would "catch" every bug.
            print(tail, file=sys.stderr)
            print(f"injected_bugs: the tests fail without any bug: {failed}", file=sys.stderr)
            return 2
        rows, missed = [], 0
        for bug, path in zip(bugs, files, strict=True):
            original = path.read_text(encoding="utf-8")
            path.write_text(original.replace(bug.old, bug.new), encoding="utf-8")
            started = time.monotonic()
            try:
                code, failed, tail = run_tests(tree, bug.tests)
            finally:
                path.write_text(original, encoding="utf-8")
            seconds = time.monotonic() - started
            # Exit 1 is "tests failed"; anything else (2: the edit broke collection) is no catch.
            caught = code == 1 and failed
            if not caught:
                missed += 1
                print(tail, file=sys.stderr)
            by = failed[0].split("::", 1)[-1] if caught else f"NOT CAUGHT (pytest exit {code})"
            rows.append((bug.name, str(path.relative_to(tree)), by, f"{seconds:.1f}"))
    _table(rows)
    print(f"{len(bugs) - missed} of {len(bugs)} injected bugs caught")
    return 1 if missed else 0


def _table(rows: list[tuple[str, ...]]) -> None:
    head = ("bug", "file", "caught by", "s")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for row in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


if __name__ == "__main__":
    sys.exit(main())

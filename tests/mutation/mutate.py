"""mutmut over one group of drill's modules at a time, with the fast tests that cover them, and a
ratchet: a surviving mutant that tests/MUTATION.md does not list fails the run.

    PYTHONPATH=$PWD .venv/bin/python -m tests.mutation.mutate ratchet      # the CI part
    PYTHONPATH=$PWD .venv/bin/python -m tests.mutation.mutate discipline progress
    PYTHONPATH=$PWD .venv/bin/python -m tests.mutation.mutate all --max-children 2

Each group runs in its own copy of the working tree (mutmut writes a mutants/ folder and reads
its settings from pyproject.toml, so the copy gets a [tool.mutmut] section for that group alone).
mutmut itself runs, for each mutant, only the selected tests that call the mutated function.

A scoring module is named both in drill/engine/ and in drill/engine/scoring/, so a move between
the two changes nothing here. Survivors are matched against MUTATION.md by file
name, function and mutant number ("verify.py first_difference 12"), not by import path.

Exit 0: no survivor outside MUTATION.md. Exit 1: new survivors, printed one a line with the
`mutmut show` command for each. Exit 2: mutmut itself failed (its output is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.mutation.injected_bugs import ROOT, copy_tree

MUTATION_MD = ROOT / "tests" / "MUTATION.md"


def _engine(name: str) -> list[str]:
    # drill/engine/NAME.py today, drill/engine/scoring/NAME.py after the move: either matches.
    return [f"drill/engine/{name}.py", f"drill/engine/scoring/{name}.py"]


GROUPS: dict[str, dict[str, list[str]]] = {
    "loader": {
        "files": ["drill/incident/yaml_source.py"],
        "tests": [
            "tests/incident/test_yaml_source.py",
            "tests/incident/test_yaml_source_edges.py",
            "tests/incident/test_broken_incidents.py",
            "tests/incident/test_internal_errors.py",
            "tests/incident/test_yaml_fuzz.py",
        ],
    },
    "invariants": {
        "files": ["drill/sim/invariants.py"],
        "tests": [
            "tests/sim/test_invariants_catch.py",
            "tests/sim/test_invariants.py",
            "tests/sim/test_placement.py",
        ],
    },
    "verify": {
        "files": ["drill/saves/verify.py", "drill/saves/header_check.py"],
        "tests": [
            # Not test_verify.py: its replays run the CLI in a subprocess, which mutmut does
            # not trace, so they cost minutes and kill nothing; these cover the same ground.
            "tests/incident/test_bounds_bite.py",
            "tests/saves/test_verify_in_process.py",
            "tests/saves/test_verify_edges.py",
            "tests/saves/test_verify_fields.py",
        ],
    },
    "reader": {
        "files": ["drill/saves/reader.py", "drill/saves/json_line.py"],
        "tests": [
            "tests/incident/test_bounds_bite.py",
            "tests/saves/test_save_reading.py",
            "tests/saves/test_saves_format.py",
            "tests/saves/test_save_fuzz.py",
            "tests/saves/test_verify_fields.py",
        ],
    },
    "progress": {
        "files": _engine("progress"),
        "tests": ["tests/engine/test_outcome_figures.py", "tests/engine/test_progress_figures.py"],
    },
    "discipline": {
        "files": _engine("discipline"),
        "tests": [
            "tests/engine/test_discipline_figures.py",
            "tests/engine/test_discipline_signals.py",
            "tests/scoring/test_informed_acts.py",
        ],
    },
    "outcome": {
        "files": _engine("outcome"),
        "tests": [
            "tests/engine/test_outcome_figures.py",
            "tests/engine/test_outcome_measure.py",
            "tests/engine/test_discipline_signals.py",
        ],
    },
    "score": {
        "files": _engine("score"),
        "tests": ["tests/scoring/test_scale_bands.py", "tests/scoring/test_score_rules.py"],
    },
}
# The part CI runs: small modules with quick tests, a few minutes on two cores.
RATCHET = ("invariants", "verify")

_SURVIVED = ("survived", "no tests")


def mutmut_section(group: dict[str, list[str]]) -> str:
    tests = [t for t in group["tests"] if (ROOT / t).exists()]
    return "\n".join(
        [
            "[tool.mutmut]",
            'source_paths = ["drill/"]',
            f"only_mutate = {json.dumps(group['files'])}",
            'also_copy = ["replica/", "incidents"]',
            # -m "not slow": a slow test would be run for every mutant that touches it.
            'pytest_add_cli_args = ["-m", "not slow", "-p", "no:randomly"]',
            f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
            "",
        ]
    )


def with_section(pyproject: str, section: str) -> str:
    """pyproject.toml with its [tool.mutmut] table replaced by `section`."""
    kept = re.sub(r"(?ms)^\[tool\.mutmut\]\n.*?(?=^\[)", "", pyproject)
    return kept.rstrip("\n") + "\n\n" + section


def run_group(name: str, tree: Path, max_children: int) -> tuple[list[str], float]:
    """The surviving mutants' names (survived or with no test that reaches them), and seconds."""
    pyproject = tree / "pyproject.toml"
    pyproject.write_text(with_section(pyproject.read_text(), mutmut_section(GROUPS[name])))
    shutil.rmtree(tree / "mutants", ignore_errors=True)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)  # mutmut puts mutants/ first itself
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout[-6000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
        raise SystemExit(f"mutate: mutmut failed on group {name} (exit {done.returncode})")
    results = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    survivors, counts = [], {}
    for line in results.splitlines():
        found = re.match(r"\s*(\S+): (.+)$", line)
        if not found:
            continue
        counts[found.group(2)] = counts.get(found.group(2), 0) + 1
        if found.group(2) in _SURVIVED:
            survivors.append(found.group(1))
    shown = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    print(f"{name}: {sum(counts.values())} mutants in {seconds:.0f} s: {shown}")
    return survivors, seconds


def key_of(mutant: str) -> str:
    """`drill.sim.invariants.x_broken_rules__mutmut_12` as MUTATION.md names it:
    `invariants.py broken_rules 12`. A method `xǁClassǁmethod__mutmut_3`: `Class.method 3`."""
    module, _, rest = mutant.rpartition(".")
    func, _, number = rest.rpartition("__mutmut_")
    func = func.removeprefix("x_").removeprefix("xǁ").replace("ǁ", ".")
    return f"{module.rpartition('.')[2] or module}.py {func} {number}"


def listed() -> set[str]:
    """Every `FILE.py function N` that MUTATION.md lists, a range "N to M" as each number in it."""
    keys: set[str] = set()
    if not MUTATION_MD.exists():
        return keys
    for line in MUTATION_MD.read_text(encoding="utf-8").splitlines():
        for file, func, numbers in re.findall(
            r"`([\w.]+\.py) ([\w.]+)` ((?:\d+(?: to \d+)?(?:, | and |,? )?)+)", line
        ):
            for first, last in re.findall(r"(\d+)(?: to (\d+))?", numbers):
                for n in range(int(first), int(last or first) + 1):
                    keys.add(f"{file} {func} {n}")
    return keys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("groups", nargs="+", help=f"'ratchet', 'all', or of {sorted(GROUPS)}")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="work in this folder and leave it there")
    args = parser.parse_args(argv)
    names: list[str] = []
    for word in args.groups:
        names += list(RATCHET) if word == "ratchet" else list(GROUPS) if word == "all" else [word]
    unknown = [n for n in names if n not in GROUPS]
    if unknown:
        print(f"mutate: no group {unknown}; the groups are {sorted(GROUPS)}", file=sys.stderr)
        return 2
    allowed = listed()
    new: list[str] = []
    total = 0.0
    with tempfile.TemporaryDirectory(prefix="drill-mutation-") as tmp:
        base = args.keep or Path(tmp)
        for name in dict.fromkeys(names):
            tree = base / name
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir(parents=True)
            copy_tree(tree)
            survivors, seconds = run_group(name, tree, args.max_children)
            total += seconds
            new += [(name, m) for m in survivors if key_of(m) not in allowed]
    print(f"mutation testing took {total:.0f} s")
    if new:
        print(f"{len(new)} surviving mutants are not listed in tests/MUTATION.md:")
        for name, mutant in new:
            print(f"  {key_of(mutant)}    (group {name}: mutmut show {mutant})")
        return 1
    print("every surviving mutant is listed in tests/MUTATION.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())

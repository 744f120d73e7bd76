"""A class for the course tests: a course of three short nights on the sim backend, forty
learners' saves played by the real `drill run` (the reference, the graded runbooks, and each on
the learner's own seed of the night), five tampered saves, and the score a direct `drill run
--actions` of each honest save's own actions gives, to check every grade against.

The saves are laid out the ways a class hands them in:
- hand/folders/NAME/saves/*.jsonl  one folder per learner (a copy of the pack's saves folder)
- hand/class.zip                   an LMS download: a folder per learner inside one zip
- hand/zips/NAME.zip               one learner's zip, saves at its top
- hand/serve/saves/*.jsonl         a `drill serve --course` saves folder: every tab's save in one
                                   folder, whose only clue to the learner is the save's header

Built once per test run (the xdist workers share it through the run's saves folder, under a
file lock) in about twenty seconds on two cores; each test copies the course folder so its
gradebook is its own.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

from drill.classroom.course_file import load_course
from drill.saves import read_save
from tests.clikit import run_drill

KIT_VERSION = 3  # bump when the class below changes
NIGHTS = ("tutorial", "zombie-memory", "quota-cut")
COURSE_TOML = """\
title = "Week 6: three nights"
backend = "sim"
attempt = "best"

[[nights]]
incident = "incidents/tutorial.yaml"
seeds = [1, 2]
deadline = 2030-01-01T00:00:00Z

[[nights]]
incident = "incidents/zombie-memory.yaml"
seeds = [1, 2]

[[nights]]
incident = "incidents/quota-cut.yaml"
seeds = [1, 2]
"""
FIRST = (
    "Ada Okafor", "Ben Ito", "Chiara Rossi", "Dmitri Volkov", "Esi Mensah", "Farah Haddad",
    "Gustav Berg", "Hana Sato", "Ivan Petrov", "Jia Chen", "Kofi Asante", "Lena Novak",
    "Mateo Ruiz", "Nadia Karim", "Oskar Lind", "Priya Nair", "Quinn Doyle", "Rosa Diaz",
    "Sami Aalto", "Tariq Aziz", "Uma Rao", "Viktor Horvath", "Wen Li", "Ximena Cruz",
    "Yusuf Demir", "Zara Ahmed", "Amir Tehrani", "Bea Santos", "Caleb Moore", "Dana Weiss",
    "Elif Kaya", "Femi Adeyemi", "Greta Olsen", "Hugo Martin", "Ines Costa", "Jonas Keller",
    "Kira Ivanova", "Luis Gomez", "Mina Park", "Noor Saleh",
)  # fmt: skip
# Learners whose saves were played outside the pack, so they carry no name: their folder says.
UNNAMED = {"Ben Ito", "Chiara Rossi"}


@dataclass
class KitSave:
    file: str  # relative to hand/ (a zip entry: "class.zip:NAME/FILE")
    learner: str
    night: str
    seed: int
    how: str  # reference, a runbook's name, or "tampered: WHAT"
    expected: dict | None  # the direct run's score: total, grade, components' points
    refused_at: tuple[int, str] | None = None  # (line, field) for a tampered save


@dataclass
class ClassKit:
    root: Path
    saves: list[KitSave]

    @property
    def course(self) -> Path:
        return self.root / "course"

    @property
    def hand(self) -> Path:
        return self.root / "hand"

    def sources(self) -> list[Path]:
        """Every hand-in, in the layouts above (the duplicate included)."""
        hand = self.hand
        return [
            hand / "folders",
            hand / "class.zip",
            *sorted((hand / "zips").glob("*.zip")),
            hand / "serve" / "saves",
        ]

    def course_copy(self, where: Path) -> Path:
        target = where / "course"
        shutil.copytree(self.course, target)
        return target

    @property
    def honest(self) -> list[KitSave]:
        return [s for s in self.saves if s.refused_at is None]

    @property
    def tampered(self) -> list[KitSave]:
        return [s for s in self.saves if s.refused_at is not None]


def class_kit(shared: Path) -> ClassKit:
    root = shared / f"course-class-{KIT_VERSION}"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one xdist worker builds; the others wait, then read
        manifest = root / "manifest.json"
        if not manifest.exists():
            saves = _build(root)
            manifest.write_text(json.dumps([s.__dict__ for s in saves]))
        data = json.loads(manifest.read_text())
    for item in data:
        if item["refused_at"] is not None:
            item["refused_at"] = tuple(item["refused_at"])
    return ClassKit(root, [KitSave(**item) for item in data])


def _build(root: Path) -> list[KitSave]:
    for part in ("course", "hand", "work"):
        shutil.rmtree(root / part, ignore_errors=True)
    course = root / "course"
    (course / "incidents").mkdir(parents=True)
    from drill.incident.library import shipped_path

    for night in NIGHTS:
        shutil.copyfile(shipped_path(night), course / "incidents" / f"{night}.yaml")
    (course / "course.toml").write_text(COURSE_TOML)
    loaded = load_course(course)
    work = root / "work"
    played: list[tuple[Path, KitSave]] = []
    for number, learner in enumerate(FIRST):
        for night, how, attempt in _plan(number):
            seed = loaded.night(night).seed_for(learner)
            if attempt:  # a second go: the other seed of the range, a seeded variation
                seed = 3 - seed
            path = work / f"{number:02d}-{night}-{attempt}.jsonl"
            _play(course / "incidents" / f"{night}.yaml", how, seed, path, learner)
            played.append(
                (path, KitSave("", learner, night, seed, how, _direct(course, night, path)))
            )
    played += _tampered(course, work)
    _lay_out(root / "hand", played)
    return [kit for _, kit in played]


def _plan(number: int) -> list[tuple[str, str, int]]:
    """(night, what is played, attempt number) for learner `number`."""
    runbooks = {
        "tutorial": ("reference", "restart-without-looking", "nothing"),
        "zombie-memory": ("reference", "restart-again", "reboot-the-node"),
        "quota-cut": ("reference", "ask-for-more-quota", "keep-fewer-without-pruning"),
    }
    plan = [("tutorial", runbooks["tutorial"][number % 3], 0)]
    if number % 2 == 0:
        plan.append(("zombie-memory", runbooks["zombie-memory"][number // 2 % 3], 0))
    if number % 3 == 0:
        plan.append(("quota-cut", runbooks["quota-cut"][number // 3 % 3], 0))
    if number % 5 == 0:
        # A second attempt at the first night: `best` keeps the better of the two.
        plan.append(("tutorial", runbooks["tutorial"][(number + 1) % 3], 1))
    return plan


def _play(incident: Path, how: str, seed: int, save: Path, learner: str | None) -> None:
    args = ["run", str(incident), "--backend", "sim", "--seed", str(seed), "--save", str(save)]
    if how == "reference":
        args.append("--reference")
    elif how != "nothing":
        args += ["--runbook", how]
    if learner is not None and learner not in UNNAMED:
        args += ["--learner", learner]
    save.parent.mkdir(parents=True, exist_ok=True)
    done = run_drill(*args)
    assert done.returncode == 0, done.stderr


def _direct(course: Path, night: str, save_path: Path) -> dict:
    """The score of a direct `drill run` of the save's own actions (as typed, names filled in),
    at their saved times: what grading must give."""
    save = read_save(save_path)
    lines, previous_end = [], 0.0
    for action in save.actions:
        lines.append(f"+{round(action.time - previous_end, 3)}s {action.text}")
        previous_end = action.end
    actions = save_path.with_suffix(".actions")
    actions.write_text("\n".join(lines) + "\n")
    done = run_drill(
        "run",
        str(course / "incidents" / f"{night}.yaml"),
        "--actions",
        str(actions),
        "--backend",
        "sim",
        "--seed",
        str(save.seed),
        "--save",
        str(save_path.with_suffix(".direct.jsonl")),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    score = json.loads(done.stdout)["score"]
    return {
        "total": score["total"],
        "grade": score["grade"],
        "components": [[c["name"], c["points"], c["weight"]] for c in score["components"]],
    }


def _tampered(course: Path, work: Path) -> list[tuple[Path, KitSave]]:
    """Five saves that must be refused, each at its line: an edited score, an edited action,
    a save cut short, one of another version of the incident, and an edited seed."""
    out = []

    def honest(name: str, learner: str, night: str, how: str, seed: int) -> Path:
        path = work / f"tampered-{name}.jsonl"
        _play(course / "incidents" / f"{night}.yaml", how, seed, path, learner)
        return path

    # An edited score: the score line's total raised.
    path = honest("score", "Ben Ito", "zombie-memory", "restart-again", 1)
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"type": "score"' in line)
    record = json.loads(lines[at])
    record["score"]["total"] = 99.0
    lines[at] = json.dumps(record, sort_keys=True) + "\n"
    path.write_text("".join(lines))
    out.append((path, KitSave("", "Ben Ito", "zombie-memory", 1, "tampered: score", None,
                              (at + 1, "score.total"))))  # fmt: skip

    # An edited action: a look aimed at another node, so its result no longer matches.
    path = honest("action", "Dana Weiss", "tutorial", "reference", 1)
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if '"text": "health gpu-a-1"' in line)
    record = json.loads(lines[at])
    record["text"] = "health gpu-a-2"
    lines[at] = json.dumps(record, sort_keys=True) + "\n"
    path.write_text("".join(lines))
    out.append((path, KitSave("", "Dana Weiss", "tutorial", 1, "tampered: action", None,
                              (at + 1, f"actions[{record['n']}]"))))  # fmt: skip

    # Cut short in its score line, as a copy that stopped midway leaves it.
    path = honest("truncated", "Elif Kaya", "quota-cut", "reference", 2)
    data = path.read_bytes()
    lines = data.split(b"\n")
    score_line = next(i for i, line in enumerate(lines) if b'"type": "score"' in line)
    cut = len(b"\n".join(lines[:score_line])) + 1 + len(lines[score_line]) // 2
    path.write_bytes(data[:cut])
    out.append((path, KitSave("", "Elif Kaya", "quota-cut", 2, "tampered: truncated", None,
                              (score_line + 1, "the line cut short"))))  # fmt: skip

    # Another version of the incident: the same night with its title changed.
    other = work / "other-version" / "quota-cut.yaml"
    other.parent.mkdir(parents=True, exist_ok=True)
    text = (course / "incidents" / "quota-cut.yaml").read_text()
    other.write_text(
        text.replace("title:", "title: Old", 1) if "title:" in text else text + "\n#\n"
    )
    path = work / "tampered-version.jsonl"
    _play(other, "reference", 1, path, "Femi Adeyemi")
    out.append((path, KitSave("", "Femi Adeyemi", "quota-cut", 1, "tampered: version", None,
                              (1, "incident_sha256"))))  # fmt: skip

    # The header's seed edited after the night (to the night's other seed).
    path = honest("seed", "Greta Olsen", "zombie-memory", "reference", 1)
    lines = path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["seed"] = 2
    lines[0] = json.dumps(header, sort_keys=True) + "\n"
    path.write_text("".join(lines))
    out.append((path, KitSave("", "Greta Olsen", "zombie-memory", 2, "tampered: seed", None,
                              (1, "seed"))))  # fmt: skip
    return out


def _lay_out(hand: Path, played: list[tuple[Path, KitSave]]) -> None:
    """Each save into its learner's layout; KitSave.file says where it went."""
    index = {name: n for n, name in enumerate(FIRST)}
    hand.mkdir(parents=True, exist_ok=True)
    class_zip = zipfile.ZipFile(hand / "class.zip", "w", zipfile.ZIP_DEFLATED)
    zips: dict[str, zipfile.ZipFile] = {}
    for counter, (path, kit) in enumerate(played, start=1):
        n = index[kit.learner]
        name = f"{kit.night}-seed{kit.seed}-{counter:03d}.jsonl"
        data = path.read_bytes()
        if n < 14 or kit.learner in UNNAMED:
            target = hand / "folders" / kit.learner / "saves" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            kit.file = f"folders/{kit.learner}/saves/{name}"
        elif n < 27:
            class_zip.writestr(f"{kit.learner}/{name}", data)
            kit.file = f"class.zip:{kit.learner}/{name}"
        elif n < 32:
            if kit.learner not in zips:
                (hand / "zips").mkdir(exist_ok=True)
                zips[kit.learner] = zipfile.ZipFile(hand / "zips" / f"{kit.learner}.zip", "w")
            zips[kit.learner].writestr(name, data)
            kit.file = f"zips/{kit.learner}.zip:{name}"
        else:
            target = hand / "serve" / "saves" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            kit.file = f"serve/saves/{name}"
    class_zip.close()
    for archive in zips.values():
        archive.close()
    # The same save handed in twice, in two layouts: one submission.
    first = played[0][0]
    (hand / "serve" / "saves" / "duplicate-of-the-first.jsonl").write_bytes(first.read_bytes())
    # And what a saves folder also holds: the par and floor cache, which collect leaves alone.
    (hand / "serve" / "saves" / "cache").mkdir(exist_ok=True)
    (hand / "serve" / "saves" / "cache" / "par-x.jsonl").write_text("not a save\n")

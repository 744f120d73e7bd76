"""One declaration per verb: what each verb costs, what it touches, whose jobs it may act on, how
a job that has not been submitted yet stays out of sight, lifting an exclude, the static check of
reference and runbook lines, and a verb added by its declaration alone.

Every expected value here is written out (a literal table), never read from the catalog: a
test that read its expectation from the code under test could not fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from drill.engine.actions import catalog
from drill.engine.actions.argtypes import NODE
from drill.engine.actions.catalog import GROUPS, VERBS, Arg, Cost, Kind, On, Section, Verb
from drill.engine.actions.effects import effect_of
from drill.engine.actions.errors import Reject
from drill.engine.actions.parser import parse
from drill.engine.drill import Drill
from drill.engine.static_check import check
from drill.incident.loader import load_incident
from tests.drillkit import build, incident_dict, job_spec

REPO = Path(__file__).resolve().parents[2]

TRAIN = job_spec(
    "train",
    yours=True,
    model_params=7e9,
    bytes_per_param=14,  # 98 GB a checkpoint: 2 s to read back at 49 GB/s
    checkpoint={"every": 20, "keep": 3, "volume": "scratch"},
    code_version="a2c41f7",  # and the version before it, for `rollback`
    previous_code_version="9be03d5",
)
EVAL = job_spec("eval", team="research", gpus=8, steps=500)  # another team's training job
LATER = job_spec("later", team="vision", gpus=8, submit_at="30m")  # submitted at 03:30
NIGHT = {
    "jobs": [TRAIN, EVAL, LATER],
    "storage": [
        {
            "name": "scratch",
            "capacity": "20TB",
            "quotas": {"ml": "5TB"},
            "read_bandwidth": "49GB/s",
            "write_bandwidth": "49GB/s",
        }
    ],
    "hints": [{"after": "1m", "text": "Look before you act."}],
    "noise": [{"at": "2m", "source": "gpu-b-2", "text": "correctable ECC count rising"}],
}


def night(at: float = 600.0) -> Drill:
    d = Drill(build(**NIGHT), 1)
    d.advance(at)
    return d


# -- cost: a literal table, one row or more per verb ------------------------------------------

# (lines played first, the line measured, sim seconds it keeps the operator busy), at 03:10.
COSTS = [
    ([], "status", 15),
    ([], "status train", 15),
    ([], "queue", 15),
    ([], "nodes", 15),
    ([], "logs train", 30),
    ([], "logs train --rank 3", 30),
    ([], "health gpu-a-1", 60),
    ([], "perf train", 30),
    ([], "stack train 3", 30),
    ([], "trace train", 30),
    ([], "gpus gpu-a-1", 20),
    ([], "fabric", 30),
    ([], "fabric leaf-a1", 30),
    ([], "ibstat gpu-a-1", 20),
    ([], "df", 10),
    ([], "df scratch", 10),
    ([], "lfs quota", 10),
    ([], "lfs quota scratch", 10),
    ([], "ckpt list train", 15),
    ([], "ckpt verify train 20", 32),  # 30 s plus 98 GB read at 49 GB/s
    ([], "diag gpu-b-4", 240),  # the three-minute Diagnostic test, plus starting and reading it
    ([], "dmesg gpu-a-1", 20),
    ([], "systemctl gpu-a-1 nvidia-fabricmanager", 20),
    ([], "systemctl gpu-a-1 no-such-unit", 20),  # systemctl's own answer, not a refusal
    ([], "cordon gpu-b-1", 15),
    (["cordon gpu-b-1"], "uncordon gpu-b-1", 15),
    ([], "drain gpu-b-2", 15),
    ([], "cordon-leaf leaf-b1", 15),
    ([], "drain-leaf leaf-b2", 15),
    ([], "reboot gpu-b-3", 30),
    ([], "swap gpu-b-4", 60),
    ([], "reset gpu-b-4 --gpu 2", 30),
    ([], "cancel train", 15),
    ([], "requeue train", 15),
    ([], "restart train --from scratch", 30),
    (["restart train --world 64"], "hold train", 10),  # 8 nodes: no island fits it
    (["restart train --world 64", "hold train"], "release train", 10),
    ([], "priority train high", 10),
    ([], "rollback train", 30),
    ([], "ckpt rm train 20", 15),
    ([], "ckpt prune train --keep 1", 15),
    ([], "quota scratch +1TB", 60),
    ([], "set train ckpt-every 25", 10),
    ([], "ack all", 5),
    ([], "note the job looks fine", 30),
    ([], "hint", 10),
    ([], "wait 10m", 600),
    ([], "wait 90s", 90),
    ([], "help", 0),
    ([], "help ckpt verify", 0),
]


@pytest.mark.parametrize(("setup", "line", "seconds"), COSTS, ids=[c[1] for c in COSTS])
def test_each_verb_costs_what_the_table_says(setup, line, seconds):
    d = night()
    for earlier in setup:
        assert d.act(earlier).accepted, earlier
    result = d.act(line)
    assert result.accepted, result.output
    assert result.end - result.time == pytest.approx(seconds)


# Lines that need a process a crash left behind on a GPU: NODE and PID are filled in with it.
LEFTOVER_COSTS = [("kill NODE PID", 15)]


@pytest.mark.parametrize(("line", "seconds"), LEFTOVER_COSTS, ids=[c[0] for c in LEFTOVER_COSTS])
def test_each_verb_on_a_leftover_process_costs_what_the_table_says(line, seconds):
    zombie = {"id": "z", "kind": "zombie_memory", "at": "5m", "target": {"job": "train"}}
    d = Drill(build(**{**NIGHT, "faults": [zombie]}), 1)
    d.advance(600)
    [pick] = d.world.faults.chosen["z"]
    result = d.act(line.replace("NODE", str(pick.node)).replace("PID", str(pick.pid)))
    assert result.accepted, result.output
    assert result.end - result.time == pytest.approx(seconds)


def test_the_cost_table_covers_every_verb():
    measured = [line for _, line, _ in COSTS] + [line for line, _ in LEFTOVER_COSTS]
    assert {parse(line.replace("PID", "41008")).verb for line in measured} == set(VERBS)


def test_verify_without_a_volume_costs_its_base_time():
    d = Drill(build(), 1)  # no volume modelled: no read bandwidth to price
    d.advance(600)
    result = d.act("ckpt verify train 20")
    assert result.accepted, result.output
    assert result.end - result.time == 30


def test_the_pre_shift_plan_is_free_and_ends_with_the_first_other_action():
    d = Drill(build(**NIGHT), 1)
    assert d.act("set train ckpt-every 25").end == 0.0
    assert d.act("set train ckpt-keep 2").end == 0.0
    assert d.act("status").end == 15.0
    again = d.act("set train ckpt-keep 3")
    assert again.end - again.time == 10.0


def test_help_states_each_cost():
    assert VERBS["health"].cost.sentence == "Takes 60s of your time while the night goes on."
    assert "30s" in VERBS["ckpt verify"].cost.sentence
    assert "read the file back" in VERBS["ckpt verify"].cost.sentence
    assert VERBS["wait"].cost.label == "the time it runs"


# -- what an action touches, and whether it looks or changes -----------------------------------

EFFECTS = [
    ("status", "look", ("cluster", None)),
    ("status train", "look", ("job", "train")),
    ("queue", "look", ("cluster", None)),
    ("nodes", "look", ("cluster", None)),
    ("logs train --rank 2", "look", ("job", "train")),
    ("health gpu-a-1", "look", ("node", "gpu-a-1")),
    ("perf train", "look", ("job", "train")),
    ("stack train 3", "look", ("job", "train")),
    ("trace train", "look", ("job", "train")),
    ("gpus gpu-a-1", "look", ("node", "gpu-a-1")),
    ("fabric leaf-a1", "look", ("cluster", None)),
    ("ibstat gpu-a-1", "look", ("node", "gpu-a-1")),
    ("df", "look", ("cluster", None)),
    ("df scratch", "look", ("volume", "scratch")),
    ("lfs quota", "look", ("cluster", None)),
    ("lfs quota scratch", "look", ("volume", "scratch")),
    ("ckpt list train", "look", ("job", "train")),
    ("ckpt verify train 20", "look", ("job", "train")),
    ("diag gpu-b-4", "look", ("node", "gpu-b-4")),
    ("dmesg gpu-a-1", "look", ("node", "gpu-a-1")),
    ("systemctl gpu-a-1 slurmd", "look", ("node", "gpu-a-1")),
    ("cordon gpu-a-1", "act", ("node", "gpu-a-1")),
    ("uncordon gpu-a-1", "act", ("node", "gpu-a-1")),
    ("drain gpu-a-1", "act", ("node", "gpu-a-1")),
    ("cordon-leaf leaf-a1", "act", ("cluster", None)),
    ("drain-leaf leaf-a1", "act", ("cluster", None)),
    ("reboot gpu-a-1", "act", ("node", "gpu-a-1")),
    ("swap gpu-a-1", "act", ("node", "gpu-a-1")),
    ("reset gpu-a-1", "act", ("node", "gpu-a-1")),
    ("reset gpu-a-1 --gpu 3", "act", ("node", "gpu-a-1")),
    ("kill gpu-a-1 41008", "act", ("node", "gpu-a-1")),
    ("cancel eval", "act", ("job", "eval")),
    ("requeue train", "act", ("job", "train")),
    ("restart train --exclude gpu-a-1", "act", ("job", "train")),
    ("hold train", "act", ("job", "train")),
    ("release train", "act", ("job", "train")),
    ("priority train high", "act", ("job", "train")),
    ("rollback train --from latest", "act", ("job", "train")),
    ("ckpt rm train 20", "act", ("job", "train")),
    ("ckpt prune train --keep 2", "act", ("job", "train")),
    ("quota scratch +1TB", "act", ("volume", "scratch")),
    ("set train ckpt-keep 2", "act", ("job", "train")),
    ("ack all", "act", None),
    ("note saw it", "act", None),
    ("hint", "act", None),
    ("wait 5m", "act", None),
    ("help cordon", "look", None),
]


@pytest.mark.parametrize(("line", "kind", "touches"), EFFECTS, ids=[e[0] for e in EFFECTS])
def test_what_each_action_touches(line, kind, touches):
    done = effect_of(line)
    assert (done.kind, done.touches) == (kind, touches)
    assert done.is_change == (kind == "act" and touches is not None)
    assert done.is_look == (kind == "look" and touches is not None)


def test_the_effect_table_covers_every_verb():
    assert {parse(line).verb for line, _, _ in EFFECTS} == set(VERBS)


def test_an_effect_lists_every_name_the_line_gives():
    done = effect_of("restart train --exclude gpu-a-1,gpu-a-2 --include gpu-b-1")
    assert done.names == (
        ("job", "train"),
        ("node", "gpu-a-1"),
        ("node", "gpu-a-2"),
        ("node", "gpu-b-1"),
    )
    assert effect_of("queue").names == () and effect_of("df scratch").names == (
        ("volume", "scratch"),
    )


def test_set_and_checkpoint_deletes_are_changes_to_the_job():
    for line in ("set train ckpt-keep 1", "ckpt prune train --keep 1", "ckpt rm train 20"):
        assert effect_of(line).is_change and effect_of(line).touches == ("job", "train")


# -- the runbook section of each verb ----------------------------------------------------------

SECTIONS = {
    "queue": {
        "queue",
        "status",
        "restart",
        "requeue",
        "cancel",
        "hold",
        "release",
        "priority",
        "rollback",
    },
    "health": {
        "health",
        "logs",
        "nodes",
        "perf",
        "stack",
        "trace",
        "gpus",
        "fabric",
        "ibstat",
        "diag",
        "dmesg",
        "systemctl",
        "cordon",
        "uncordon",
        "drain",
        "cordon-leaf",
        "drain-leaf",
        "reboot",
        "reset",
        "kill",
        "swap",
    },
    "checkpoint": {"ckpt list", "ckpt verify", "ckpt rm", "ckpt prune", "set", "df", "quota"}
    | {"lfs quota"},
    "3am": {"ack", "note", "hint", "wait", "help"},
}


def test_each_verb_is_filed_under_its_runbook_section():
    assert {key: {v for v in VERBS if catalog.section_of(v) == key} for key in SECTIONS} == (
        SECTIONS
    )
    assert catalog.section_of("no such verb") == "3am"


# -- another team's job ------------------------------------------------------------------------

# The lead's decision, written out: their on-call owns these. Cancel and requeue stop their work
# and hand you their GPUs, so they are refused like hold and priority (issue 21): harming another
# team to get ahead is not a move the score prices, it is one the cluster refuses.
REFUSED_ON_OTHERS = {
    "hold",
    "release",
    "priority",
    "restart",
    "set",
    "ckpt list",
    "ckpt verify",
    "ckpt rm",
    "ckpt prune",
    "stack",
    "cancel",
    "requeue",
    "rollback",
}
ALLOWED_ON_OTHERS = {"status", "logs", "perf", "trace"}


def test_the_declarations_say_which_verbs_may_touch_another_teams_job():
    job_verbs = {name for name, v in VERBS.items() if v.on == On.JOB}
    assert job_verbs == REFUSED_ON_OTHERS | ALLOWED_ON_OTHERS
    assert {n for n in job_verbs if VERBS[n].others_jobs} == ALLOWED_ON_OTHERS


@pytest.mark.parametrize(
    "line",
    [
        "hold eval",
        "release eval",
        "priority eval low",
        "restart eval --world 8",
        "set eval ckpt-every 50",
        "ckpt list eval",
        "ckpt verify eval 20",
        "ckpt rm eval 20",
        "ckpt prune eval --keep 1",
        "cancel eval",
        "requeue eval",
        "rollback eval",
    ],
)
def test_acting_on_another_teams_job_is_refused_with_what_to_do_instead(line):
    d = night()
    before, ledger = d.snapshot(), repr(d.world.ledger)
    result = d.act(line)
    assert not result.accepted
    assert "eval belongs to team research, and their on-call owns it" in result.output
    assert "`status eval`" in result.output and "your own job, train" in result.output
    assert "\n" not in result.output
    assert d.now == 600.0 and d.snapshot() == before and repr(d.world.ledger) == ledger


def test_the_authoring_guide_gives_each_job_verb_its_rule():
    places = (REPO / "incidents" / "README.md", REPO / "drill" / "incidents" / "README.md")
    guide = next(p for p in places if p.exists())
    rows = re.findall(r"^\| `([a-z ]+)` \| (allowed|refused) \| .+ \|$", guide.read_text(), re.M)
    assert dict(rows) == {
        **{v: "refused" for v in REFUSED_ON_OTHERS},
        **{v: "allowed" for v in ALLOWED_ON_OTHERS},
    }


def test_the_authoring_guide_lists_every_verb_as_help_writes_it():
    places = (REPO / "incidents" / "README.md", REPO / "drill" / "incidents" / "README.md")
    text = next(p for p in places if p.exists()).read_text()
    assert [v.usage for v in VERBS.values() if f"`{v.usage}`" not in text] == []


# -- a job that has not been submitted does not exist yet --------------------------------------


def test_a_job_not_yet_submitted_is_nowhere_the_learner_looks():
    d = night(300)  # `later` is submitted at 03:30
    assert "later" not in d.act("queue").output
    assert "jobs: 2 running, 0 pending" in d.act("status").output
    for line in ("status later", "cancel later", "logs later"):
        result = d.act(line)
        assert not result.accepted
        assert result.output.startswith("no job named 'later'"), result.output
    guess = d.act("status latr")
    assert "later" not in guess.output.replace("'latr'", "")  # no "did you mean" that leaks it
    assert "later" not in [j.name for j in d.snapshot().jobs]


def test_a_job_appears_once_it_is_submitted():
    d = night(1900)
    assert "later" in d.act("queue").output
    assert d.act("status later").accepted
    assert "later" in [j.name for j in d.snapshot().jobs]


# -- lifting an exclude ------------------------------------------------------------------------


def test_restart_include_lifts_an_exclude():
    d = night()
    job = d.world.jobs["train"]
    assert d.act("restart train --exclude gpu-a-1,gpu-a-2").accepted
    assert job.exclude == {"gpu-a-1", "gpu-a-2"}
    result = d.act("restart train --include gpu-a-1")
    assert result.accepted, result.output
    assert result.output.endswith("; gpu-a-1 no longer excluded")
    assert job.exclude == {"gpu-a-2"}


def test_restart_include_of_a_node_not_excluded_is_refused():
    d = night()
    d.act("restart train --exclude gpu-a-1")
    wrong = d.act("restart train --include gpu-a-3")
    assert not wrong.accepted
    assert wrong.output == "gpu-a-3 is not on train's exclude list; it has: gpu-a-1"
    both = d.act("restart train --exclude gpu-a-3 --include gpu-a-3")
    assert not both.accepted and "both --exclude and --include name gpu-a-3" in both.output
    assert d.world.jobs["train"].exclude == {"gpu-a-1"}


def test_uncordon_also_takes_the_node_off_the_learners_exclude_list():
    d = night()
    job = d.world.jobs["train"]
    assert d.act("cordon gpu-a-1").accepted
    assert d.act("restart train --exclude gpu-a-1").accepted
    result = d.act("uncordon gpu-a-1")
    assert result.accepted
    assert result.output == "gpu-a-1 is up and takes new work; removed it from train's exclude list"
    assert job.exclude == set()


def test_uncordon_of_an_up_node_that_is_only_excluded_lifts_the_exclude():
    d = night()
    assert d.act("restart train --exclude gpu-b-4").accepted
    result = d.act("uncordon gpu-b-4")
    assert result.accepted
    assert result.output == "gpu-b-4 is up; removed it from train's exclude list"
    assert d.world.jobs["train"].exclude == set()


def test_help_says_how_to_lift_an_exclude():
    assert "[--include NODE,...]" in VERBS["restart"].usage
    assert "--include" in catalog.help_text("restart")
    assert "exclude list" in catalog.help_text("uncordon")


# -- drill validate: a line the engine would refuse is an error at its line -------------------


def _validate(tmp_path: Path, reference: list[str], **top) -> list[str]:
    data = incident_dict(**{**NIGHT, **top})
    data["reference"] = reference
    path = tmp_path / "night.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    loaded = load_incident(path)
    text = path.read_text(encoding="utf-8").splitlines()
    return [f"{text[p.line - 1].strip()} => {p.message}" for p in check(loaded)]


PLAN = {"job": "train", "choices": {"ckpt-every": {"min": 20, "max": 100}}}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("03:00 set train ckpt-every 10", "ckpt-every 10 is outside the plan's range 20 to 100"),
        ("03:00 set train ckpt-keep 2", "lets you choose ckpt-every for train, not ckpt-keep"),
        ("03:00 set train colour red", "no setting named 'colour'"),
        ("03:10 ckpt verify train latest", "step must be a whole number, got 'latest'"),
        ("03:10 restart train --world many", "--world must be a whole number, got 'many'"),
        ("03:10 wait 13h", "wait between 1s and 12h"),
        ("03:10 hold eval", "eval belongs to team research, and their on-call owns it"),
        ("03:10 requeue eval", "eval belongs to team research, and their on-call owns it"),
        ("03:10 ckpt prune train 2", "usage: ckpt prune JOB --keep N"),
        ("03:10 health gpu-q-9", "names node 'gpu-q-9', which does not exist"),
        ("03:10 restart train --include gpu-q-9", "names node 'gpu-q-9', which does not exist"),
        ("03:10 fabric leaf-q9", "names leaf 'leaf-q9', which does not exist"),
        ("03:10 stack train many", "rank must be a whole number, got 'many'"),
    ],
)
def test_a_reference_line_the_engine_would_refuse_fails_validate_at_its_line(
    tmp_path, line, message
):
    problems = _validate(tmp_path, ["03:05 status", line, "+0s note done"], plan=PLAN)
    assert len(problems) == 1, problems
    at, _, said = problems[0].partition(" => ")
    assert line in at  # reported at the line itself
    assert message in said


def test_reference_lines_the_engine_accepts_pass_validate(tmp_path):
    lines = [
        "03:00 set train ckpt-every 50",
        "03:05 status eval",
        "+0s logs eval --rank 1",
        "+0s restart train --from latest --exclude gpu-a-1 --world 8",
        "+0s restart train --include gpu-a-1",
        "+0s ckpt prune train --keep 2",
        "+0s note done",
    ]
    assert _validate(tmp_path, lines, plan=PLAN) == []


# -- a verb added by its declaration alone ------------------------------------------------------


def _ping(ctx, call) -> str:
    return f"{call['node'].name} answers"


PING = Verb(
    "ping",
    "check that a node answers",
    Kind.LOOK,
    On.NODE,
    Section.HEALTH,
    _ping,
    Cost(5),
    args=(Arg("node", NODE),),
)


@pytest.fixture
def with_ping(monkeypatch):
    monkeypatch.setitem(VERBS, "ping", PING)


def test_a_new_verb_needs_only_its_declaration_and_handler(with_ping, tmp_path):
    d = night()
    result = d.act("ping gpu-a-1")
    assert result.accepted and result.output == "gpu-a-1 answers"
    assert result.end - result.time == 5
    assert d.act("ping").output == "usage: ping NODE"
    assert d.act("ping gpu-a-1 extra").output == "usage: ping NODE"
    assert d.act("pnig gpu-a-1").output == "unknown action `pnig`; did you mean `ping`?"
    assert d.act("ping gpu-q-9").output.startswith("no node named 'gpu-q-9'")
    assert "  ping NODE" in catalog.help_text()
    assert catalog.help_text("ping").startswith("ping NODE\n  check that a node answers.")
    assert effect_of("ping gpu-a-2").touches == ("node", "gpu-a-2")
    assert catalog.section_of("ping") == "health"
    problems = _validate(tmp_path, ["03:05 ping gpu-q-9"])
    assert len(problems) == 1 and "names node 'gpu-q-9'" in problems[0]


def test_a_verb_working_on_a_job_needs_a_job_argument():
    with pytest.raises(ValueError, match="works on a job but has no job argument"):
        Verb("poke", "nothing", Kind.ACT, On.JOB, Section.QUEUE, _ping, Cost(5))


def test_a_cost_that_is_a_function_must_say_what_it_costs():
    with pytest.raises(ValueError, match="needs a label and a sentence"):
        catalog.Cost(lambda ctx, call: 1.0)


# -- verbs are named in their declarations only -------------------------------------------------

# Modules that once kept their own lists of verbs. A string that is a verb's name (or starts with
# one and a space) may appear here only where the word means something else, listed with why.
CONSUMERS = [
    *sorted((REPO / "drill" / "engine").rglob("*.py")),
    REPO / "drill" / "runbook.py",
    *sorted((REPO / "drill" / "tui").rglob("*.py")),  # the TUI asks the catalog
]
DECLARATIONS = {"catalog.py", "act.py", "look.py", "storage.py"}  # the table and its handlers
NOT_A_VERB = {
    ("runbook_sections.py", "queue"): "the runbook's Queue section, declared",
    ("runbook_sections.py", "health"): "the runbook's Health section, declared",
    ("runbook.py", "quota"): "an alert text pattern",
    ("timed.py", "nodes"): "the {fault.ID.nodes} template field",
    ("shown_text.py", "nodes"): "the {fault.ID.nodes} template field",
    ("account.py", "hint"): "a timeline event kind",
    ("argtypes.py", "priority"): "the words 'priority class' in a message",
    ("account.py", "gpus"): "a job's GPU count in the account",
    ("collateral.py", "gpus"): "a job's GPU count",
    ("night.py", "queue"): "the Queue panel's id",
    ("queue.py", "queue"): "the Queue panel's id",
    ("panels.py", "queue"): "the Queue panel's id, in the panel list",
    ("briefing.py", "status"): "the briefing's status line's id",
    ("bindings.py", "help"): "the F1 key's screen action",
    ("help.py", "help"): "the help screen's key scope and id",
    ("score.py", "note"): "the discipline line's count of notes written ('1 note written')",
    ("score.py", "hint"): "the discipline line's count of hints used ('3 hints used')",
}


def _strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


def test_no_module_but_the_declarations_names_a_verb():
    found = []
    words = {*VERBS, *(name.split()[0] for name in VERBS)}  # `ckpt` too: the group word
    for path in CONSUMERS:
        if path.name in DECLARATIONS and path.parent.name == "actions":
            continue
        for text in _strings(path):
            for word in words:
                if (text == word or text.startswith(word + " ")) and (
                    path.name,
                    word,
                ) not in NOT_A_VERB:
                    found.append(f"{path.relative_to(REPO)}: {text!r}")
    assert found == []


def test_ckpt_is_declared_as_a_group_once():
    assert catalog.GROUPS == {"ckpt": ("list", "verify", "rm", "prune"), "lfs": ("quota",)}
    with pytest.raises(Reject, match=r"usage: ckpt list\|prune\|rm\|verify"):
        parse("ckpt")


# -- property: what an accepted action touches is what its line names ---------------------------

LINES = st.builds(
    lambda verb, args: " ".join([verb, *args]),
    st.sampled_from(sorted(VERBS)),
    st.lists(
        st.sampled_from(
            ["train", "eval", "later", "gpu-a-1", "gpu-b-2", "scratch", "20", "--keep", "2"]
            + ["--exclude", "--include", "gpu-a-1,gpu-a-2", "ckpt-every", "50", "high", "+1TB"]
            + ["all", "P1", "5m", "--rank", "1", "--world", "8", "latest"]
        ),
        max_size=4,
    ),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(LINES, min_size=1, max_size=3))
def test_an_accepted_action_touches_what_it_names(lines):
    d = night(300)
    for line in lines:
        result = d.act(line)
        if not result.accepted:
            continue
        done = effect_of(result.text)
        assert done.verb == result.verb
        if done.touches is None:
            assert VERBS[done.verb].on == On.NOTHING
        elif done.touches != ("cluster", None):
            kind, name = done.touches
            assert name in result.text.split()
            if kind == "job":
                job = d.world.jobs[name]
                assert job.yours or VERBS[done.verb].others_jobs  # the one rule held


def test_help_on_a_group_head_lists_its_actions():
    """Audit defect 8: `help ckpt` was refused with a list of actions that held `ckpt`."""
    d = night()
    result = d.act("help ckpt")
    assert result.accepted, result.output
    for sub in GROUPS["ckpt"]:
        assert VERBS[f"ckpt {sub}"].usage in result.output
    assert "help ckpt list" in result.output


def test_help_on_a_group_of_one_says_one_action():
    """`help lfs` said "lfs is the first word of 1 actions"."""
    assert len(GROUPS["lfs"]) == 1
    result = night().act("help lfs")
    assert result.output.splitlines()[0] == "lfs is the first word of 1 action:"

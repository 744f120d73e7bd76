"""`dmesg NODE` and `systemctl NODE SERVICE` print what the tools print: printk's stamps in
seconds since boot that never go back, systemd's unit lines and its words for a unit it does
not have, and its way of writing how long ago."""

from __future__ import annotations

import re
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.actions.node_logs import relative, ring_buffer
from tests.drillkit import drill

STAMP = re.compile(r"\[( *\d+)\.(\d{6})\] (.*)")  # printk: "[%5lu.%06lu] "

texts = st.text(
    alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=40
)
messages = st.lists(texts, min_size=1, max_size=4).map("\n".join)


@given(
    booted=st.floats(-3e6, 0),
    entries=st.lists(st.tuples(st.floats(0, 7200), messages), max_size=30),
)
def test_every_kernel_line_gets_a_printk_stamp_since_boot_that_never_goes_back(booted, entries):
    entries.sort(key=lambda e: e[0])  # the kernel appends in time order
    node = SimpleNamespace(name="gpu-a-1", booted_at=booted, kernel_log=entries)
    out = ring_buffer(node)
    assert len(out) == sum(len(text.split("\n")) for _, text in entries)
    stamps = []
    for line in out:
        found = STAMP.fullmatch(line)
        assert found and len(found.group(1)) >= 5, line
        stamps.append(int(found.group(1)) + int(found.group(2)) / 1e6)
    assert all(a < b for a, b in zip(stamps, stamps[1:], strict=False)), stamps
    # Each message is stamped no earlier than its time since boot (and under a second after).
    first_lines = iter(stamps)
    for t, text in entries:
        stamp = next(first_lines)
        assert stamp >= t - booted - 1e-6
        for _ in text.split("\n")[1:]:
            next(first_lines)


def test_a_night_prints_the_same_dmesg_every_time():
    def once() -> str:
        d = drill()
        d.advance(600)
        d.world.cluster.nodes["gpu-a-1"].kernel_log.append((590.0, "NVRM: a line"))
        return d.act("dmesg gpu-a-1").output

    assert once() == once() != ""


def test_systemctl_answers_for_a_unit_the_node_does_not_have_as_systemctl_does():
    d = drill()
    d.advance(60)
    result = d.act("systemctl gpu-a-1 nvidia-fabricmanger.service")
    assert result.accepted
    assert result.output == "Unit nvidia-fabricmanger.service could not be found."


def test_a_unit_that_runs_since_before_the_night_says_so_in_systemds_words():
    d = drill()
    d.advance(60)
    out = d.act("systemctl gpu-a-1 nvidia-persistenced").output.splitlines()
    assert out[0] == "● nvidia-persistenced.service - NVIDIA Persistence Daemon"
    assert out[1] == (
        "     Loaded: loaded (/lib/systemd/system/nvidia-persistenced.service; enabled;"
        " vendor preset: enabled)"
    )
    assert re.fullmatch(
        r"     Active: active \(running\) since \d\d:\d\d:\d\d; (1 week|2 weeks) \d+ days? ago",
        out[2],
    ), out[2]
    assert out[3] == "   Main PID: 1875 (nvidia-persiste)"  # the name cut at 15 characters
    assert out[-1].endswith("gpu-a-1 systemd[1]: Started NVIDIA Persistence Daemon.")


def test_a_node_that_does_not_answer_answers_neither_look():
    d = drill()
    d.advance(60)
    d.act("reboot gpu-b-1")
    for line in ("dmesg gpu-b-1", "systemctl gpu-b-1 slurmd"):
        assert d.act(line).output == "ssh: connect to host gpu-b-1 port 22: Connection timed out"


def test_how_long_ago_is_written_as_systemd_writes_it():
    cases = {
        42: "42s",
        61: "1min 1s",
        301: "5min",
        3725: "1h 2min",
        6 * 3600 + 5: "6h",
        25 * 3600: "1 day 1h",
        3 * 86400: "3 days",
        8 * 86400: "1 week 1 day",
        19 * 86400: "2 weeks 5 days",
    }
    assert {s: relative(s) for s in cases} == cases

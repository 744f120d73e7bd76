"""steady_text: the same real error with other ports, pids, addresses or scratch folders reads
the same after it; text with none of them is untouched."""

from __future__ import annotations

import tempfile

from hypothesis import given
from hypothesis import strategies as st

from drill.engine.real_text import steady_text

# What gloo really printed on this machine when a peer was SIGKILLed (tutorial, --ranks 2).
CLOSED = (
    "[rank4]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
    "pair.cc:553] Connection closed by peer [{address}]:{port}. This is typically caused by a "
    "remote worker crashing. Check the logs of the remote worker before reporting an error. "
    "GLHF! \U0001f3d6\ufe0f"
)
TEMPLATES = [
    CLOSED,
    "[rank0]: RuntimeError: Read error [{address}]:{port}: Connection reset by peer",
    "[rank8]: RuntimeError: connect {bare}:{port} failed (pid {pid})",
    "rank 1 (pid {pid}) did not answer within 15 s; rank 0 (PID={pid}) exited with status 1",
    "{path}/step-000020.pt: no such checkpoint",
    "ValueError: <replica.gpt.Model object at 0x{pointer}> is not ready, address {bare}",
]

ports = st.integers(1, 65535)
pids = st.integers(1, 4_194_304)
scratch = st.from_regex(r"drill-[a-z-]{1,12}-[a-z0-9_]{8}", fullmatch=True)
pointers = st.from_regex(r"7f[0-9a-f]{10}", fullmatch=True)
# Any address that is not loopback: those differ between machines and runs.
remote = st.ip_addresses().filter(lambda a: not a.is_loopback).map(str)
remote_v4 = st.ip_addresses(v=4).filter(lambda a: not a.is_loopback).map(str)


@st.composite
def fills(draw, address: str | None = None):
    return {
        "address": address if address is not None else draw(remote),
        "bare": draw(remote_v4),
        "port": draw(ports),
        "pid": draw(pids),
        "path": f"{tempfile.gettempdir()}/{draw(scratch)}",
        "pointer": draw(pointers),
    }


@given(st.sampled_from(TEMPLATES), fills(), fills())
def test_the_same_text_with_other_values_reads_the_same(template, one, other):
    assert steady_text(template.format(**one)) == steady_text(template.format(**other))


# What each value reads as afterwards (a remote address in every slot).
PLACEHOLDERS = {
    "address": "<address>",
    "bare": "<address>",
    "port": "<port>",
    "pid": "<pid>",
    "path": "<tmp>",
    "pointer": "<object>",
}


@given(st.sampled_from(TEMPLATES), fills())
def test_each_value_becomes_its_placeholder_and_nothing_else_changes(template, values):
    assert steady_text(template.format(**values)) == template.format(**PLACEHOLDERS)


@given(
    st.sampled_from(["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1", "localhost"]),
    ports,
    ports,
)
def test_loopback_stays_and_only_the_port_goes(address, port, other):
    one = steady_text(CLOSED.format(address=address, port=port))
    assert one == steady_text(CLOSED.format(address=address, port=other))
    assert one == CLOSED.format(address=address, port="<port>")


def test_the_real_wording_is_kept():
    text = CLOSED.format(address="127.0.0.1", port=41360)
    assert steady_text(text) == text.replace("41360", "<port>")


# Text that carries none of those values: gloo's source locations, configured timeouts, steps,
# versions, times and rank tags look like numbers next to colons and dots, and must stay.
KEPT_PIECES = [
    "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]",
    "unbound_buffer.cc:78",
    "Timed out waiting {n}ms for recv operation to complete",
    "step {n}/120",
    "torch 2.1.{n}",
    "v1.2.3.4.5",
    "[12:30:45]",
    "03:{n}:00",
    "[rank{n}]:",
    "exitcode: {n}",
    "loss 0.{n}",
    "ChildFailedError: train.py FAILED",
    "/work/saves/night.jsonl:{n}:",
]


@given(st.lists(st.tuples(st.sampled_from(KEPT_PIECES), st.integers(0, 99_999)), max_size=8))
def test_unrelated_text_is_unchanged(pieces):
    text = " ".join(piece.format(n=n) for piece, n in pieces)
    assert steady_text(text) == text


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd", "Cs"))))
def test_text_without_digits_is_unchanged(text):
    # No digit, no port, pid or address; a scratch path needs the temp folder's name.
    if tempfile.gettempdir() in text or "/tmp/" in text or "/var/tmp/" in text:
        return
    assert steady_text(text) == text


@given(st.text())
def test_it_is_idempotent(text):
    once = steady_text(text)
    assert steady_text(once) == once


@given(st.sampled_from(TEMPLATES), fills(), st.text(max_size=40))
def test_surrounding_text_is_kept(template, values, prefix):
    # The placeholders replace the values only: what is around them is the same as before.
    prefix = "".join(c for c in prefix if not c.isdigit() and c not in "/:[].")
    assert steady_text(prefix + " " + template.format(**values)).startswith(prefix + " ")


# -- the real process group timeout said in the night's collective timeout --------------------

TIMED_OUT = (
    "[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/"
    "unbound_buffer.cc:78] Timed out waiting {ms}ms for recv operation to complete"
)


@given(wall=st.integers(1, 1800), night=st.integers(10, 43_200))
def test_gloo_timeout_says_the_nights_collective_timeout(wall, night):
    from drill.engine.real_text import night_timeout

    said = night_timeout(TIMED_OUT.format(ms=wall * 1000), wall, night)
    assert said == TIMED_OUT.format(ms=night * 1000)


@given(wall=st.integers(1, 1800), night=st.integers(10, 43_200), other=st.integers(0, 10**9))
def test_only_the_wall_timeout_changes(wall, night, other):
    from drill.engine.real_text import night_timeout

    # Another number of milliseconds, or the wall figure inside a longer one, stays as it is.
    if other == wall * 1000:
        other += 1
    for text in (TIMED_OUT.format(ms=other), TIMED_OUT.format(ms=f"9{wall * 1000}"), CLOSED):
        assert night_timeout(text, wall, night) == text

"""A bug in the loader is an internal error, never a located problem in the user's file.

The fuzz tests promise that only IncidentError comes out of the loader. That promise is only
worth something if a bug makes them fail, so this file injects one on purpose (an IndexError on
every non-ASCII text value, the experiment that once left every fuzz test green) and shows that
the fuzz properties now fail, and that the command line says "a bug in drill" with the place.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import test_loader_fuzz
import test_yaml_fuzz

from drill.cli import main
from drill.errors import EXIT_INTERNAL_ERROR, InternalError
from drill.incident import yaml_source
from drill.incident.errors import IncidentError
from drill.incident.yaml_source import load_yaml_document


@pytest.fixture
def broken_loader(monkeypatch):
    """The loader with a bug: any text value that is not ASCII raises IndexError."""
    real = yaml_source._Builder.text

    def text(self, node, value, *rest):
        if not value.isascii():
            return ()[0]
        return real(self, node, value, *rest)

    monkeypatch.setattr(yaml_source._Builder, "text", text)


def internal_errors(exc: BaseException) -> list[InternalError]:
    """The InternalErrors in what hypothesis raised (one error, or a group of several)."""
    if isinstance(exc, InternalError):
        return [exc]
    if isinstance(exc, BaseExceptionGroup):
        return [found for inner in exc.exceptions for found in internal_errors(inner)]
    return []


def test_the_injected_bug_is_an_internal_error_not_a_problem_at_1_1(broken_loader):
    with pytest.raises(InternalError) as raised:
        load_yaml_document("title: caf\u00e9\n", "night.yaml")
    line = str(raised.value)
    assert "\n" not in line
    assert "bug in drill" in line
    assert "reading night.yaml" in line
    assert "IndexError" in line
    assert "drill/incident/yaml_source.py:" in line
    assert not isinstance(raised.value, IncidentError)


def test_without_the_bug_the_same_text_loads():
    assert load_yaml_document("title: caf\u00e9\n", "night.yaml").data == {"title": "caf\u00e9"}


def test_the_yaml_fuzz_property_fails_on_an_internal_error(broken_loader):
    # The property itself, on one input that reaches the bug...
    with pytest.raises(InternalError):
        test_yaml_fuzz.test_arbitrary_text.hypothesis.inner_test("a: \u00e9")
    # ...and the whole hypothesis search, which has to find such an input by itself.
    with pytest.raises(BaseException) as raised:
        test_yaml_fuzz.test_arbitrary_text()
    assert internal_errors(raised.value), repr(raised.value)


def test_the_loader_fuzz_property_fails_on_an_internal_error(broken_loader, tmp_path: Path):
    with pytest.raises(InternalError):
        test_loader_fuzz.test_arbitrary_text.hypothesis.inner_test(tmp_path, "id: \u00e9")
    with pytest.raises(BaseException) as raised:
        test_loader_fuzz.test_yaml_shaped_text(tmp_path)
    assert internal_errors(raised.value), repr(raised.value)


def test_the_command_line_says_it_is_a_bug_in_one_line(broken_loader, tmp_path: Path, capsys):
    incident = tmp_path / "night.yaml"
    incident.write_text("title: caf\u00e9\n", encoding="utf-8")
    code = main(["validate", str(incident)])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL_ERROR
    assert err.count("\n") == 1, err
    assert err.startswith("drill: internal error while reading ")
    assert "bug in drill" in err and "drill/incident/yaml_source.py:" in err
    assert f"{incident}:1:1:" not in err


def test_the_command_line_gives_back_the_sigterm_handler_it_found(tmp_path: Path):
    import signal

    def mine(signum, frame):
        raise AssertionError("not called")

    before = signal.signal(signal.SIGTERM, mine)
    try:
        main(["validate", str(tmp_path / "missing.yaml")])
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, before)

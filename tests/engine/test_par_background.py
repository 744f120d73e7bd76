"""Par and floor measured in a second thread while the learner plays (the TUI's background
worker, drill/tui/driver.py): the learner's night is the same as with no one beside it, and
two callers asking for the same par at once measure it once."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from drill.engine.headless import play
from drill.engine.scoring import par
from drill.engine.timed import parse_text
from drill.incident.loader import load_incident
from drill.session import Session
from tests.drillkit import DEAD_RANK

SEED = 1
# The reference's lines with a checkpoint look: the night writes, lists and reads
# back checkpoints, so their bytes (which hold torch's global RNG state) are in what it prints.
LINES = [
    "03:05 ckpt list llm-pretrain",
    "{fault.gpu-dies.time}+5m30s ack all",
    "+0s status llm-pretrain",
    "+0s drain {fault.gpu-dies.node}",
    "+0s restart llm-pretrain --from latest --exclude {fault.gpu-dies.node}",
    "+10m status llm-pretrain",
    "+20m ckpt list llm-pretrain",
]


def _manifests(session: Session) -> dict[str, str]:
    """Every checkpoint manifest's sha256 the night left, by file name (the bytes' hash)."""
    run_dir = Path(session.drill.training.run_dir)
    return {
        p.name: json.loads(p.read_text())["sha256"]
        for p in sorted(run_dir.rglob("*.manifest.json"))
    }


def _learner_night(loaded, save: Path, beside: threading.Thread | None):
    """The learner's night to its score; `beside` starts with it and is waited for after."""
    session = Session.start(loaded, SEED, "inprocess", save)
    try:
        if beside is not None:
            beside.start()
        actions = parse_text("\n".join(LINES), "learner", {f.id for f in loaded.incident.faults})
        play(session.drill, actions, on_result=session.record, finish_night=False)
        session.drill.play_out(chunk=60.0)  # small chunks: many chances to interleave
        manifests = _manifests(session)
        if beside is not None:
            beside.join()
        score = session.finish()
        weights = session.drill.replica_report().weights_sha256
    finally:
        session.close()
    lines = [json.loads(line) for line in save.read_text().splitlines()]
    header, body = lines[0], lines[1:]
    header.pop("created", None)
    return header, body, manifests, score.to_json(), weights


def test_the_learners_night_is_the_same_with_par_measured_beside_it(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("DRILL_SAVES_DIR", str(tmp_path / "saves"))
    loaded = load_incident(DEAD_RANK)
    incident = loaded.incident
    alone = _learner_night(loaded, tmp_path / "alone.jsonl", None)
    # Par and floor for another cache folder, so they are measured again, beside the night.
    errors: list[BaseException] = []

    def measure() -> None:
        try:
            par.par_and_floor(incident, SEED, "inprocess", cache_dir=tmp_path / "beside")
        except BaseException as exc:  # a failure here must fail the test, not vanish
            errors.append(exc)

    beside = _learner_night(loaded, tmp_path / "beside.jsonl", threading.Thread(target=measure))
    assert not errors, errors
    assert list((tmp_path / "beside" / "par").glob("*.json"))
    header_a, body_a, manifests_a, score_a, weights_a = alone
    header_b, body_b, manifests_b, score_b, weights_b = beside
    assert manifests_a and manifests_b == manifests_a
    assert body_b == body_a
    assert score_b == score_a
    assert weights_a and weights_b == weights_a


def _counting_measured(monkeypatch) -> list[str]:
    """Wrap the function that plays and measures a night: each call is one night measured."""
    calls: list[str] = []
    real = par._measured

    def counted(incident, seed, backend, lines, name, *args, **kwargs):
        calls.append(name)
        return real(incident, seed, backend, lines, name, *args, **kwargs)

    monkeypatch.setattr(par, "_measured", counted)
    return calls


@pytest.mark.parametrize("folder", [True, False], ids=["cache folder", "memory only"])
def test_two_threads_asking_for_the_same_par_measure_it_once(tmp_path, monkeypatch, folder):
    incident = load_incident(DEAD_RANK).incident
    calls = _counting_measured(monkeypatch)
    cache = tmp_path / "cache" if folder else None
    seed = 1_000 + int(folder)  # a seed no other test measured in this process
    start = threading.Barrier(2)
    results: list[tuple] = []

    def ask() -> None:
        start.wait()
        results.append(par.par_and_floor(incident, seed, "sim", cache_dir=cache))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2 and results[0] == results[1]
    assert sorted(calls) == ["nobody", "reference"]


def test_a_stopped_measurement_caches_nothing_and_the_next_caller_measures(tmp_path):
    incident = load_incident(DEAD_RANK).incident
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3  # a few steps in

    with pytest.raises(par.Stopped):
        par.par_and_floor(incident, SEED, "sim", cache_dir=tmp_path, stop=stop)
    assert not list(tmp_path.rglob("*.json"))
    got = par.par_and_floor(incident, SEED, "sim", cache_dir=tmp_path, stop=lambda: False)
    assert got == par.par_and_floor(incident, SEED, "sim", cache_dir=tmp_path)
    assert len(list((tmp_path / "par").glob("*.json"))) == 1

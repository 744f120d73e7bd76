"""Par and floor: the same night played by the reference solution and by nobody.

Both are real runs through the same engine and backend, measured like the learner's run, and
cached so they are paid for once. The cache folder is the caller's choice (the session layer
passes saves/cache); without one, or when that folder cannot be read or written (one warning
line, drill/engine/cache_files.py), results are kept for this process only. The key is a hash of
the engine, simulation, incident-loader and replica source (drill/fingerprint.py), the
incident's content, the seed, the backend and the torch build, so no code change can serve a
stale par.

Two threads may ask for the same par at once (the TUI measures it in the background while the
learner plays, and the debrief asks again when the night ends): a lock per cache key makes the
second caller wait for the first one's result instead of measuring the same nights twice. A
caller that passes `stop` is told to give up (Stopped) between steps of the nights it plays;
what it had measured is dropped and the next caller measures from the start.

Two nights in two threads share nothing here but these caches: every Drill has its own world,
SimPy environment and replica. The one process-wide thing a replica night touches is torch's
global generator (building a model draws from it, a checkpoint records its state), and each
night keeps its own state of it (replica/determinism.py, NightRng), so a night's checkpoints
hash the same with a second night beside it (tests/engine/test_par_background.py).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

from drill.atomic_file import write_text_atomic
from drill.engine.cache_files import cache_warning
from drill.engine.drill import Drill
from drill.engine.headless import play
from drill.engine.scoring import ensemble
from drill.engine.scoring.outcome import Outcome, measure
from drill.engine.scoring.score import Score, build_score
from drill.engine.scoring.undisturbed import StepClock, undisturbed_clock
from drill.engine.timed import parse_text
from drill.fingerprint import source_fingerprint
from drill.incident.clock import NightClock
from drill.incident.models import Incident


def incident_fingerprint(incident: Incident) -> str:
    digest = hashlib.sha256(incident.model_dump_json(by_alias=True).encode())
    # A background trace's rows live in their own file, not in the model's fields: an edit to
    # the trace alone must still give new par and floor.
    for row in incident.background.trace_jobs:
        digest.update(repr(tuple(row)).encode())
    return digest.hexdigest()


class Stopped(Exception):
    """The caller's `stop` said to give up: nothing was cached."""


Stop = Callable[[], bool]


def _check(stop: Stop | None) -> None:
    if stop is not None and stop():
        raise Stopped


def play_lines(
    incident: Incident,
    seed: int,
    backend: str,
    lines: list[str],
    name: str,
    *,
    cache_dir: Path | None = None,
    stop: Stop | None = None,
) -> Drill:
    drill = Drill.create(incident, seed, backend, cache_dir=cache_dir)
    try:
        actions = parse_text("\n".join(lines), name, {f.id for f in incident.faults})
        if stop is None:
            play(drill, actions)
        else:
            # The same night as play(): play_out's own 300 s chunks, asking between them.
            play(drill, actions, on_result=lambda _: _check(stop), finish_night=False)
            while not drill.over:
                _check(stop)
                drill.advance(300.0)
    except BaseException:
        drill.close()
        raise
    return drill


def measured_run(
    incident: Incident,
    seed: int,
    backend: str,
    lines: list[str],
    name: str,
    *,
    cache_dir: Path | None = None,
) -> Outcome:
    """A runbook's night, measured like par and floor, with its ensemble's expectations."""
    data = _cached(incident, seed, backend, cache_dir)
    outcome, _, nights = _measured(incident, seed, backend, lines, name, cache_dir)
    return _with_expectations(incident, outcome, data, nights)


def _measured(
    incident, seed, backend, lines, name, cache_dir, stop: Stop | None = None
) -> tuple[Outcome, list[dict], list[ensemble.VariantNight]]:
    """The night measured, its actions as played, and the same actions on the ensemble's
    variant nights (sim-only, drill/engine/scoring/ensemble.py)."""
    drill = play_lines(incident, seed, backend, lines, name, cache_dir=cache_dir, stop=stop)
    try:
        actions = [
            {
                "time": a.time,
                "clock": drill.clock(a.time),
                "text": a.text,
                "accepted": a.accepted,
                "result": a.output,
            }
            for a in drill.actions
        ]
        clock = step_clock(incident, seed)
        outcome = measure(drill, incident.scoring.paging_target, clock)
        played = ensemble.accepted_lines(drill.actions)
        nights = []
        for variant in ensemble.variants():  # play_variants, asking between the nights
            _check(stop)
            nights.append(
                ensemble.play_variant(incident, seed, played, clock, drill.world, variant)
            )
        return outcome, actions, nights
    finally:
        drill.close()


_CLOCKS: dict[tuple[str, int], StepClock] = {}
# One lock per key of _CLOCKS and of the par cache, made under _GUARD: a second thread asking
# for what a first is computing waits for it instead of computing it again.
_LOCKS: dict[object, threading.Lock] = {}
_GUARD = threading.Lock()


def _lock_for(key: object) -> threading.Lock:
    with _GUARD:
        return _LOCKS.setdefault(key, threading.Lock())


def step_clock(incident: Incident, seed: int) -> StepClock:
    """The undisturbed run's step clock for this night (sim only, kept for the process)."""
    key = (incident_fingerprint(incident), seed)
    if key in _CLOCKS:
        return _CLOCKS[key]
    with _lock_for(("clock", key)):
        if key not in _CLOCKS:
            _CLOCKS[key] = undisturbed_clock(incident, seed)
    return _CLOCKS[key]


def cache_key(incident: Incident, seed: int, backend: str) -> str:
    """The par/floor cache key: readable at the front, a hash of everything that decides it."""
    parts = {
        "source": source_fingerprint(),
        "incident": incident_fingerprint(incident),
        "seed": seed,
        "backend": backend,
        # The replica's floating-point figures (match, losses) belong to one torch build.
        "torch": _torch_version() if backend != "sim" else None,
        # The ensemble's variant nights are cached with par and floor.
        "ensemble": ensemble.ENSEMBLE_NIGHTS,
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()
    return f"{incident.id}-s{seed}-{backend}-{digest[:32]}"


def _torch_version() -> str | None:
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


# Par and floor computed in this process, by cache key: what a caller with no folder gets.
_MEMORY: dict[str, dict] = {}
# Par and floor whose cache file could not be written, by that file's path.
_UNKEPT: dict[str, dict] = {}


def _cached(
    incident: Incident,
    seed: int,
    backend: str,
    cache_dir: Path | None,
    stop: Stop | None = None,
) -> dict:
    key = cache_key(incident, seed, backend)
    path = Path(cache_dir) / "par" / f"{key}.json" if cache_dir is not None else None
    with _lock_for(("par", key)):
        return _cached_locked(incident, seed, backend, cache_dir, key, path, stop)


def _cached_locked(incident, seed, backend, cache_dir, key: str, path: Path | None, stop) -> dict:
    if path is None and key in _MEMORY:
        return _MEMORY[key]
    if path is not None and str(path) in _UNKEPT:  # its folder could not keep it before
        return _UNKEPT[str(path)]
    if path is not None:
        data = _read_cached(path)
        if data is not None:
            return data
    floor, _, floor_variants = _measured(incident, seed, backend, [], "nobody", cache_dir, stop)
    floor_nights = [n.outcome for n in floor_variants]
    par, actions, par_variants = _measured(
        incident, seed, backend, list(incident.reference), "reference", cache_dir, stop
    )
    planned = incident.plan is not None
    par.expected = ensemble.expected_figures(
        par, floor, par_variants, floor_nights, progress=planned
    )
    floor.expected = ensemble.expected_figures(
        floor, floor, floor_variants, floor_nights, progress=planned
    )
    data = {
        "par": par.to_json(),
        "floor": floor.to_json(),
        "reference_actions": actions,
        "floor_nights": [o.to_json() if o is not None else None for o in floor_nights],
    }
    if path is None:
        _MEMORY[key] = data
    else:
        try:
            write_text_atomic(path, json.dumps(data, sort_keys=True))
        except OSError as exc:
            cache_warning(path.parent, "write to", exc)
            _UNKEPT[str(path)] = data  # the folder cannot keep it: this process does
    return data


def _floor_nights(data: dict) -> list[Outcome | None]:
    """The floor's variant nights from a cache entry (None: a variant not used)."""
    nights = [Outcome(**o) if o is not None else None for o in data["floor_nights"]]
    if len(nights) != len(ensemble.variants()):
        raise ValueError("an ensemble of another size")
    return nights


def _read_cached(path: Path) -> dict | None:
    """A cached par and floor, or None to compute them: missing, damaged or unreadable."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None  # a plain file where the folder should be: the write says so
    except OSError as exc:
        cache_warning(path.parent, "read", exc)
        return None
    try:
        data = json.loads(text)
        Outcome(**data["par"]), Outcome(**data["floor"])  # still the shape this code reads
        _floor_nights(data)
        if isinstance(data.get("reference_actions"), list):
            return data
    except (ValueError, KeyError, TypeError):
        pass  # a damaged cache entry is recomputed
    return None


def is_cached(incident: Incident, seed: int, backend: str, cache_dir: Path | None) -> bool:
    """Whether par and floor are kept already (a cache file, or this process's memory): the
    commands say "measuring par and floor" only when they will be."""
    key = cache_key(incident, seed, backend)
    if cache_dir is None:
        return key in _MEMORY
    path = Path(cache_dir) / "par" / f"{key}.json"
    return str(path) in _UNKEPT or _read_cached(path) is not None


def par_and_floor(
    incident: Incident,
    seed: int,
    backend: str,
    *,
    cache_dir: Path | None = None,
    stop: Stop | None = None,
) -> tuple[Outcome, Outcome]:
    """Par and floor, from the cache or measured now. `stop` (asked between steps of the
    nights) gives up with Stopped and caches nothing."""
    data = _cached(incident, seed, backend, cache_dir, stop)
    return Outcome(**data["par"]), Outcome(**data["floor"])


def reference_actions(
    incident: Incident, seed: int, backend: str, *, cache_dir: Path | None = None
) -> list[dict]:
    """The reference solution's actions as the engine played them: time, clock, text."""
    return list(_cached(incident, seed, backend, cache_dir)["reference_actions"])


def score_against(
    incident: Incident, mine: Outcome, par: Outcome, floor: Outcome, *, capped: bool = True
) -> Score:
    """Score one measured night against par and floor with the incident's own weights."""
    return build_score(
        mine,
        par,
        floor,
        capped=capped,
        weights=dict(incident.scoring.weights.items()),  # as pairs: str keys
        night_length=incident.night.length,
        job_gpus=incident.learner_job.gpus,
        clock=NightClock(incident.night.start).label,
    )


def score_outcome(
    incident: Incident, seed: int, backend: str, mine: Outcome, *, cache_dir: Path | None = None
) -> Score:
    par, floor = par_and_floor(incident, seed, backend, cache_dir=cache_dir)
    return score_against(incident, mine, par, floor)


def _with_expectations(
    incident: Incident, outcome: Outcome, data: dict, nights: list[ensemble.VariantNight]
) -> Outcome:
    """The learner's outcome with its figures read over the ensemble, each variant against the
    floor's own variant (cached with par and floor in `data`)."""
    outcome.expected = ensemble.expected_figures(
        outcome,
        Outcome(**data["floor"]),
        nights,
        _floor_nights(data),
        progress=incident.plan is not None,
    )
    return outcome


def measure_drill(drill: Drill) -> Outcome:
    """The learner's night, measured like par and floor, with its ensemble's expectations: the
    learner's accepted actions played again on the variant nights."""
    incident, seed = drill.incident, drill.seed
    clock = step_clock(incident, seed)
    outcome = measure(drill, incident.scoring.paging_target, clock)
    data = _cached(incident, seed, drill.backend, drill.cache_dir)
    played = ensemble.accepted_lines(drill.actions)
    nights = ensemble.play_variants(incident, seed, played, clock, drill.world)
    return _with_expectations(incident, outcome, data, nights)


def score_drill(drill: Drill) -> Score:
    mine = measure_drill(drill)
    return score_outcome(drill.incident, drill.seed, drill.backend, mine, cache_dir=drill.cache_dir)

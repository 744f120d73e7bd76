"""The replica interface: what a training job must provide so the game can run it.

The game never looks inside a replica. The trainer, the checkpoint store, `match`, the baseline,
both backends (in-process and gloo workers) and the score reach it only through the names below,
so a learner's own torch job fills the same slot as the shipped one. docs/bring-your-replica.md
is the guide; this module is the contract.

A *factory* is a callable named as "module:attribute" (for example "myweek.replica:make"). A
replica is chosen either by such a reference (typed on the command line: it names code) or by a
plain name: a shipped one (addition-gpt, spiral-mlp) or an entry point an installed package
declares in the `drill.replicas` group. A name is looked up in installed packages' metadata,
which imports nothing; only load_replica imports the factory's module. The game
calls it with the job's settings (a plain dict from the incident's `replica:` block) and
gets back an object with:

    global_batch: int          samples in one step, over all ranks
    ranks: int                 data-parallel ranks of the undisturbed run; divides global_batch
    build_model() -> torch.nn.Module
        the same initial weights every call (draw from a torch.Generator seeded from the
        settings, never from the global RNG)
    make_optimizer(model) -> torch.optim.Optimizer
    batch(step, start, stop) -> tuple of tensors
        samples start..stop-1 of the global batch of `step`, each tensor with stop - start rows;
        every sample a pure function of (seed, step, sample index), whoever asks for it
    loss(model, batch) -> 0-dim tensor
        the mean over the batch's samples of a per-sample loss, so the mean of equal-sized
        micro-batch losses is the loss of the whole batch

and optionally:

    name: str                  shown in the game (default: the factory's name)
    seed: int                  recorded in checkpoints' data cursor
    settings: dict             the settings it actually used (defaults filled in); part of its
                               identity, so the baseline cache never mixes two configurations
    version: str               bump it when the math changes and the source digest would not
    close_threshold: float     relative L2 under which `match` says "close" (default 1e-2)
    config_hash() -> str       its own identity hash (the shipped GPT keeps its config hash)

A factory may raise ValueError for bad settings; the message should name the setting and the
bound (replica.settings has a helper). Nothing here imports torch: the factory's module is
imported only when load_replica is called, which the game does only when a replica backend
starts.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import json
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from replica.errors import ReplicaRefused

# The entry-point group a package declares its replicas in (see docs/bring-your-replica.md).
GROUP = "drill.replicas"
# The shipped replicas, by the names the command line accepts. drill's own pyproject.toml
# declares the same two in GROUP; this table is what those names mean even in a checkout that
# was not reinstalled, and no other package can take them over.
BUILTIN = {
    "addition-gpt": "replica.gpt:make_replica",
    "spiral-mlp": "replica.spiral_mlp:make_replica",
}
DEFAULT_REF = BUILTIN["addition-gpt"]
DEFAULT_CLOSE_THRESHOLD = 1e-2

REQUIRED_METHODS = {
    "build_model": "build_model() returning the torch model",
    "make_optimizer": "make_optimizer(model) returning a torch optimizer",
    "batch": "batch(step, start, stop) returning a tuple of tensors",
    "loss": "loss(model, batch) returning the mean loss as a 0-dim tensor",
}
REQUIRED_NUMBERS = {
    "global_batch": "samples per step over all ranks",
    "ranks": "data-parallel ranks of the undisturbed run",
}
IDENTITY_SCHEMA = 1

# module:factory (the factory may be an attribute path, as entry points allow).
_REF_RE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
# An installed replica's name: no colon and no dots, so it can never be read as a module path.
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def is_code_ref(choice: str | None) -> bool:
    """Whether a choice names code ("module:factory") rather than an installed replica."""
    return choice is not None and ":" in str(choice)


def is_replica_name(choice: str | None) -> bool:
    """Whether a choice is a plain replica name (shipped, or an installed entry point)."""
    return choice is not None and NAME_RE.fullmatch(str(choice)) is not None


def installed_replicas() -> dict[str, list[tuple[str, str]]]:
    """Every `drill.replicas` entry point of the installed packages: name -> [(module:attr,
    package)]. Read from their metadata; nothing is imported."""
    found: dict[str, list[tuple[str, str]]] = {}
    for point in importlib.metadata.entry_points(group=GROUP):
        dist = getattr(point, "dist", None)
        package = getattr(dist, "name", None) or "an unnamed package"
        value = f"{point.module}:{point.attr}" if point.attr else point.module
        if (value, package) not in found.setdefault(point.name, []):
            found[point.name].append((value, package))
    return found


def entry_point_ref(name: str) -> str:
    """The module:factory an installed replica's name stands for, without importing it."""
    if name in BUILTIN:
        return BUILTIN[name]
    offers = installed_replicas().get(name, [])
    refs = sorted({value for value, _ in offers})
    if not refs:
        raise ReplicaRefused(
            f"no replica named {name!r} is installed: install the package that declares it as"
            f" a {GROUP} entry point, or choose one of {', '.join(sorted(BUILTIN))}"
        )
    if len(refs) > 1:
        packages = ", ".join(sorted({package for _, package in offers}))
        raise ReplicaRefused(
            f"replica {name!r} is declared by more than one installed package ({packages});"
            " uninstall all but one"
        )
    if not _REF_RE.match(refs[0]):
        raise ReplicaRefused(
            f"the {GROUP} entry point {name!r} points at {refs[0]!r}, not at module:factory"
        )
    return refs[0]


def canonical_ref(ref: str | None) -> str:
    """A replica name ("spiral-mlp", an installed entry point) or "module:factory" as the one
    spelling the game keys on: module:factory. Imports nothing."""
    if ref is None or ref == "":
        return DEFAULT_REF
    ref = str(ref).strip()
    if is_code_ref(ref):
        if not _REF_RE.match(ref):
            raise ReplicaRefused(
                f"replica {ref!r} is not a factory name: write module:factory (for example"
                f" myweek.replica:make)"
            )
        return ref
    if is_replica_name(ref):
        return entry_point_ref(ref)
    raise ReplicaRefused(
        f"replica {ref!r} is not a replica name: use an installed one ({', '.join(sorted(BUILTIN))},"
        f" or a {GROUP} entry point) or, on the command line, module:factory"
    )


def short_name(ref: str) -> str:
    """The built-in short name of a ref, or the ref itself."""
    for name, full in BUILTIN.items():
        if full == ref:
            return name
    return ref


def resolve_factory(ref: str, *, from_here: bool = False) -> Any:
    """Import the factory's module and return the callable. Imports the learner's code.

    from_here: the folder drill runs from may hold the module (a module:factory the learner
    typed on the command line); an installed replica's module is found where it is installed."""
    ref = canonical_ref(ref)
    module_name, _, attr = ref.partition(":")
    if from_here:
        _importable_from_here()
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise ReplicaRefused(
                f"replica {ref}: no module named {module_name!r} (run drill from the folder"
                " that holds it, or install it into this environment)"
            ) from None
        raise ReplicaRefused(
            f"replica {ref}: importing {module_name} failed: {type(exc).__name__}: {exc}"
        ) from exc
    except Exception as exc:
        raise ReplicaRefused(
            f"replica {ref}: importing {module_name} failed: {type(exc).__name__}: {exc}"
        ) from exc
    factory: Any = module
    for part in attr.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise ReplicaRefused(f"replica {ref}: module {module_name} has no {attr!r}")
    if not callable(factory):
        raise ReplicaRefused(
            f"replica {ref}: {attr} is not callable, it is a {type(factory).__name__}"
        )
    return factory


def _importable_from_here() -> None:
    """Let a module in the folder drill runs from be imported, as `python -m` would.

    Only for a module:factory typed on the command line: nothing a file says (an incident, a
    save, a config) ever reaches here. The `drill` console script's sys.path starts with its
    own bin folder, not the current one. Appended, not prepended: a learner's file never
    shadows an installed package. Worker processes inherit sys.path from the parent, so they
    find the same module."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)


def load_replica(
    ref: str | None = None,
    settings: Mapping[str, Any] | None = None,
    *,
    config_hash: str | None = None,
) -> LoadedReplica:
    """Build the replica a ref names with these settings, and check it has every method.

    config_hash, when given, is the identity to use instead of computing it: a worker process
    takes its parent's (spec()), so every rank of a night agrees on it even if a source file
    changed on disk since the parent loaded the replica.

    Raises ReplicaRefused with one line naming the replica and what is wrong: a ref that does
    not import, settings the factory refuses, a missing method or attribute.
    """
    choice = str(ref).strip() if ref else None
    ref = canonical_ref(choice)
    given = _plain(dict(settings or {}), ref)
    factory = resolve_factory(ref, from_here=is_code_ref(choice) and ref not in BUILTIN.values())
    try:
        impl = factory(dict(given))
    except (ValueError, TypeError) as exc:  # the settings refused, in the factory's words
        raise ReplicaRefused(f"replica {short_name(ref)}: {exc}") from exc
    except Exception as exc:  # the learner's code broke: its line, not drill's traceback
        raise ReplicaRefused(
            f"replica {short_name(ref)}: its factory raised {raised(exc)}; fix the factory so"
            " it returns the replica object (see docs/bring-your-replica.md)"
        ) from exc
    return LoadedReplica(choice or ref, given, impl, config_hash=config_hash)


def raised(exc: BaseException) -> str:
    """`RuntimeError: no GPU found`: what a learner's code raised, on one line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class LoadedReplica:
    """A learner's (or a shipped) replica object as the game uses it: checked, with an identity.

    `spec()` is the plain data a worker process needs to build the same replica again.
    """

    def __init__(
        self,
        ref: str,
        settings: Mapping[str, Any],
        impl: Any,
        *,
        config_hash: str | None = None,
    ) -> None:
        self.choice = str(ref).strip()  # as chosen: a name, or module:factory
        self.ref = canonical_ref(ref)
        self.impl = impl
        # A shipped replica that raises is a bug in drill (exit 70); a learner's is theirs to
        # fix, so what their code raises becomes one line naming it (exit 2).
        self.learners = self.ref not in BUILTIN.values()
        try:
            self._read(impl, settings, config_hash)
        except ReplicaRefused:
            raise
        except Exception as exc:
            if not self.learners:
                raise
            raise ReplicaRefused(
                f"replica {short_name(self.ref)}: reading its attributes raised {raised(exc)};"
                " fix it so global_batch, ranks, settings and the other attributes are plain values"
                " (see docs/bring-your-replica.md)"
            ) from exc

    def _read(self, impl: Any, settings: Mapping[str, Any], config_hash: str | None) -> None:
        check_interface(impl, short_name(self.ref))
        self.global_batch = int(impl.global_batch)
        self.ranks = int(impl.ranks)
        if self.global_batch < 1 or self.ranks < 1 or self.global_batch % self.ranks:
            raise ReplicaRefused(
                f"replica {short_name(self.ref)}: ranks {self.ranks} must be at least 1 and divide"
                f" global_batch {self.global_batch} (each rank takes an equal shard)"
            )
        own = getattr(impl, "settings", None)
        self.given_settings = dict(settings)
        self.settings = _plain(dict(own), self.ref) if isinstance(own, Mapping) else dict(settings)
        self.name = str(getattr(impl, "name", None) or short_name(self.ref))
        seed = getattr(impl, "seed", None)
        self.seed = seed if isinstance(seed, int) and not isinstance(seed, bool) else None
        threshold = getattr(impl, "close_threshold", DEFAULT_CLOSE_THRESHOLD)
        if not isinstance(threshold, int | float) or not 0 < threshold < 1:
            raise ReplicaRefused(
                f"replica {self.name}: close_threshold must be a number between 0 and 1,"
                f" got {threshold!r}"
            )
        self.close_threshold = float(threshold)
        self.config_hash = config_hash or self._identity_hash()

    # The four calls the trainer makes. Thin on purpose: no per-step overhead worth measuring
    # (a try costs nothing until something raises).
    def build_model(self) -> Any:
        try:
            return self.impl.build_model()
        except Exception as exc:
            self._broke("build_model()", exc)
            raise

    def make_optimizer(self, model: Any) -> Any:
        try:
            return self.impl.make_optimizer(model)
        except Exception as exc:
            self._broke("make_optimizer(model)", exc)
            raise

    def batch(self, step: int, start: int, stop: int) -> tuple[Any, ...]:
        try:
            out = self.impl.batch(step, start, stop)
        except Exception as exc:
            self._broke(f"batch({step}, {start}, {stop})", exc)
            raise
        if isinstance(out, tuple):
            return out
        return tuple(out) if isinstance(out, list) else (out,)

    def loss(self, model: Any, batch: tuple[Any, ...]) -> Any:
        try:
            return self.impl.loss(model, batch)
        except Exception as exc:
            self._broke("loss(model, batch)", exc)
            raise

    def _broke(self, call: str, exc: Exception) -> None:
        """The learner's method raised: one line naming the replica, the call and the fix. A
        shipped replica's exception goes on as it is (a bug in drill, exit 70)."""
        if not self.learners or isinstance(exc, ReplicaRefused):
            return
        method = call.partition("(")[0]
        raise ReplicaRefused(
            f"replica {short_name(self.ref)}: {call} raised {raised(exc)}; fix {method}() in"
            " your replica (docs/bring-your-replica.md says what it must return)"
        ) from exc

    def spec(self) -> dict[str, Any]:
        """Plain data (crosses a process spawn): load_replica(**spec) builds the same replica,
        with this one's identity."""
        return {
            "ref": self.choice,  # a name resolves again in the worker, as it did here
            "settings": dict(self.given_settings),
            "config_hash": self.config_hash,
        }

    def identity(self) -> dict[str, Any]:
        """What makes two replicas the same run: the factory, its settings and its code."""
        return {
            "ref": self.ref,
            "settings": self.settings,
            "version": getattr(self.impl, "version", None),
            "source": source_digest(self.ref),
        }

    def _identity_hash(self) -> str:
        own = getattr(self.impl, "config_hash", None)
        if callable(own):
            value = own()
            if not isinstance(value, str) or not value:
                raise ReplicaRefused(f"replica {self.name}: config_hash() must return a string")
            return value
        doc = {"schema": IDENTITY_SCHEMA, **self.identity()}
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"LoadedReplica({self.ref!r}, {self.given_settings!r})"


def check_interface(impl: Any, name: str) -> None:
    """Every method and number the game calls, or one line saying what is missing."""
    missing = [
        f"{attr} ({what})"
        for attr, what in REQUIRED_METHODS.items()
        if not callable(getattr(impl, attr, None))
    ]
    for attr, what in REQUIRED_NUMBERS.items():
        value = getattr(impl, attr, None)
        if isinstance(value, bool) or not isinstance(value, int):
            missing.append(f"{attr} (an int: {what})")
    if missing:
        raise ReplicaRefused(
            f"replica {name} is missing {', '.join(missing)}; see docs/bring-your-replica.md"
        )


def source_digest(ref: str) -> str:
    """sha256 over the factory module's source, and its package folder's other .py files.

    Part of a replica's identity, so editing the model between two nights retrains the
    baseline instead of comparing against a stale one. A module that is not a file (built in,
    zipped) has no digest here; its `version` attribute then carries the identity.
    """
    module = sys.modules.get(canonical_ref(ref).partition(":")[0])
    path = getattr(module, "__file__", None)
    if not path:
        return ""
    return _digest(Path(path), bool(getattr(module, "__package__", "") or ""))


def replica_fingerprint(choice: str | None, *, from_here: bool = False) -> str:
    """source_digest of a replica's module, found on the import path without importing it.

    A save records it, so a replay can tell that the replica's source changed since the night
    before anything of it runs. It depends only on the files' names and bytes, so the same
    source gives the same fingerprint on any machine. from_here: look in the current folder
    too, after the import path (a module:factory typed on the command line). "" when the
    module is not a file or cannot be found."""
    module_name = canonical_ref(choice).partition(":")[0]
    module = sys.modules.get(module_name)
    if module is not None and getattr(module, "__file__", None):
        return source_digest(canonical_ref(choice))
    spec = _find_spec_without_import(module_name, [os.getcwd()] if from_here else [])
    if spec is None or not spec.has_location or not spec.origin:
        return ""
    is_package = spec.submodule_search_locations is not None
    return _digest(Path(spec.origin), is_package or "." in module_name)


def _find_spec_without_import(module_name: str, extra: list[str]) -> Any:
    """The module's spec, found level by level through the import system's finders, so no
    package's __init__ runs (importlib.util.find_spec imports the parents)."""
    spec = None
    search: Any = None
    parts = module_name.split(".")
    for depth in range(len(parts)):
        name = ".".join(parts[: depth + 1])
        loaded = sys.modules.get(name)
        spec = getattr(loaded, "__spec__", None) if loaded is not None else None
        if spec is None:
            spec = _find(name, search, extra if depth == 0 else [])
        if spec is None:
            return None
        # A plain list: a namespace package's own path object looks its parent up in
        # sys.modules, where nothing was imported.
        locations = spec.submodule_search_locations
        search = None if locations is None else list(getattr(locations, "_path", locations))
        if depth < len(parts) - 1 and search is None:
            return None
    return spec


def _find(name: str, search: Any, extra: list[str]) -> Any:
    if search is not None:
        found = _find_in_folders(name, search)
        if found is not None:
            return found
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        try:
            spec = find_spec(name, search)
        except (ImportError, ValueError, KeyError, AttributeError):
            spec = None  # a finder that cannot say (a namespace needs its parent imported)
        if spec is not None:
            return spec
    return _find_in_folders(name, extra) if extra else None


def _find_in_folders(name: str, folders: list[str]) -> Any:
    """The spec of `name` in these folders, as the path finder would give it, including a
    namespace package spread over several (whose own finder wants its parent imported)."""
    loaders = [
        (importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
        (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES),
        (importlib.machinery.SourcelessFileLoader, importlib.machinery.BYTECODE_SUFFIXES),
    ]
    portions: list[str] = []
    for folder in folders:
        if not isinstance(folder, str) or not os.path.isdir(folder):
            continue
        spec = importlib.machinery.FileFinder(folder, *loaders).find_spec(name)
        if spec is None:
            continue
        if spec.loader is not None:
            return spec
        portions.extend(spec.submodule_search_locations or [])
    return _namespace_spec(name, portions) if portions else None


def _namespace_spec(name: str, portions: list[str]) -> Any:
    spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
    spec.submodule_search_locations = portions
    return spec


def _digest(here: Path, in_package: bool) -> str:
    files = sorted(here.parent.glob("*.py")) if in_package else [here]
    digest = hashlib.sha256()
    for file in files:
        try:
            data = file.read_bytes()
        except OSError:
            continue
        digest.update(file.name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()


def _plain(settings: dict[str, Any], ref: str) -> dict[str, Any]:
    """Settings must be plain JSON data: they are hashed and sent to worker processes."""
    try:
        text = json.dumps(settings, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ReplicaRefused(
            f"replica {short_name(ref)}: settings must be plain numbers, strings, lists and"
            f" tables ({exc})"
        ) from None
    return json.loads(text)


def shipped_settings(ref: str | None) -> tuple[set[str], Any] | None:
    """(known setting names, a checker that raises ValueError) for a shipped replica, without
    torch; None for a learner's replica, whose factory checks its settings when the night
    starts (importing it here would import the learner's code and torch)."""
    ref = canonical_ref(ref)
    if ref == BUILTIN["addition-gpt"]:
        import dataclasses

        from replica.config import ReplicaConfig

        return {f.name for f in dataclasses.fields(ReplicaConfig)}, ReplicaConfig.from_mapping
    if ref == BUILTIN["spiral-mlp"]:
        from replica.spiral_mlp import SETTINGS, check_settings

        return {s.name for s in SETTINGS}, check_settings
    return None

"""The replica's configuration: one frozen value that fixes the math of a run.

Two runs with equal configs (and equal world sizes) produce the same weights bit for bit, so
the config's hash is what a checkpoint records to say "these bytes belong to this run". The hash
is sha256 over a canonical JSON (sorted keys, no whitespace), so it is stable across processes
and Python hash seeds.

The default size is chosen for the game, not for quality: about 300 steps on 4 ranks must
train in a few seconds on one CPU thread while the loss is still clearly falling at the end.
See replica/model.py for the measured cost of this size and why it was chosen.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replica.task import VOCAB_SIZE

# Length of a default night in replica steps. Not a config field: it does not change the math
# of any step, so changing it must not make existing checkpoints incompatible.
DEFAULT_NIGHT_STEPS = 300

# Bumped when the meaning of a field or the model/data code changes in a way that changes the
# math, so that old checkpoints are refused instead of silently loaded into a different model.
CONFIG_SCHEMA = 1

# What a night can run on the 2-core machine the game is made for, one torch thread. Each bound
# alone keeps the model inside memory and a step inside a second or so with the other settings
# at their defaults; MAX_STEP_MACS bounds them together (see estimated_step_macs). Inside the
# bounds, the measured check before a night (replica/checks.py) has the last word on speed.
# Without them a width of 10**12 dies in the allocator and a global batch of 4,000,000 trains
# for minutes before anything says why.
BOUNDS: dict[str, tuple[float, float]] = {
    "layers": (1, 12),
    "width": (1, 512),
    "heads": (1, 64),
    "context": (1, 256),
    "max_digits": (1, 9),
    "global_batch": (1, 1024),
    "lr": (0.0, 1.0),
    "weight_decay": (0.0, 1.0),
    "seed": (0, 2**32 - 1),
    "ranks": (1, 64),
}
# About 66 times the default's 15 million: a step of a few hundred milliseconds here.
MAX_STEP_MACS = 1_000_000_000


@dataclass(frozen=True)
class ReplicaConfig:
    """Everything that decides the numbers a run produces."""

    layers: int = 1
    width: int = 32
    heads: int = 2
    context: int = 32
    # Operands of the synthetic addition task have 1..max_digits digits (see replica/data.py).
    max_digits: int = 2
    global_batch: int = 32
    lr: float = 3e-3
    weight_decay: float = 0.0
    seed: int = 0
    # Data-parallel ranks of the undisturbed replica. The global batch is split into this many
    # micro-batches whatever the real world size is, so it must divide global_batch.
    ranks: int = 4

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "float":
                ok = isinstance(value, int | float) and not isinstance(value, bool)
            else:
                ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                raise ValueError(
                    f"replica config field {f.name!r} must be a {f.type}, got {value!r}"
                )
            if f.type == "float":
                # 1 and 1.0 must hash the same: store floats as floats.
                object.__setattr__(self, f.name, float(value))
        for name, (low, high) in BOUNDS.items():
            value = getattr(self, name)
            if value < low:
                raise ValueError(
                    f"replica setting {name} is {value!r}; it must be at least {low}"
                    f" (the bound is {low} to {high})"
                )
            if value > high:
                raise ValueError(
                    f"replica setting {name} is {value!r}; a night on this machine can run at"
                    f" most {high} (the bound is {low} to {high})"
                )
        if self.width % self.heads:
            raise ValueError(f"width {self.width} must be a multiple of heads {self.heads}")
        if self.global_batch % self.ranks:
            raise ValueError(
                f"ranks {self.ranks} must divide global_batch {self.global_batch} "
                "(each rank takes an equal shard)"
            )
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if self.weight_decay < 0:
            raise ValueError(f"weight_decay must not be negative, got {self.weight_decay}")
        if self.seed < 0:
            raise ValueError(f"seed must not be negative, got {self.seed}")
        macs = self.estimated_step_macs()
        if macs > MAX_STEP_MACS:
            raise ValueError(
                f"replica settings layers {self.layers}, width {self.width}, context"
                f" {self.context} and global_batch {self.global_batch} make about {macs:.2g}"
                f" multiply-adds a step; a night on this machine can run at most"
                f" {MAX_STEP_MACS:.2g}; lower one of them"
            )

    @property
    def vocab(self) -> int:
        """Vocabulary size, derived from the task's alphabet (digits, '+', '=', ';')."""
        return VOCAB_SIZE

    @property
    def micro_batch(self) -> int:
        """Samples per rank in the undisturbed run."""
        return self.global_batch // self.ranks

    def estimated_step_macs(self) -> int:
        """Multiply-adds of one step's forward pass over the global batch: per token, the
        blocks' projections and MLP (12 width^2 per layer), attention over the context and the
        tied output head. Backward costs about twice this again; the ratio is what matters."""
        per_token = (
            self.layers * (12 * self.width * self.width + 2 * self.context * self.width)
            + self.width * VOCAB_SIZE
        )
        return self.global_batch * self.context * per_token

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def config_hash(self) -> str:
        """sha256 hex of the canonical JSON of the fields plus the schema version."""
        doc = {"schema": CONFIG_SCHEMA, "fields": self.to_dict()}
        text = json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> ReplicaConfig:
        """Build a config from e.g. an incident's `replica:` block; unknown keys are an error."""
        known = {f.name for f in dataclasses.fields(cls)}
        for key in mapping:
            if key not in known:
                raise ValueError(
                    f"unknown replica config key {key!r}; known keys: {', '.join(sorted(known))}"
                )
        return cls(**dict(mapping))

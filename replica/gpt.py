"""The shipped replica: the one-layer GPT on addition, as one implementation of the interface.

Everything the game needs from it goes through replica/interface.py, the same way a learner's
replica is reached. Its settings are ReplicaConfig's fields, bounded there; its identity is the
config hash, which already changes with CONFIG_SCHEMA when the model or data code changes the
math, so its checkpoints and baselines stay what they were before the interface existed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from replica.config import ReplicaConfig


class AdditionGPT:
    name = "addition-gpt"

    def __init__(self, config: ReplicaConfig) -> None:
        self.config = config
        self.global_batch = config.global_batch
        self.ranks = config.ranks
        self.seed = config.seed
        self.settings = config.to_dict()

    def config_hash(self) -> str:
        return self.config.config_hash()

    def build_model(self) -> Any:
        from replica.model import build_model

        return build_model(self.config)

    def make_optimizer(self, model):
        import torch

        # foreach=True: one kernel per op over all parameters; the per-tensor loop is slower at
        # this size and both are deterministic on CPU.
        return torch.optim.AdamW(
            model.parameters(),
            lr=self.config.lr,
            betas=(0.9, 0.99),
            weight_decay=self.config.weight_decay,
            foreach=True,
        )

    def batch(self, step: int, start: int, stop: int):
        from replica.data import sample_range

        return sample_range(self.config, step, start, stop)

    def loss(self, model, batch):
        inputs, targets = batch
        return model.loss(inputs, targets)


def make_replica(settings: Mapping[str, Any]) -> AdditionGPT:
    """The factory the game calls: settings are an incident's `replica:` block."""
    return AdditionGPT(ReplicaConfig.from_mapping(settings))

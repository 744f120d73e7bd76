"""A second shipped replica, of another kind: a small MLP classifying points on seeded spirals.

It exists to prove the interface (replica/interface.py): it uses nothing of the GPT's, and the
game runs it through the same trainer, checkpoint store, `match`, baseline and backends:

    drill run dead-rank --reference --replica spiral-mlp

The task: `arms` spiral arms wound `turns` times around the origin, a point drawn on a random arm
at a random radius with a little noise; the model says which arm. Each sample is a pure function
of (seed, step, index), drawn from a `random.Random` seeded with a string (Python hashes it with
sha512), so it depends on no process, hash seed or rank. The untrained loss is ln(arms) (1.39
for the default four arms); with the defaults it is still falling at step 300 (measured in
docs/bring-your-replica.md).

torch is imported inside the methods, not at the top, so `drill validate` can check this
replica's settings without loading torch. A learner's replica need not bother.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from replica.settings import Setting, read_settings

SETTINGS = (
    Setting("hidden", 32, 1, 512, "units in each hidden layer"),
    Setting("depth", 2, 1, 8, "hidden layers"),
    Setting("arms", 4, 2, 8, "spiral arms, one class each"),
    Setting("turns", 1.25, 0.25, 4.0, "how many times each arm winds round"),
    Setting("noise", 0.04, 0.0, 0.5, "standard deviation of the noise on each point"),
    Setting("global_batch", 64, 1, 4096, "samples per step over all ranks"),
    Setting("ranks", 4, 1, 64, "data-parallel ranks of the undisturbed run"),
    Setting("lr", 0.01, 1e-6, 1.0, "AdamW learning rate"),
    Setting("seed", 0, 0, 2**32 - 1, "seeds the data and the initial weights"),
)
# hidden^2 * depth * global_batch: multiply-adds of a step's forward pass, give or take the
# first and last layers. The default is about 130 thousand.
MAX_STEP_MACS = 200_000_000


def check_settings(given: Mapping[str, Any]) -> dict[str, Any]:
    """The settings with defaults filled in, or ValueError naming the setting and its bound."""
    s = read_settings(given, SETTINGS)
    if s["global_batch"] % s["ranks"]:
        raise ValueError(
            f"replica setting ranks {s['ranks']} must divide global_batch {s['global_batch']}"
        )
    macs = s["hidden"] * s["hidden"] * s["depth"] * s["global_batch"]
    if macs > MAX_STEP_MACS:
        raise ValueError(
            f"replica settings hidden {s['hidden']}, depth {s['depth']} and global_batch"
            f" {s['global_batch']} make about {macs:.2g} multiply-adds a step; a night on this"
            f" machine can run at most {MAX_STEP_MACS:.2g}; lower one of them"
        )
    return s


class SpiralMLP:
    name = "spiral-mlp"
    version = "1"

    def __init__(self, settings: Mapping[str, Any]) -> None:
        self.settings = check_settings(settings)
        self.global_batch = self.settings["global_batch"]
        self.ranks = self.settings["ranks"]
        self.seed = self.settings["seed"]

    def build_model(self):
        import torch
        from torch import nn

        s = self.settings
        layers: list[nn.Module] = []
        width = 2
        for _ in range(s["depth"]):
            layers += [nn.Linear(width, s["hidden"]), nn.GELU()]
            width = s["hidden"]
        layers.append(nn.Linear(width, s["arms"]))
        model = nn.Sequential(*layers)
        # A private generator: the same weights every time, whatever else used the global RNG.
        gen = torch.Generator().manual_seed(self.seed)
        with torch.no_grad():
            for module in model:
                if isinstance(module, nn.Linear):
                    bound = 1.0 / math.sqrt(module.in_features)
                    module.weight.uniform_(-bound, bound, generator=gen)
                    module.bias.zero_()
            # A small last layer, so the untrained loss is close to ln(arms).
            model[-1].weight.mul_(0.1)
        return model

    def make_optimizer(self, model):
        import torch

        return torch.optim.AdamW(
            model.parameters(), lr=self.settings["lr"], betas=(0.9, 0.99), foreach=True
        )

    def batch(self, step: int, start: int, stop: int):
        import torch

        s = self.settings
        points: list[float] = []
        labels: list[int] = []
        for index in range(start, stop):
            x, y, arm = sample(s, step, index)
            points += (x, y)
            labels.append(arm)
        inputs = torch.tensor(points, dtype=torch.float32).view(stop - start, 2)
        return inputs, torch.tensor(labels, dtype=torch.long)

    def loss(self, model, batch):
        import torch.nn.functional as F

        inputs, labels = batch
        return F.cross_entropy(model(inputs), labels)


def sample(settings: Mapping[str, Any], step: int, index: int) -> tuple[float, float, int]:
    """Point `index` of the global batch of `step`: (x, y, arm)."""
    rnd = random.Random(f"spiral-mlp/{settings['seed']}/{step}/{index}")
    arms = settings["arms"]
    arm = int(rnd.random() * arms)
    radius = rnd.random()
    angle = radius * settings["turns"] * 2 * math.pi + arm * 2 * math.pi / arms
    noise = settings["noise"]
    x = radius * math.cos(angle) + rnd.gauss(0.0, noise)
    y = radius * math.sin(angle) + rnd.gauss(0.0, noise)
    return x, y, arm


def make_replica(settings: Mapping[str, Any]) -> SpiralMLP:
    """The factory the game calls (`--replica spiral-mlp` or replica.spiral_mlp:make_replica)."""
    return SpiralMLP(settings)

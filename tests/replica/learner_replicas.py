"""Replicas a learner might bring, good and bad, for the tests: each is a factory the game can
be pointed at with `--replica tests.replica.learner_replicas:NAME`.

Each bad one breaks exactly one rule of replica/interface.py, so each test names the rule."""

from __future__ import annotations

import random
import time

import torch
import torch.nn.functional as F


class Tiny:
    """A small, correct replica: a 2-layer MLP fitting sin(2x) from seeded points."""

    name = "tiny-sine"
    global_batch = 16
    ranks = 4
    seed = 0

    def __init__(self, settings):
        self.settings = {"hidden": int(settings.get("hidden", 8))}

    def build_model(self):
        gen = torch.Generator().manual_seed(self.seed)
        model = torch.nn.Sequential(
            torch.nn.Linear(1, self.settings["hidden"]),
            torch.nn.Tanh(),
            torch.nn.Linear(self.settings["hidden"], 1),
        )
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
        return model

    def make_optimizer(self, model):
        return torch.optim.AdamW(model.parameters(), lr=0.01)

    def batch(self, step, start, stop):
        gen = torch.Generator().manual_seed(self.seed * 1_000_003 + step)
        x = torch.rand(self.global_batch, 1, generator=gen) * 4 - 2
        return x[start:stop], torch.sin(2 * x)[start:stop]

    def loss(self, model, batch):
        x, y = batch
        return F.mse_loss(model(x), y)


def tiny(settings):
    return Tiny(settings)


class UnseededInit(Tiny):
    """Initial weights from the global RNG: every build is different."""

    def build_model(self):
        model = super().build_model()
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn(p.shape) * 0.1)
        return model


def unseeded_init(settings):
    return UnseededInit(settings)


class NoisyData(Tiny):
    """Data drawn from Python's global random: the same step gives other samples each time."""

    def batch(self, step, start, stop):
        x = torch.tensor([[random.uniform(-2, 2)] for _ in range(stop - start)])
        return x, torch.sin(2 * x)


def noisy_data(settings):
    return NoisyData(settings)


class NoLoss:
    """Everything but the loss (and the numbers the game needs are there)."""

    global_batch = 16
    ranks = 4

    def __init__(self, settings):
        self.inner = Tiny(settings)

    def build_model(self):
        return self.inner.build_model()

    def make_optimizer(self, model):
        return self.inner.make_optimizer(model)

    def batch(self, step, start, stop):
        return self.inner.batch(step, start, stop)


def no_loss(settings):
    return NoLoss(settings)


class Slow(Tiny):
    """Correct, but each micro-batch's loss takes a quarter of a second."""

    def loss(self, model, batch):
        time.sleep(0.25)
        return super().loss(model, batch)


def slow(settings):
    return Slow(settings)


class Napping(Tiny):
    """Correct and cheap in CPU, but each step waits about 0.15 s (on a file, say): fine for a
    night by its CPU, and by its wall time within the slack."""

    def loss(self, model, batch):
        time.sleep(0.15 / self.ranks)
        return super().loss(model, batch)


def napping(settings):
    return Napping(settings)


class Picky(Tiny):
    """Checks its own settings and names the bound, as replica/settings.py helps to."""

    def __init__(self, settings):
        from replica.settings import Setting, read_settings

        self.settings = read_settings(settings, (Setting("hidden", 8, 1, 64, "units"),))


def picky(settings):
    return Picky(settings)


class HiddenState(Tiny):
    """Keeps a counter on the model that the checkpoint does not hold: fresh runs agree, a
    resumed run does not."""

    def build_model(self):
        model = super().build_model()
        model.calls = 0
        return model

    def loss(self, model, batch):
        model.calls += 1
        return super().loss(model, batch) * (1.0 + 0.01 * model.calls)


def hidden_state(settings):
    return HiddenState(settings)


class OutsideState(Tiny):
    """Counts its calls in a Python attribute of the replica object: the model is rebuilt for
    every run, this counter is not, so a second fresh run goes on where the first stopped.
    Seeded everywhere: the global RNG is not the cause."""

    def __init__(self, settings):
        super().__init__(settings)
        self.calls = 0

    def loss(self, model, batch):
        self.calls += 1
        return super().loss(model, batch) * (1.0 + 0.01 * self.calls)


def outside_state(settings):
    return OutsideState(settings)


class UnseededDropout(Tiny):
    """Dropout in training draws from torch's global RNG on every step."""

    def loss(self, model, batch):
        x, y = batch
        return F.mse_loss(F.dropout(model(x), 0.2, training=True), y)


def unseeded_dropout(settings):
    return UnseededDropout(settings)


NOT_A_FACTORY = 42


def raiser(settings):
    """A factory that fails the way a learner's does at 3am: not a settings error."""
    raise RuntimeError("my factory is broken: no GPU found")


class BreaksLater(Tiny):
    """Passes the checks, then its data runs out while the baseline warms up."""

    def batch(self, step, start, stop):
        if step >= 10:
            raise KeyError("shard 7 is missing")
        return super().batch(step, start, stop)


def breaks_later(settings):
    return BreaksLater(settings)


class BadNumbers(Tiny):
    """An attribute the game reads that raises when read."""

    @property
    def ranks(self):
        raise RuntimeError("ranks are decided at run time")


def bad_numbers(settings):
    return BadNumbers(settings)


def slow_raiser(settings):
    """Fails like `raiser`, but only after a second: long enough for a learner to press Enter
    on the briefing while the cluster is still getting ready."""
    time.sleep(1.0)
    raise RuntimeError("my factory is broken: no GPU found")

"""A learner's replica whose loss plateaus: a small MLP fitted to a noisy straight line. After a
few dozen steps its loss stops falling and only wobbles with each step's batch, so the loss
curve cannot tell step 100 from step 250. Its hidden layer makes a restart on another number of
GPUs sum in another float order: close to the undisturbed run, not bit for bit. Point the game at it with
`--replica tests.replica.plateau_replica:make`."""

from __future__ import annotations

import torch
import torch.nn.functional as F


class Plateau:
    name = "plateau-line"
    global_batch = 16
    ranks = 4
    seed = 0

    def __init__(self, settings):
        self.settings = {}

    def build_model(self):
        gen = torch.Generator().manual_seed(self.seed)
        model = torch.nn.Sequential(torch.nn.Linear(1, 16), torch.nn.Tanh(), torch.nn.Linear(16, 1))
        with torch.no_grad():
            for p in model.parameters():
                p.copy_(torch.randn(p.shape, generator=gen) * 0.5)
        return model

    def make_optimizer(self, model):
        return torch.optim.SGD(model.parameters(), lr=0.1)

    def batch(self, step, start, stop):
        gen = torch.Generator().manual_seed(1_000_003 + step)
        x = torch.rand(self.global_batch, 1, generator=gen) * 2 - 1
        # The noise no line can fit sets the floor the loss settles on.
        y = 2 * x + 1 + 0.1 * torch.randn(self.global_batch, 1, generator=gen)
        return x[start:stop], y[start:stop]

    def loss(self, model, batch):
        x, y = batch
        return F.mse_loss(model(x), y)


def make(settings):
    return Plateau(settings)

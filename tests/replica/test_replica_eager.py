"""The replica trains without importing torch's compiler (torch._dynamo, torch._inductor), and
that changes no number: the same optimizer math, bit for bit."""

from __future__ import annotations

import copy

import pytest
import torch

from replica.eager import _raw_step, eager_step, optimizer_stepper


def test_a_night_of_training_never_imports_the_compiler(run_python) -> None:
    code = """
        import sys, tempfile
        import torch
        from replica.checkpoint import CheckpointStore
        from replica.config import ReplicaConfig
        from replica.trainer import Trainer
        from replica.interface import load_replica
        for replica in (ReplicaConfig(), load_replica("spiral-mlp", {})):
            t = Trainer(replica)
            t.train(3)
            store = CheckpointStore(tempfile.mkdtemp())
            store.save(t)
            t.load_full_state(store.load(3, verify=True))
            t.train(2)
            t.optimizer.zero_grad()
        loaded = sorted(m for m in sys.modules if m.startswith(("torch._dynamo", "torch._inductor")))
        assert not loaded, loaded
        assert torch.are_deterministic_algorithms_enabled()
        assert torch.get_num_threads() == 1
        print("ok")
    """
    assert run_python(code).stdout.strip() == "ok"


def _pair(make_opt):
    gen = torch.Generator().manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    twin = copy.deepcopy(model)
    return (model, make_opt(model)), (twin, make_opt(twin))


def _grads(model, step: int) -> None:
    gen = torch.Generator().manual_seed(100 + step)
    x = torch.randn(5, 4, generator=gen)
    model.zero_grad(set_to_none=True)
    model(x).pow(2).mean().backward()


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2, foreach=True),
        lambda m: torch.optim.AdamW(m.parameters(), lr=1e-2, foreach=False, weight_decay=0.1),
        lambda m: torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9),
        lambda m: torch.optim.RMSprop(m.parameters(), lr=1e-2),
    ],
)
def test_the_eager_step_is_optimizer_step_bit_for_bit(make_opt) -> None:
    (a, opt_a), (b, opt_b) = _pair(make_opt)
    raw = _raw_step(type(opt_a))
    assert raw is not None, "torch's optimizer decorators are not the ones eager.py knows"
    for i in range(5):
        _grads(a, i)
        _grads(b, i)
        eager_step(opt_a, raw)
        opt_b.step()
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)
    sa, sb = opt_a.state_dict()["state"], opt_b.state_dict()["state"]
    for key in sb:
        for name, value in sb[key].items():
            assert torch.equal(torch.as_tensor(sa[key][name]), torch.as_tensor(value))
    assert torch.is_grad_enabled()


def test_a_step_hook_still_runs() -> None:
    (a, opt), _ = _pair(lambda m: torch.optim.SGD(m.parameters(), lr=0.1))
    seen = []
    opt.register_step_post_hook(lambda optimizer, args, kwargs: seen.append("post"))
    opt.register_step_pre_hook(lambda optimizer, args, kwargs: seen.append("pre"))
    step = optimizer_stepper(opt)
    _grads(a, 0)
    step()
    assert seen == ["pre", "post"]


def test_an_optimizer_of_another_shape_uses_its_own_step() -> None:
    class Plain(torch.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.5})

        def step(self, closure=None):  # not wrapped by torch's decorators
            for group in self.param_groups:
                for p in group["params"]:
                    p.data.add_(p.grad, alpha=-group["lr"])

    (a, opt), (b, _) = _pair(lambda m: Plain(m.parameters()))
    step = optimizer_stepper(opt)
    _grads(a, 0)
    step()
    assert not torch.equal(next(a.parameters()), next(b.parameters()))

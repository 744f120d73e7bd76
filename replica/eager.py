"""Keep torch's compiler out of a process that never compiles.

In torch 2.13 an eager training loop still imports torch._dynamo (about 820 modules, 1.2 to
1.4 s of CPU on the 2-core development machine, as long as `import torch` itself under load),
from two places in torch.optim:

- Optimizer.add_param_group (called by every optimizer's constructor), state_dict,
  load_state_dict and zero_grad are wrapped by torch._disable_dynamo, which imports
  torch._dynamo on the first call to build a "not while compiling" wrapper. Outside
  torch.compile that wrapper only calls the function. `skip_compiler_imports` stores that
  answer in advance, in the attribute the wrapper caches it in (the function itself).
- Every optimizer's step() runs inside `_use_grad_for_differentiable`, which imports
  torch._dynamo to call graph_break(), a no-op outside compilation, around the real step.
  `optimizer_stepper` returns a function that runs the same real step under the same grad mode
  without that import, and falls back to optimizer.step() whenever that would not be the same
  thing: a step hook is registered, the optimizer is `differentiable`, torch's wrappers are not
  the ones this was written against, or the compiler is loaded anyway (a learner's replica
  that compiles).

Neither changes a single number: the same functions run on the same tensors (the tests check
bit-equality with optimizer.step()). Both leave the process exactly as torch would once
torch._dynamo is loaded by anyone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch
from torch import _compile
from torch.optim import optimizer as _optimizer_module

_WRAPPED_METHODS = ("add_param_group", "state_dict", "load_state_dict", "zero_grad")


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


# The code objects of torch's two wrappers, to recognise them (and nothing else).
_DISABLE_CODE = getattr(_compile._disable_dynamo(_noop), "__code__", None)
_USE_GRAD_CODE = getattr(_optimizer_module._use_grad_for_differentiable(_noop), "__code__", None)
_PROFILE_CODE = getattr(torch.optim.Optimizer.profile_hook_step(_noop), "__code__", None)


def compiler_loaded() -> bool:
    return "torch._dynamo" in sys.modules


def skip_compiler_imports() -> int:
    """Pre-answer torch._disable_dynamo's lazy import for the optimizer's wrapped methods.

    Returns how many wrappers were answered: 0 when the compiler is loaded anyway or torch's
    layout is not the expected one, and then nothing is touched."""
    if compiler_loaded() or _DISABLE_CODE is None:
        return 0
    answered = 0
    for name in _WRAPPED_METHODS:
        wrapper = getattr(torch.optim.Optimizer, name, None)
        inner = getattr(wrapper, "__wrapped__", None)
        if inner is None or getattr(wrapper, "__code__", None) is not _DISABLE_CODE:
            continue
        # _disable_dynamo's wrapper reads its disabled function from this attribute.
        setattr(inner, "__dynamo_disable", inner)
        answered += 1
    return answered


def optimizer_stepper(optimizer: torch.optim.Optimizer) -> Callable[[], Any]:
    """A function that does `optimizer.step()`, without importing the compiler when it can."""
    raw = _raw_step(type(optimizer))
    if raw is None:
        return optimizer.step

    def step() -> Any:
        if compiler_loaded() or _has_hooks(optimizer) or optimizer.defaults.get("differentiable"):
            return optimizer.step()
        return eager_step(optimizer, raw)

    return step


def eager_step(optimizer: torch.optim.Optimizer, raw: Callable[[Any], Any]) -> Any:
    """The optimizer's undecorated step `raw`, run as its decorators would run it in eager mode
    without hooks: grad mode off (the optimizer is not differentiable), then the profiler's
    step record. Only graph_break(), a no-op outside compilation, is left out."""
    previous = torch.is_grad_enabled()
    try:
        torch.set_grad_enabled(False)
        out = raw(optimizer)
    finally:
        torch.set_grad_enabled(previous)
    optimizer._optimizer_step_code()
    return out


def _raw_step(cls: type) -> Callable[[Any], Any] | None:
    """The undecorated step of an optimizer class, if its decorators are exactly torch's
    profile_hook_step around _use_grad_for_differentiable; None otherwise."""
    if None in (_USE_GRAD_CODE, _PROFILE_CODE):
        return None
    outer = getattr(cls, "step", None)
    if getattr(outer, "__code__", None) is not _PROFILE_CODE:
        return None
    middle = getattr(outer, "__wrapped__", None)
    if getattr(middle, "__code__", None) is not _USE_GRAD_CODE:
        return None
    return getattr(middle, "__wrapped__", None)


def _has_hooks(optimizer: torch.optim.Optimizer) -> bool:
    return bool(
        optimizer._optimizer_step_pre_hooks
        or optimizer._optimizer_step_post_hooks
        or _optimizer_module._global_optimizer_pre_hooks
        or _optimizer_module._global_optimizer_post_hooks
    )

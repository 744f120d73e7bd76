from __future__ import annotations

import math

import pytest
import torch

from replica.match import CLOSE_THRESHOLD, match


def _params() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return {"a": torch.randn(10, 10, generator=g), "b": torch.randn(5, generator=g)}


def test_bitexact() -> None:
    p = _params()
    assert match({k: v.clone() for k, v in p.items()}, p).kind == "bitexact"


def test_close_and_diverged() -> None:
    p = _params()
    near = {k: v * (1 + CLOSE_THRESHOLD / 10) for k, v in p.items()}
    far = {k: v * (1 + CLOSE_THRESHOLD * 10) for k, v in p.items()}
    r = match(near, p)
    assert r.kind == "close" and r.rel_l2 == pytest.approx(CLOSE_THRESHOLD / 10, rel=1e-3)
    assert match(far, p).kind == "diverged"


def test_nan_is_diverged() -> None:
    p = _params()
    bad = {k: v.clone() for k, v in p.items()}
    bad["a"][0, 0] = float("nan")
    r = match(bad, p)
    assert r.kind == "diverged" and math.isinf(r.rel_l2)


def test_mismatched_names_or_shapes_are_errors() -> None:
    p = _params()
    with pytest.raises(ValueError, match="names"):
        match({"a": p["a"]}, p)
    with pytest.raises(ValueError, match="shape"):
        match({"a": p["a"], "b": torch.zeros(6)}, p)

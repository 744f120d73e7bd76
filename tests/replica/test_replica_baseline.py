from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import torch

from replica.baseline import cache_key, cache_path, load_or_train_baseline
from replica.config import ReplicaConfig
from replica.trainer import Trainer

REPO_ROOT = Path(__file__).resolve().parents[2]


def _equal(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_trained_once_then_reused(tmp_path: Path, small_config: ReplicaConfig) -> None:
    first = load_or_train_baseline(
        small_config, world_size=4, steps=12, keep_steps=[0, 6, 12], cache_dir=tmp_path
    )
    assert not first.cached and len(first.losses) == 12 and sorted(first.weights) == [0, 6, 12]
    path = cache_path(tmp_path, cache_key(small_config, "inprocess", 4, 12))
    stamp = path.stat().st_mtime_ns
    again = load_or_train_baseline(
        small_config, world_size=4, steps=12, keep_steps=[6], cache_dir=tmp_path
    )
    assert again.cached and path.stat().st_mtime_ns == stamp
    assert again.losses == first.losses and _equal(again.weights[6], first.weights[6])

    # It is the undisturbed run, bit for bit.
    t = Trainer(small_config)
    t.train(6)
    assert _equal(t.parameters_copy(), first.weights[6])
    assert [loss for _, loss in t.losses] == first.losses[:6]


def test_key_covers_world_size_and_steps(tmp_path: Path, small_config: ReplicaConfig) -> None:
    a = load_or_train_baseline(
        small_config, world_size=4, steps=5, keep_steps=[5], cache_dir=tmp_path
    )
    b = load_or_train_baseline(
        small_config, world_size=2, steps=5, keep_steps=[5], cache_dir=tmp_path
    )
    c = load_or_train_baseline(
        small_config, world_size=4, steps=6, keep_steps=[5], cache_dir=tmp_path
    )
    assert not (a.cached or b.cached or c.cached)
    assert not _equal(a.weights[5], b.weights[5])  # different float order
    assert len(list(tmp_path.glob("baseline-*.pt"))) == 3


def test_missing_steps_or_a_broken_file_are_retrained(
    tmp_path: Path, small_config: ReplicaConfig
) -> None:
    load_or_train_baseline(small_config, steps=4, keep_steps=[2], cache_dir=tmp_path)
    more = load_or_train_baseline(small_config, steps=4, keep_steps=[3], cache_dir=tmp_path)
    assert not more.cached
    both = load_or_train_baseline(small_config, steps=4, keep_steps=[2, 3], cache_dir=tmp_path)
    assert both.cached  # the retrain kept the earlier caller's steps too
    path = cache_path(tmp_path, cache_key(small_config, "inprocess", 4, 4))
    path.write_bytes(path.read_bytes()[:100])
    assert not load_or_train_baseline(
        small_config, steps=4, keep_steps=[2], cache_dir=tmp_path
    ).cached


def test_concurrent_processes_train_once_and_agree(tmp_path: Path) -> None:
    # Two real processes ask for the same baseline at once: the lock makes one train and the
    # other wait and read the finished file; neither ever sees half a file.
    code = """
        import json, sys
        from replica.baseline import load_or_train_baseline
        from replica.config import ReplicaConfig
        cfg = ReplicaConfig(layers=1, width=16, heads=2, context=16, global_batch=8)
        b = load_or_train_baseline(cfg, steps=40, keep_steps=[40], cache_dir=sys.argv[1])
        print(json.dumps({"cached": b.cached, "losses": b.losses}))
    """
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-W", "ignore", "-c", textwrap.dedent(code), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(2)
    ]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        results.append(json.loads(out))
    assert sorted(r["cached"] for r in results) == [False, True]
    assert results[0]["losses"] == results[1]["losses"]
    assert not list(tmp_path.glob(".*tmp*"))

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import torch

from replica.baseline import ANCHOR_EVERY, cache_key, cache_path, load_or_train_baseline
from replica.config import ReplicaConfig
from replica.interface import load_replica
from replica.trainer import Trainer

REPO_ROOT = Path(__file__).resolve().parents[2]


def _equal(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _folder(tmp_path: Path, replica, world: int, steps: int) -> Path:
    return cache_path(tmp_path, cache_key(replica, "inprocess", world, steps))


def _weight_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("weights-*.pt"))


def test_trained_once_then_reused(tmp_path: Path, small_config: ReplicaConfig) -> None:
    first = load_or_train_baseline(
        small_config, world_size=4, steps=12, keep_steps=[0, 6, 12], cache_dir=tmp_path
    )
    assert not first.cached and len(first.losses) == 12 and sorted(first.weights) == [0, 6, 12]
    folder = _folder(tmp_path, small_config, 4, 12)
    stamp = (folder / "curve.json").stat().st_mtime_ns
    again = load_or_train_baseline(
        small_config, world_size=4, steps=12, keep_steps=[6], cache_dir=tmp_path
    )
    assert again.cached and (folder / "curve.json").stat().st_mtime_ns == stamp
    assert sorted(again.weights) == [6]  # only what was asked for is loaded
    assert again.losses == first.losses and _equal(again.weights[6], first.weights[6])

    # It is the undisturbed run, bit for bit.
    t = Trainer(small_config)
    t.train(6)
    assert _equal(t.parameters_copy(), first.weights[6])
    assert [loss for _, loss in t.losses] == first.losses[:6]


def test_the_cache_keeps_the_curve_and_only_the_weights_match_asked_for(
    tmp_path: Path, small_config: ReplicaConfig
) -> None:
    steps = 2 * ANCHOR_EVERY + 7
    only_curve = load_or_train_baseline(small_config, steps=steps, cache_dir=tmp_path)
    assert len(only_curve.losses) == steps and only_curve.weights == {}
    folder = _folder(tmp_path, small_config, 4, steps)
    # The last step is stored while training (a completed job is compared there); no other.
    assert _weight_files(folder) == [f"weights-{steps:06d}.pt"]
    anchors = sorted(p.name for p in (folder / "anchors").glob("step-*.pt"))
    assert anchors == [f"step-{ANCHOR_EVERY:06d}.pt", f"step-{2 * ANCHOR_EVERY:06d}.pt"]
    curve = json.loads((folder / "curve.json").read_text())
    assert curve["losses"] == only_curve.losses

    # A step nobody asked for yet comes from the nearest anchor, bit for bit the straight run.
    ask = ANCHOR_EVERY + 3
    later = load_or_train_baseline(small_config, steps=steps, keep_steps=[ask], cache_dir=tmp_path)
    assert not later.cached
    straight = Trainer(small_config)
    straight.train(ask)
    assert _equal(later.weights[ask], straight.parameters_copy())
    assert f"weights-{ask:06d}.pt" in _weight_files(folder)
    assert load_or_train_baseline(
        small_config, steps=steps, keep_steps=[ask], cache_dir=tmp_path
    ).cached


def test_key_covers_world_size_steps_and_the_replica(
    tmp_path: Path, small_config: ReplicaConfig
) -> None:
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
    mlp = load_replica("spiral-mlp", {"global_batch": 8})
    other = load_replica("spiral-mlp", {"global_batch": 8, "seed": 1})
    d = load_or_train_baseline(mlp, world_size=4, steps=5, keep_steps=[5], cache_dir=tmp_path)
    e = load_or_train_baseline(other, world_size=4, steps=5, keep_steps=[5], cache_dir=tmp_path)
    assert not (d.cached or e.cached)  # two replicas, two configs: never one baseline
    assert d.losses != a.losses and d.losses != e.losses
    assert len(list(tmp_path.glob("baseline-*/curve.json"))) == 5


def test_a_broken_cache_is_rebuilt(tmp_path: Path, small_config: ReplicaConfig) -> None:
    steps = ANCHOR_EVERY + 4
    first = load_or_train_baseline(
        small_config, steps=steps, keep_steps=[2, steps], cache_dir=tmp_path
    )
    folder = _folder(tmp_path, small_config, 4, steps)
    # A weights file cut short is computed again, and equals what it was.
    weights = folder / "weights-000002.pt"
    weights.write_bytes(weights.read_bytes()[:100])
    again = load_or_train_baseline(small_config, steps=steps, keep_steps=[2], cache_dir=tmp_path)
    assert not again.cached and _equal(again.weights[2], first.weights[2])
    # A damaged curve retrains everything.
    (folder / "curve.json").write_text("{not json")
    rebuilt = load_or_train_baseline(small_config, steps=steps, keep_steps=[2], cache_dir=tmp_path)
    assert not rebuilt.cached and rebuilt.losses == first.losses
    # An anchor whose bytes changed is not resumed from: the run is trained again.
    anchor = folder / "anchors" / f"step-{ANCHOR_EVERY:06d}.pt"
    data = bytearray(anchor.read_bytes())
    data[len(data) // 2] ^= 0xFF
    anchor.write_bytes(bytes(data))
    ask = ANCHOR_EVERY + 2
    fixed = load_or_train_baseline(small_config, steps=steps, keep_steps=[ask], cache_dir=tmp_path)
    straight = Trainer(small_config)
    straight.train(ask)
    assert _equal(fixed.weights[ask], straight.parameters_copy())


def test_concurrent_processes_train_once_and_agree(tmp_path: Path) -> None:
    # Two real processes ask for the same baseline at once: the lock makes one train and the
    # other wait and read the finished files; neither ever sees half a file.
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
    assert not list(tmp_path.glob("**/.*tmp*"))

"""Checkpoints as real files: atomic and naive writes, a disk that fills, torn and flipped
bytes with and without verification, weights_only, path escapes, foreign configs, retention."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
import torch

from replica.checkpoint import CheckpointStore
from replica.config import ReplicaConfig
from replica.errors import CheckpointError, CheckpointWriteError, ConfigMismatchError
from replica.match import match
from replica.trainer import Trainer


def _equal(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture
def trainer(small_config: ReplicaConfig) -> Trainer:
    t = Trainer(small_config)
    t.train(3)
    return t


@pytest.fixture
def store(tmp_path: Path, small_config: ReplicaConfig) -> CheckpointStore:
    return CheckpointStore(tmp_path / "run", config_hash=small_config.config_hash())


def _files(store: CheckpointStore) -> list[str]:
    return sorted(os.listdir(store.run_dir))


def test_atomic_save_writes_file_manifest_and_latest(
    store: CheckpointStore, trainer: Trainer
) -> None:
    rec = store.save(trainer)
    assert rec.step == 3 and rec.has_manifest and rec.file == "step-000003.pt"
    assert _files(store) == ["latest", "step-000003.manifest.json", "step-000003.pt"]
    manifest = json.loads((store.run_dir / "step-000003.manifest.json").read_text())
    assert manifest["size"] == rec.path.stat().st_size
    assert manifest["config_hash"] == trainer.config_hash
    assert manifest["world_size"] == trainer.world_size
    assert store.latest() == 3
    assert store.verify(3).ok and store.verify(3).status == "ok"
    state = store.load(3, verify=True)
    assert _equal(state["model"], dict(trainer.model.state_dict()))
    # The same step may be written again (after a restart): replaced atomically.
    store.save(trainer)
    assert store.verify("step-000003.pt").ok


def test_disk_full_during_atomic_save_keeps_the_previous_checkpoint(
    store: CheckpointStore, trainer: Trainer
) -> None:
    store.save(trainer)
    before = {name: (store.run_dir / name).read_bytes() for name in _files(store)}
    trainer.train(1)
    with pytest.raises(RuntimeError, match="PytorchStreamWriter failed writing file") as info:
        store.save(trainer, fail_after_fraction=0.5)
    assert isinstance(info.value, CheckpointWriteError)
    assert "No space left on device" in str(info.value)
    assert info.value.errno == 28
    # Nothing changed: no temp file, no new checkpoint, same latest, same bytes.
    assert {name: (store.run_dir / name).read_bytes() for name in _files(store)} == before
    assert store.latest() == 3 and store.verify(3).ok


def test_disk_full_during_naive_save_leaves_a_torn_latest(
    store: CheckpointStore, trainer: Trainer
) -> None:
    store.save(trainer)
    trainer.train(1)
    with pytest.raises(CheckpointWriteError, match="No space left on device"):
        store.save(trainer, atomic=False, fail_after_fraction=0.4)
    torn = store.run_dir / "step-000004.pt"
    assert torn.exists() and not (store.run_dir / "step-000004.manifest.json").exists()
    assert store.latest() == 4  # the naive script wrote the pointer first
    result = store.verify(4)
    assert not result.ok and result.status == "unverifiable" and "no manifest" in result.reason
    # verify=True refuses with the file and the reason.
    with pytest.raises(CheckpointError) as refused:
        store.load(store.latest(), verify=True)
    assert refused.value.file == "step-000004.pt" and "no manifest" in refused.value.reason
    # verify=False: torch's own error surfaces (for a zip cut short, torch 2.x reports an
    # OSError from seeking to the missing central directory, or a PytorchStreamReader error).
    with pytest.raises(CheckpointError, match="torch.load failed: (OSError|RuntimeError)") as raw:
        store.load(4, verify=False)
    assert isinstance(raw.value.__cause__, OSError | RuntimeError)
    # The previous good checkpoint is still there for a careful operator.
    assert store.verify(3).ok


def test_truncated_file_with_manifest_is_caught_by_size(
    store: CheckpointStore, trainer: Trainer
) -> None:
    rec = store.save(trainer)
    data = rec.path.read_bytes()
    rec.path.write_bytes(data[: len(data) // 3])
    result = store.verify(3)
    assert not result.ok and result.status == "corrupt" and "size mismatch" in result.reason
    with pytest.raises(CheckpointError, match="size mismatch"):
        store.load(3, verify=True)
    with pytest.raises(CheckpointError, match="torch.load failed"):
        store.load(3, verify=False)


def test_flipped_bytes_are_caught_by_verify_and_poison_without_it(
    tmp_path: Path, config: ReplicaConfig
) -> None:
    store = CheckpointStore(tmp_path / "run", config_hash=config.config_hash())
    base = Trainer(config)
    base.train(10)
    good = base.parameters_copy()
    store.save(base)
    base.train(30)

    offsets = store.corrupt(10, seed=1)
    assert len(offsets) == 4
    result = store.verify(10)
    assert not result.ok and result.status == "corrupt" and "sha256 mismatch" in result.reason
    with pytest.raises(CheckpointError, match="sha256 mismatch"):
        store.load(10, verify=True)

    # Without verification it loads silently, with damaged weights, and poisons the run.
    state = store.load(10, verify=False)
    assert not _equal(state["model"], good)
    resumed = Trainer(config)
    resumed.load_full_state(state)
    resumed.train(30)
    assert match(resumed.parameters_copy(), base.parameters_copy()).kind == "diverged"


def test_corrupt_is_deterministic(tmp_path: Path, trainer: Trainer) -> None:
    a = CheckpointStore(tmp_path / "a")
    b = CheckpointStore(tmp_path / "b")
    a.save(trainer)
    b.save(trainer)
    assert a.corrupt(3, seed=5) == b.corrupt(3, seed=5)
    assert (tmp_path / "a" / "step-000003.pt").read_bytes() == (
        tmp_path / "b" / "step-000003.pt"
    ).read_bytes()


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def test_malicious_pickle_is_refused(store: CheckpointStore, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = store.run_dir / "step-000007.pt"
    torch.save({"config_hash": "x", "model": {}, "payload": _Boom()}, path)
    with pytest.raises(CheckpointError, match="[Ww]eights only load failed") as info:
        store.load(7, verify=False)
    assert info.value.file == "step-000007.pt"
    # A manifest that matches the bytes does not make the pickle safe: still refused.
    data = path.read_bytes()
    manifest = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    manifest["config_hash"] = store.config_hash
    (store.run_dir / "step-000007.manifest.json").write_text(json.dumps(manifest))
    assert store.verify(7).ok
    with pytest.raises(CheckpointError, match="[Ww]eights only load failed"):
        store.load(7, verify=True)
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    "name", ["../outside.pt", "/etc/passwd", "..", "sub/step-000001.pt", "step-1.txt"]
)
def test_names_that_escape_or_are_not_checkpoints_are_refused(
    store: CheckpointStore, name: str
) -> None:
    for op in (store.verify, store.rm, lambda n: store.load(n, verify=False)):
        with pytest.raises(CheckpointError):
            op(name)


def test_symlinks_out_of_the_run_dir_are_refused(
    store: CheckpointStore, trainer: Trainer, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.pt"
    torch.save(trainer.full_state(), outside)
    (store.run_dir / "step-000009.pt").symlink_to(outside)
    with pytest.raises(CheckpointError, match="outside the run directory"):
        store.load(9, verify=False)
    assert all(r.step != 9 for r in store.list())
    # A save must not write through a symlink that points out either.
    (store.run_dir / "step-000003.pt").symlink_to(outside)
    before = outside.read_bytes()
    with pytest.raises(CheckpointError, match="outside the run directory"):
        store.save(trainer)
    assert outside.read_bytes() == before
    # Nor may `latest` send a loader elsewhere.
    (store.run_dir / "step-000003.pt").unlink()
    (store.run_dir / "latest").write_text("../elsewhere.pt\n")
    with pytest.raises(CheckpointError, match="escapes"):
        store.latest()


def test_checkpoint_from_another_config_is_refused(
    tmp_path: Path, small_config: ReplicaConfig, trainer: Trainer
) -> None:
    run = tmp_path / "run"
    other_cfg = ReplicaConfig(layers=1, width=16, heads=2, context=16, global_batch=8, seed=99)
    other = Trainer(other_cfg)
    other.train(3)
    CheckpointStore(run).save(other)
    before = (run / "step-000003.pt").read_bytes()

    store = CheckpointStore(run, config_hash=small_config.config_hash())
    assert store.verify(3).status == "foreign"
    for verify in (True, False):
        with pytest.raises(ConfigMismatchError) as info:
            store.load(3, verify=verify)
        assert info.value.file == "step-000003.pt"
    # Saving this job's step 3 must not overwrite the other config's file.
    with pytest.raises(ConfigMismatchError, match="refused to overwrite"):
        CheckpointStore(run).save(trainer)
    assert (run / "step-000003.pt").read_bytes() == before
    # The trainer itself also refuses a state from another config.
    with pytest.raises(ConfigMismatchError):
        trainer.load_full_state(CheckpointStore(run).load(3, verify=True))


def test_foreign_file_is_refused(store: CheckpointStore) -> None:
    torch.save(torch.zeros(3), store.run_dir / "step-000005.pt")
    with pytest.raises(CheckpointError, match="not a replica checkpoint"):
        store.load(5, verify=False)
    (store.run_dir / "step-000006.pt").write_bytes(b"not a zip at all")
    with pytest.raises(CheckpointError, match="torch.load failed"):
        store.load(6, verify=False)
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        store.load(8, verify=False)


def test_list_rm_prune_and_latest(store: CheckpointStore, trainer: Trainer) -> None:
    for _ in range(4):
        store.save(trainer)
        trainer.train(1)
    assert [r.step for r in store.list()] == [3, 4, 5, 6]
    assert store.latest() == 6

    store.rm(6)  # removing the newest repoints latest at the newest good one
    assert store.latest() == 5
    assert [r.step for r in store.list()] == [3, 4, 5]
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        store.rm(6)

    # A torn newest file takes a retention slot, as it does in a naive retention script.
    with pytest.raises(CheckpointWriteError):
        store.save(trainer, atomic=False, fail_after_fraction=0.3)
    assert store.prune(2) == [3, 4]
    assert [(r.step, r.has_manifest) for r in store.list()] == [(5, True), (7, False)]
    assert store.latest() == 7
    store.rm(7)
    assert store.latest() == 5
    store.rm(5)
    assert store.latest() is None and store.list() == []
    with pytest.raises(ValueError):
        store.prune(0)


def test_leftover_temp_files_are_not_checkpoints(store: CheckpointStore, trainer: Trainer) -> None:
    (store.run_dir / ".step-000010.pt.tmp-1-1").write_bytes(b"half")
    store.save(trainer)
    assert [r.step for r in store.list()] == [3]


def test_a_load_says_whether_the_bytes_it_loaded_match_the_manifest(
    store: CheckpointStore, trainer: Trainer
) -> None:
    store.save(trainer)
    clean = store.read(3, verify=False)
    assert clean.check.status == "ok" and clean.bytes_match_manifest
    assert _equal(clean.state["model"], dict(trainer.model.state_dict()))
    store.corrupt(3, seed=1)
    # Without verify the flipped file loads, and the read says so from its own bytes.
    flipped = store.read(3, verify=False)
    assert flipped.check.status == "corrupt" and not flipped.bytes_match_manifest
    assert "sha256 mismatch" in flipped.check.reason
    assert not _equal(flipped.state["model"], dict(trainer.model.state_dict()))
    # With verify it is refused, and the error carries what the hash check found.
    with pytest.raises(CheckpointError) as refused:
        store.read(3, verify=True)
    assert refused.value.status == "corrupt"


def test_a_load_with_no_manifest_is_unverifiable_not_corrupt(
    store: CheckpointStore, trainer: Trainer
) -> None:
    store.save(trainer)
    (store.run_dir / "step-000003.manifest.json").unlink()
    loaded = store.read(3, verify=False)
    assert loaded.check.status == "unverifiable" and not loaded.bytes_match_manifest
    with pytest.raises(CheckpointError) as refused:
        store.read(3, verify=True)
    assert refused.value.status == "unverifiable"


def test_which_checkpoints_verify_on_disk_right_now(
    store: CheckpointStore, trainer: Trainer
) -> None:
    for _ in range(4):
        trainer.train(1)
        store.save(trainer)  # steps 4, 5, 6, 7
    trainer.train(1)
    with pytest.raises(CheckpointWriteError):
        store.save(trainer, atomic=False, fail_after_fraction=0.5)  # step 8: torn, no manifest
    store.corrupt(7, seed=2)
    data = (store.run_dir / "step-000005.pt").read_bytes()
    (store.run_dir / "step-000005.pt").write_bytes(data[:-10])  # cut short under its manifest
    assert [r.step for r in store.list()] == [4, 5, 6, 7, 8]
    assert store.verified_steps() == [4, 6]
    store.rm(6)
    assert store.verified_steps() == [4]


def test_corrupt_skips_integer_buffers_and_still_flips_weights(tmp_path: Path) -> None:
    # A learner's model may hold integer buffers (a counter, say): they are not weights, and
    # corrupt() flips only float32 weights, still silently loadable.
    from replica.interface import LoadedReplica

    class WithCounter:
        global_batch, ranks, name = 4, 2, "counter"

        def build_model(self):
            model = torch.nn.Linear(2, 1)
            model.register_buffer("seen", torch.zeros((), dtype=torch.int64))
            with torch.no_grad():
                model.weight.copy_(torch.tensor([[0.5, -0.25]]))
                model.bias.zero_()
            return model

        def make_optimizer(self, model):
            return torch.optim.SGD(model.parameters(), lr=0.1)

        def batch(self, step, start, stop):
            x = torch.arange(start, stop, dtype=torch.float32).view(-1, 1).repeat(1, 2) / 4
            return x, x[:, :1]

        def loss(self, model, batch):
            x, y = batch
            return ((model(x) - y) ** 2).mean()

    replica = LoadedReplica("tests.replica.learner_replicas:tiny", {}, WithCounter())
    trainer = Trainer(replica)
    trainer.train(2)
    store = CheckpointStore(tmp_path / "run", config_hash=replica.config_hash)
    store.save(trainer)
    store.corrupt(2, seed=0, count=2)
    loaded = store.read(2, verify=False)
    assert loaded.check.status == "corrupt"
    assert torch.equal(loaded.state["model"]["seen"], trainer.model.state_dict()["seen"])
    assert not _equal(loaded.state["model"], dict(trainer.model.state_dict()))

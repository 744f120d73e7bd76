"""The checkpoint store's exact contract, written after a mutation run (mutmut 3.8 over
replica/checkpoint.py) showed which of its promises no test held: the manifest's fields, the
record `save` returns, the file named in every refusal, each verify status with its reason, the
bounds of fail_after_fraction, the accepted spellings of a step, and where a write that fills
the disk stops. Expected values come from docs/replica.md and from the bytes on disk, not from
the code under test."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from replica.checkpoint import CheckpointStore
from replica.config import ReplicaConfig
from replica.errors import CheckpointError, CheckpointWriteError, ConfigMismatchError
from replica.trainer import Trainer

MANIFEST_KEYS = {"format", "step", "file", "size", "sha256", "config_hash", "world_size", "atomic"}


@pytest.fixture
def trainer(small_config: ReplicaConfig) -> Trainer:
    t = Trainer(small_config, 2)
    t.train(3)
    return t


@pytest.fixture
def store(tmp_path: Path, small_config: ReplicaConfig) -> CheckpointStore:
    return CheckpointStore(tmp_path / "run" / "nested", config_hash=small_config.config_hash())


@pytest.mark.parametrize("atomic", [True, False])
def test_the_manifest_and_the_record_describe_the_bytes(store, trainer, atomic: bool) -> None:
    record = store.save(trainer, atomic=atomic)
    data = (store.run_dir / "step-000003.pt").read_bytes()
    text = (store.run_dir / "step-000003.manifest.json").read_text()
    manifest = json.loads(text)
    assert text.endswith("\n") and text.startswith(
        "{\n  "
    )  # indented JSON, one file a person reads
    assert list(manifest) == sorted(MANIFEST_KEYS)
    assert manifest == {
        "format": 1,
        "step": 3,
        "file": "step-000003.pt",
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "config_hash": trainer.config_hash,
        "world_size": 2,
        "atomic": atomic,
    }
    listed = store.list()[0]
    for r in (record, listed):
        assert (r.step, r.file, r.size, r.has_manifest) == (3, "step-000003.pt", len(data), True)
        assert r.path == store.run_dir / "step-000003.pt"
        assert (r.sha256, r.config_hash, r.world_size) == (
            manifest["sha256"],
            trainer.config_hash,
            2,
        )


def test_a_record_without_a_manifest_says_so(store, trainer) -> None:
    store.save(trainer)
    (store.run_dir / "step-000003.manifest.json").write_text("not json")
    r = store.list()[0]
    assert not r.has_manifest and r.sha256 is None and r.config_hash is None
    assert r.world_size is None and r.size == (store.run_dir / "step-000003.pt").stat().st_size


@pytest.mark.parametrize("fraction", [-0.1, 1.0, 1.5])
def test_fail_after_fraction_is_a_fraction_below_one(store, trainer, fraction: float) -> None:
    with pytest.raises(ValueError, match=r"fail_after_fraction must be in \[0, 1\), got"):
        store.save(trainer, fail_after_fraction=fraction)
    assert not list(store.run_dir.iterdir())


def test_a_write_cut_at_the_start_writes_nothing_and_says_where(store, trainer) -> None:
    with pytest.raises(CheckpointWriteError) as cut:
        store.save(trainer, atomic=False, fail_after_fraction=0.0)
    assert cut.value.file == "step-000003.pt" and cut.value.errno == 28
    assert "PytorchStreamWriter failed writing file data.pkl" in str(cut.value)
    assert f"0 of {len(_bytes(trainer))} bytes written" in str(cut.value)
    assert (store.run_dir / "step-000003.pt").stat().st_size == 0


def test_a_write_cut_near_the_end_stops_in_the_central_directory(store, trainer) -> None:
    total = len(_bytes(trainer))
    with pytest.raises(CheckpointWriteError, match="failed writing file central directory"):
        store.save(trainer, atomic=False, fail_after_fraction=(total - 2) / total)
    assert (store.run_dir / "step-000003.pt").stat().st_size == total - 2


def test_a_write_cut_in_the_middle_names_a_tensor_record(store, trainer) -> None:
    with pytest.raises(CheckpointWriteError, match=r"failed writing file data/\d+: "):
        store.save(trainer, atomic=False, fail_after_fraction=0.5)
    assert (store.run_dir / "step-000003.pt").stat().st_size == int(len(_bytes(trainer)) * 0.5)


def _bytes(trainer: Trainer) -> bytes:
    from replica.checkpoint import _serialize

    return _serialize(trainer.full_state())


@pytest.mark.parametrize(
    "name", ["", ".", "..", "../x", "a/b", "a\\b", "x\x00y", "/etc/passwd", "step-000001.pt/"]
)
def test_every_escaping_name_is_refused_by_name(store, name: str) -> None:
    with pytest.raises(CheckpointError, match="path escapes the run directory") as refused:
        store.verify(name)
    assert refused.value.file == name


def test_steps_are_spelled_four_ways_and_zero_is_one(store, trainer) -> None:
    for spelling in (12, "12", "step-000012", "step-000012.pt"):
        assert store.path(spelling) == store.run_dir / "step-000012.pt"
    assert store.path(0) == store.run_dir / "step-000000.pt"
    assert store.verify(0).status == "missing"
    for bad in (-1, True, 1.5, None):
        with pytest.raises(CheckpointError, match=r"not a checkpoint step: "):
            store.path(bad)
    with pytest.raises(CheckpointError, match="not a checkpoint name") as named:
        store.path("step-12.ptx")
    assert named.value.file == "step-12.ptx"


def test_each_verify_status_has_its_reason(store, trainer, small_config) -> None:
    assert store.verify(9) == _result(False, "missing: step-000009.pt does not exist", "missing")
    store.save(trainer)
    size = (store.run_dir / "step-000003.pt").stat().st_size
    ok = store.verify(3)
    assert ok == _result(True, f"ok: {size} bytes, sha256 matches the manifest", "ok")
    mpath = store.run_dir / "step-000003.manifest.json"
    good = mpath.read_text()

    mpath.write_text("[1, 2]")
    r = store.verify(3)
    assert (r.ok, r.status) == (False, "unverifiable")
    assert r.reason == "not verifiable: manifest unreadable: missing size or sha256"
    mpath.write_text(json.dumps({"size": size}))
    assert store.verify(3).reason.endswith("missing size or sha256")
    mpath.write_text("{broken")
    r = store.verify(3)
    assert r.status == "unverifiable" and r.reason.startswith(
        "not verifiable: manifest unreadable:"
    )
    mpath.unlink()
    r = store.verify(3)
    assert r.status == "unverifiable" and "no manifest for step-000003.pt" in r.reason

    mpath.write_text(good)
    doc = json.loads(good)
    mpath.write_text(json.dumps({**doc, "size": size + 1}))
    r = store.verify(3)
    assert (r.ok, r.status) == (False, "corrupt")
    assert r.reason.startswith(f"size mismatch: manifest says {size + 1} bytes, file has {size}")
    mpath.write_text(json.dumps({**doc, "sha256": "0" * 64}))
    r = store.verify(3)
    assert r.status == "corrupt"
    assert r.reason.startswith("sha256 mismatch: manifest says 0000000000000000..., file hashes")
    mpath.write_text(json.dumps({**doc, "config_hash": "f" * 64}))
    r = store.verify(3)
    assert (r.ok, r.status) == (False, "foreign")
    assert r.reason == (
        f"foreign checkpoint: written by config ffffffffffff, this job runs config "
        f"{small_config.config_hash()[:12]}"
    )
    with pytest.raises(ConfigMismatchError) as refused:
        store.read(3, verify=True)
    assert refused.value.file == "step-000003.pt" and refused.value.status == "foreign"
    mpath.write_text(json.dumps({**doc, "sha256": "0" * 64}))
    with pytest.raises(CheckpointError) as refused:
        store.read(3, verify=True)
    assert type(refused.value) is CheckpointError and refused.value.status == "corrupt"


def _result(ok: bool, reason: str, status: str):
    from replica.checkpoint import VerifyResult

    return VerifyResult(ok, reason, status)


def test_refusals_name_their_file(store, trainer, tmp_path) -> None:
    with pytest.raises(CheckpointError, match="no such checkpoint") as missing:
        store.read(7, verify=False)
    assert missing.value.file == "step-000007.pt"
    with pytest.raises(CheckpointError, match="no such checkpoint") as gone:
        store.corrupt(7, seed=1)
    assert gone.value.file == "step-000007.pt"
    with pytest.raises(CheckpointError, match="no such checkpoint") as nothing:
        store.rm(7)
    assert nothing.value.file == "step-000007.pt"

    other = Trainer(ReplicaConfig(width=16, heads=2, context=16, global_batch=8, seed=9))
    other.train(3)
    with pytest.raises(ConfigMismatchError, match="refused to save: trainer config") as foreign:
        store.save(other)
    assert foreign.value.file == "step-000003.pt"
    assert f"trainer config {other.config_hash[:12]} is not" in str(foreign.value)
    assert f"store's config {store.config_hash[:12]}" in str(foreign.value)

    # A store for any config refuses to overwrite another config's file, naming it.
    store.save(trainer)
    anyone = CheckpointStore(store.run_dir)
    with pytest.raises(ConfigMismatchError, match="refused to overwrite") as overwrite:
        anyone.save(other)
    assert overwrite.value.file == "step-000003.pt"
    assert str(trainer.config_hash)[:12] in str(overwrite.value)

    # A file that is not a replica checkpoint, and one of another config, both by name.
    import torch

    torch.save({"weights": torch.zeros(1)}, store.run_dir / "step-000020.pt")
    with pytest.raises(CheckpointError, match="not a replica checkpoint") as alien:
        store.read(20, verify=False)
    assert alien.value.file == "step-000020.pt"
    torch.save({"config_hash": "e" * 64}, store.run_dir / "step-000021.pt")
    with pytest.raises(CheckpointError, match="not a replica checkpoint"):
        store.read(21, verify=False)
    torch.save({"model": {}}, store.run_dir / "step-000022.pt")
    with pytest.raises(CheckpointError, match="not a replica checkpoint"):
        store.read(22, verify=False)
    state = trainer.full_state()
    torch.save({**state, "config_hash": "e" * 64}, store.run_dir / "step-000023.pt")
    with pytest.raises(ConfigMismatchError) as mismatch:
        store.read(23, verify=False)
    assert mismatch.value.file == "step-000023.pt"
    assert str(mismatch.value).endswith(
        f"config mismatch: written by config eeeeeeeeeeee, this job runs config "
        f"{store.config_hash[:12]}"
    )


def test_latest_and_rm_keep_the_pointer_honest(store, trainer) -> None:
    assert store.latest() is None
    store.save(trainer)
    trainer.train(1)
    store.save(trainer)
    assert store.latest() == 4
    (store.run_dir / "latest").write_text("\n")
    assert store.latest() is None
    (store.run_dir / "latest").write_text("notes.txt\n")
    with pytest.raises(CheckpointError, match="latest points at 'notes.txt'") as bad:
        store.latest()
    assert bad.value.file == "latest"
    (store.run_dir / "latest").write_text("step-000004.pt\n")
    store.rm(4)
    assert store.latest() == 3 and (store.run_dir / "latest").read_text() == "step-000003.pt\n"
    store.rm(3)
    assert store.latest() is None and not (store.run_dir / "latest").exists()
    assert store.list() == [] and store.verified_steps() == []


def test_prune_keeps_the_newest_and_refuses_nonsense(store, trainer) -> None:
    for _ in range(3):
        store.save(trainer)
        trainer.train(1)
    assert [r.step for r in store.list()] == [3, 4, 5]
    assert store.prune(3) == []
    assert store.prune(2) == [3] and [r.step for r in store.list()] == [4, 5]
    for keep in (0, -1, True, 1.0, "2"):
        with pytest.raises(ValueError, match="keep must be a positive integer"):
            store.prune(keep)
    assert store.prune(1) == [4] and store.latest() == 5


def test_temp_names_that_are_taken_are_skipped(store, trainer) -> None:
    # A leftover temp file from a crashed process with our pid and counter is never reused.
    taken = store.run_dir / f".step-000003.pt.tmp-{os.getpid()}-1"
    taken.write_bytes(b"left over")
    store.save(trainer)
    assert taken.read_bytes() == b"left over" and store.verify(3).ok


def test_corrupt_flips_the_asked_number_of_weights_inside_tensor_data(store, trainer) -> None:
    store.save(trainer)
    before = (store.run_dir / "step-000003.pt").read_bytes()
    offsets = store.corrupt(3, seed=4, count=6)
    after = (store.run_dir / "step-000003.pt").read_bytes()
    assert len(offsets) == 6 == len(set(offsets)) and offsets == sorted(offsets)
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    assert changed == offsets
    for i in offsets:  # one bit of a float32's high byte (little endian: the fourth byte)
        assert bin(before[i] ^ after[i]).count("1") == 1
    state = store.read(3, verify=False)
    assert state.check.status == "corrupt"
    assert store.corrupt(3, seed=4, count=6) == offsets  # same seed, same places


def test_what_verify_returns_is_exactly_false_when_not_ok(store, trainer) -> None:
    store.save(trainer)
    mpath = store.run_dir / "step-000003.manifest.json"
    doc = json.loads(mpath.read_text())
    mpath.unlink()
    assert store.verify(3).ok is False
    mpath.write_text(json.dumps({**doc, "sha256": "1" * 64}))
    assert store.verify(3).ok is False
    mpath.write_text(json.dumps({**doc, "size": 1}))
    assert store.verify(3).ok is False


def test_a_manifest_needs_only_size_and_sha256(tmp_path, trainer) -> None:
    anyone = CheckpointStore(tmp_path / "run")
    anyone.save(trainer)
    data = (anyone.run_dir / "step-000003.pt").read_bytes()
    minimal = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (anyone.run_dir / "step-000003.manifest.json").write_text(json.dumps(minimal))
    assert anyone.verify(3).ok


def test_every_load_is_weights_only(store, trainer, monkeypatch) -> None:
    # The default of torch.load changed across the versions this project allows (2.2 to 2.13):
    # the store must say weights_only=True itself. A wrapper records each call and passes it on.
    import torch

    real = torch.load
    calls = []

    def recording(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(torch, "load", recording)
    store.save(trainer)
    store.read(3, verify=True)
    store.read(3, verify=False)
    store.corrupt(3, seed=1)
    assert calls and all(
        c.get("weights_only") is True and c.get("map_location") == "cpu" for c in calls
    )


def test_a_disk_full_error_carries_the_os_error(store, trainer) -> None:
    with pytest.raises(CheckpointWriteError) as cut:
        store.save(trainer, fail_after_fraction=0.3)  # atomic
    assert cut.value.file == "step-000003.pt"
    cause = cut.value.__cause__
    assert isinstance(cause, OSError) and cause.errno == 28
    assert cause.strerror == os.strerror(28)
    assert f"[Errno 28] {os.strerror(28)}" in str(cut.value)


def test_files_are_written_readable_not_executable(store, trainer) -> None:
    store.save(trainer)
    umask = os.umask(0)
    os.umask(umask)
    for name in ("step-000003.pt", "step-000003.manifest.json", "latest"):
        assert (store.run_dir / name).stat().st_mode & 0o777 == 0o644 & ~umask


def test_rm_of_a_checkpoint_whose_file_is_gone_removes_its_manifest(store, trainer) -> None:
    store.save(trainer)
    (store.run_dir / "step-000003.pt").unlink()
    store.rm(3)
    assert not (store.run_dir / "step-000003.manifest.json").exists()


def test_a_symlink_out_does_not_hide_the_checkpoints_after_it(store, trainer, tmp_path) -> None:
    store.save(trainer)
    outside = tmp_path / "elsewhere.pt"
    outside.write_bytes(b"not ours")
    (store.run_dir / "step-000001.pt").symlink_to(outside)
    assert [r.step for r in store.list()] == [3]
    with pytest.raises(CheckpointError, match="outside the run directory") as escaped:
        store.verify(1)
    assert escaped.value.file == "step-000001.pt"


def test_a_verified_file_that_torch_cannot_read_is_named(store) -> None:
    junk = b"this is not a zip"
    (store.run_dir / "step-000005.pt").write_bytes(junk)
    manifest = {"size": len(junk), "sha256": hashlib.sha256(junk).hexdigest()}
    manifest["config_hash"] = store.config_hash
    (store.run_dir / "step-000005.manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(CheckpointError, match="torch.load failed") as failed:
        store.read(5, verify=True)
    assert failed.value.file == "step-000005.pt"
    with pytest.raises(CheckpointError, match="cannot corrupt: not a zip checkpoint") as no:
        store.corrupt(5, seed=1)
    assert no.value.file == "step-000005.pt"


@pytest.mark.parametrize("payload", [[1, 2, 3], {"model": {}}, {"model": "weights"}])
def test_corrupt_refuses_what_is_not_a_replica_checkpoint(store, payload) -> None:
    import torch

    torch.save(payload, store.run_dir / "step-000006.pt")
    with pytest.raises(CheckpointError, match="cannot corrupt: not a replica checkpoint") as no:
        store.corrupt(6, seed=1)
    assert no.value.file == "step-000006.pt"


def test_corrupt_flips_every_weight_when_asked_for_all_of_them(store, trainer) -> None:
    store.save(trainer)
    clean = store.read(3, verify=False).state["model"]
    total = sum(t.numel() for t in clean.values())
    store.corrupt(3, seed=2, count=total + 10)
    flipped = store.read(3, verify=False).state["model"]
    for name, tensor in clean.items():
        # Every element got exactly one flipped bit in its high byte: none is left equal, and
        # nothing outside the tensors moved (the file still loads).
        assert not (flipped[name] == tensor).any(), name


def test_corrupt_skips_an_integer_buffer_that_comes_first(tmp_path) -> None:
    import torch

    from replica.interface import LoadedReplica

    class Counted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            # Its own buffer comes before the child's weights in the state dict.
            self.register_buffer("seen", torch.zeros(3, dtype=torch.int64))
            self.lin = torch.nn.Linear(2, 2, bias=False)
            with torch.no_grad():
                self.lin.weight.fill_(0.5)

        def forward(self, x):
            return self.lin(x)

    class Buffered:
        global_batch, ranks = 4, 2

        def build_model(self):
            return Counted()

        def make_optimizer(self, model):
            return torch.optim.SGD(model.parameters(), lr=0.1)

        def batch(self, step, start, stop):
            x = torch.ones(stop - start, 2) * (step + 1)
            return (x,)

        def loss(self, model, batch):
            return model(batch[0]).pow(2).mean()

    replica = LoadedReplica("tests.replica.learner_replicas:tiny", {}, Buffered())
    t = Trainer(replica)
    t.train(1)
    assert list(t.model.state_dict()) == ["seen", "lin.weight"]
    store = CheckpointStore(tmp_path / "run", config_hash=replica.config_hash)
    store.save(t)
    store.corrupt(1, seed=0, count=4)
    loaded = store.read(1, verify=False).state["model"]
    assert torch.equal(loaded["seen"], t.model.state_dict()["seen"])
    assert not torch.equal(loaded["lin.weight"], t.model.state_dict()["lin.weight"])


def test_corrupt_refuses_a_layout_it_would_have_to_guess_at(store) -> None:
    import zipfile

    import torch

    # A weight that is a view into a larger storage: its bytes are not where a clone's are.
    big = torch.arange(10, dtype=torch.float32)
    torch.save({"config_hash": "x", "model": {"w": big[2:4]}}, store.run_dir / "step-000007.pt")
    with pytest.raises(CheckpointError, match="cannot corrupt: unexpected storage layout") as no:
        store.corrupt(7, seed=1)
    assert no.value.file == "step-000007.pt"
    # A model with no float32 weights has nothing this fault can flip.
    ints = {"config_hash": "x", "model": {"n": torch.arange(3)}}
    torch.save(ints, store.run_dir / "step-000008.pt")
    with pytest.raises(CheckpointError, match="the model has no float32 weights") as none:
        store.corrupt(8, seed=1)
    assert none.value.file == "step-000008.pt"
    # A zip that torch cannot read is refused by name too.
    with zipfile.ZipFile(store.run_dir / "step-000009.pt", "w") as zf:
        zf.writestr("hello.txt", "not a checkpoint")
    with pytest.raises(CheckpointError, match="torch.load failed") as unreadable:
        store.corrupt(9, seed=1)
    assert unreadable.value.file == "step-000009.pt"

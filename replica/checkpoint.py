"""Checkpoints on disk: real torch.save bytes, a manifest, a `latest` pointer, and the failure
modes a real training script meets (a disk that fills mid-write, a torn file, a flipped byte).

Layout of a run directory::

    step-000120.pt              torch.save of Trainer.full_state()
    step-000120.manifest.json   {"step", "file", "size", "sha256", "config_hash", "world_size", ...}
    latest                      one line: the file name of the newest committed checkpoint

Atomic save (the default, what a careful script does):
    1. serialize the state in memory, hash it
    2. write it to a temp file in the same directory, flush, fsync
    3. os.replace the temp file onto step-NNNNNN.pt, fsync the directory
    4. write the manifest the same way (temp, fsync, replace, directory fsync)
    5. write `latest` the same way
A crash or full disk at any point leaves the previous checkpoint, its manifest and `latest`
untouched; the manifest is committed only after the bytes it describes are durable, and
`latest` only after the manifest.

Non-atomic save (a naive script): `latest` is written first, then the bytes straight onto the
final path, then the manifest, with no fsync. A failure mid-write leaves a torn file at the final
path, no manifest, and `latest` pointing at the torn file.

Loading always uses torch.load(weights_only=True), so a checkpoint can carry tensors and plain
data but never code. With verify=True the bytes are checked against the manifest first. With
verify=False a torn file fails the way torch fails, and a flipped byte inside tensor data loads
silently, as it does in real life. Either way the open file's bytes are hashed as they are handed
to torch, so `read` also says whether the bytes that were loaded match the manifest:
the game counts "corrupt checkpoint loaded" from that, not from what the simulation intended.

Every name this module touches is resolved and must stay inside the run directory.
"""

from __future__ import annotations

import builtins
import errno
import hashlib
import io
import json
import os
import random
import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import torch

from replica.errors import CheckpointError, CheckpointWriteError, ConfigMismatchError

if TYPE_CHECKING:
    from replica.trainer import Trainer

MANIFEST_FORMAT = 1
LATEST = "latest"
_CKPT_RE = re.compile(r"^step-(\d{6,})\.pt$")
_STEP_RE = re.compile(r"^(?:step-)?(\d+)(?:\.pt)?$")
_CHUNK = 1 << 16


def checkpoint_name(step: int) -> str:
    return f"step-{step:06d}.pt"


def manifest_name(step: int) -> str:
    return f"step-{step:06d}.manifest.json"


@dataclass(frozen=True)
class CheckpointRecord:
    """One checkpoint file as found on disk. Manifest fields are None when there is none."""

    step: int
    file: str
    path: Path
    size: int
    has_manifest: bool
    sha256: str | None = None
    config_hash: str | None = None
    world_size: int | None = None


@dataclass(frozen=True)
class VerifyResult:
    """ok, and a reason a person can read. status is one of:
    "ok", "corrupt" (bytes differ from the manifest), "unverifiable" (no usable manifest),
    "missing" (no file), "foreign" (written by another config)."""

    ok: bool
    reason: str
    status: str = "ok"


@dataclass(frozen=True)
class LoadedCheckpoint:
    """A loaded state and the hash check of exactly the bytes it was loaded from.

    `check.status == "corrupt"` means the bytes torch turned into this state are not the bytes
    the manifest vouches for: a flipped or changed file that loaded anyway (only possible
    without verify, which refuses it)."""

    state: dict[str, Any]
    check: VerifyResult

    @property
    def bytes_match_manifest(self) -> bool:
        return self.check.ok


class CheckpointStore:
    def __init__(self, run_dir: str | os.PathLike[str], *, config_hash: str | None = None) -> None:
        """config_hash, when given, is the only config this store will load or save."""
        Path(run_dir).mkdir(parents=True, exist_ok=True)
        self.run_dir = Path(run_dir).resolve()
        self.config_hash = config_hash
        self._tmp_counter = 0

    # ----- names and paths -------------------------------------------------------------

    def _resolve(self, name: str) -> Path:
        """The path of `name` inside the run directory, or CheckpointError if it would escape."""
        if (
            not name
            or name in (".", "..")
            or "/" in name
            or "\\" in name
            or "\x00" in name
            or os.path.isabs(name)
        ):
            raise CheckpointError("refused: path escapes the run directory", file=name)
        path = self.run_dir / name
        resolved = path.resolve()
        if resolved.parent != self.run_dir:
            # A symlink that points somewhere else (outside, or to a subdirectory).
            raise CheckpointError(
                f"refused: resolves to {resolved}, outside the run directory", file=name
            )
        return path

    def _step_of(self, step: int | str) -> int:
        """Accepts 120, "120", "step-000120" or "step-000120.pt"."""
        if isinstance(step, bool):
            raise CheckpointError(f"not a checkpoint step: {step!r}")
        if isinstance(step, int):
            if step < 0:
                raise CheckpointError(f"not a checkpoint step: {step}")
            return step
        if isinstance(step, str):
            # Check for escapes first so "../x" is reported as what it is.
            self._resolve(step)
            m = _STEP_RE.match(step)
            if m:
                return int(m.group(1))
            raise CheckpointError("not a checkpoint name (expected step-NNNNNN.pt)", file=step)
        raise CheckpointError(f"not a checkpoint step: {step!r}")

    def path(self, step: int | str) -> Path:
        return self._resolve(checkpoint_name(self._step_of(step)))

    # ----- save -------------------------------------------------------------------------

    def save(
        self, trainer: Trainer, *, atomic: bool = True, fail_after_fraction: float | None = None
    ) -> CheckpointRecord:
        """Write the trainer's full state as a checkpoint for its current step.

        fail_after_fraction (0 <= f < 1) simulates a disk that fills mid-write: only that
        fraction of the bytes reaches the file, then CheckpointWriteError (a RuntimeError, with
        torch's "PytorchStreamWriter failed writing file" wording and errno ENOSPC) is raised.
        """
        if fail_after_fraction is not None and not 0 <= fail_after_fraction < 1:
            raise ValueError(f"fail_after_fraction must be in [0, 1), got {fail_after_fraction}")
        state = trainer.full_state()
        step = int(state["step"])
        name = checkpoint_name(step)
        final = self._resolve(name)
        mpath = self._resolve(manifest_name(step))
        self._resolve(LATEST)
        if self.config_hash is not None and state["config_hash"] != self.config_hash:
            raise ConfigMismatchError(
                f"refused to save: trainer config {state['config_hash'][:12]} is not this "
                f"store's config {self.config_hash[:12]}",
                file=name,
            )
        self._refuse_foreign_overwrite(step, state["config_hash"])

        data = _serialize(state)
        limit = None if fail_after_fraction is None else int(len(data) * fail_after_fraction)
        manifest = {
            "format": MANIFEST_FORMAT,
            "step": step,
            "file": name,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "config_hash": state["config_hash"],
            "world_size": int(state["world_size"]),
            "atomic": atomic,
        }
        manifest_bytes = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
        if atomic:
            # Each file is fsynced before its rename, in the order data, manifest, latest; one
            # directory fsync then makes the three renames durable together. A crash before it
            # can lose renames but never leaves a manifest that vouches for other bytes: verify
            # and load check the sha256, and a missing file is refused, not guessed at.
            self._write_atomic(name, data, limit=limit, sync_dir=False)
            self._write_atomic(mpath.name, manifest_bytes, sync_dir=False)
            self._write_atomic(LATEST, f"{name}\n".encode(), sync_dir=False)
            _fsync_dir(self.run_dir)
        else:
            (self.run_dir / LATEST).write_text(f"{name}\n")
            mpath.unlink(missing_ok=True)  # a stale manifest would describe other bytes
            with open(final, "wb") as f:
                _write_limited(f, data, limit, name)
            mpath.write_bytes(manifest_bytes)
        return CheckpointRecord(
            step=step,
            file=name,
            path=final,
            size=len(data),
            has_manifest=True,
            sha256=manifest["sha256"],
            config_hash=manifest["config_hash"],
            world_size=manifest["world_size"],
        )

    def _refuse_foreign_overwrite(self, step: int, config_hash: str) -> None:
        mpath = self._resolve(manifest_name(step))
        if not mpath.exists():
            return
        try:
            existing = json.loads(mpath.read_text())
        except (OSError, ValueError):
            return  # an unreadable manifest protects nothing; the new save replaces it
        if isinstance(existing, dict) and existing.get("config_hash") not in (None, config_hash):
            raise ConfigMismatchError(
                f"refused to overwrite: existing checkpoint belongs to config "
                f"{str(existing.get('config_hash'))[:12]}",
                file=checkpoint_name(step),
            )

    def _write_atomic(
        self, name: str, data: bytes, *, limit: int | None = None, sync_dir: bool = True
    ) -> None:
        final = self._resolve(name)
        tmp, fd = self._open_temp(name)
        try:
            with os.fdopen(fd, "wb") as f:
                _write_limited(f, data, limit, name)
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, final)
        if sync_dir:
            _fsync_dir(self.run_dir)

    def _open_temp(self, name: str) -> tuple[Path, int]:
        # Hidden, in the same directory (so os.replace is a rename on one filesystem), and
        # never matching the checkpoint pattern, so list() ignores leftovers from a crash.
        while True:
            self._tmp_counter += 1
            tmp = self.run_dir / f".{name}.tmp-{os.getpid()}-{self._tmp_counter}"
            try:
                return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                continue

    # ----- verify and load ---------------------------------------------------------------

    def _read_manifest(self, step: int) -> dict[str, Any] | None:
        mpath = self._resolve(manifest_name(step))
        if not mpath.exists():
            return None
        try:
            doc = json.loads(mpath.read_text())
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"manifest unreadable: {exc}", file=mpath.name) from exc
        if not isinstance(doc, dict) or not {"size", "sha256"} <= doc.keys():
            raise CheckpointError("manifest unreadable: missing size or sha256", file=mpath.name)
        return doc

    def _check(self, step: int, data: bytes | None) -> VerifyResult:
        name = checkpoint_name(step)
        if data is None:
            return VerifyResult(False, f"missing: {name} does not exist", "missing")
        try:
            manifest = self._read_manifest(step)
        except CheckpointError as exc:
            return VerifyResult(False, f"not verifiable: {exc.reason}", "unverifiable")
        if manifest is None:
            return VerifyResult(
                False,
                f"not verifiable: no manifest for {name} (it may be a torn write)",
                "unverifiable",
            )
        if len(data) != manifest["size"]:
            return VerifyResult(
                False,
                f"size mismatch: manifest says {manifest['size']} bytes, file has {len(data)} "
                "(torn or truncated write)",
                "corrupt",
            )
        digest = hashlib.sha256(data).hexdigest()
        if digest != manifest["sha256"]:
            return VerifyResult(
                False,
                f"sha256 mismatch: manifest says {manifest['sha256'][:16]}..., file hashes to "
                f"{digest[:16]}... (bytes changed after the write)",
                "corrupt",
            )
        if self.config_hash is not None and manifest.get("config_hash") != self.config_hash:
            return VerifyResult(
                False,
                f"foreign checkpoint: written by config {str(manifest.get('config_hash'))[:12]}, "
                f"this job runs config {self.config_hash[:12]}",
                "foreign",
            )
        return VerifyResult(True, f"ok: {len(data)} bytes, sha256 matches the manifest", "ok")

    def verify(self, step: int | str) -> VerifyResult:
        """Recompute size and sha256 and compare them with the manifest."""
        s = self._step_of(step)
        path = self.path(s)
        data = path.read_bytes() if path.is_file() else None
        return self._check(s, data)

    def load(self, step: int | str, *, verify: bool) -> dict[str, Any]:
        """The state dict of a checkpoint, loaded with weights_only=True (see `read`)."""
        return self.read(step, verify=verify).state

    def read(self, step: int | str, *, verify: bool) -> LoadedCheckpoint:
        """Load a checkpoint with weights_only=True, and say whether its bytes match the manifest.

        The file is read once; the same bytes are hashed and handed to torch, so the check is
        about what was loaded, not about the file a moment before or after.
        verify=True: refuse (CheckpointError naming file and reason, with `.status`) unless the
        bytes match the manifest. verify=False: hand the bytes to torch.load as a script
        without verification does; torch's own error, if any, is carried in the
        CheckpointError, and a changed file that still loads comes back with
        check.status "corrupt".
        """
        s = self._step_of(step)
        path = self.path(s)
        name = path.name
        if not path.is_file():
            raise CheckpointError("no such checkpoint", file=name)
        with open(path, "rb") as f:
            data = f.read()
            check = self._check(s, data)
            if verify and not check.ok:
                cls = ConfigMismatchError if check.status == "foreign" else CheckpointError
                raise cls(check.reason, file=name, status=check.status)
            if verify:
                state = _torch_load(io.BytesIO(data), name)
            else:
                # The same open file, back at its start: torch reads it as a script's
                # torch.load(path) would (a torn file fails with torch's file error), and the
                # bytes just hashed are the bytes of this open file.
                f.seek(0)
                state = _torch_load(f, name)
        if not isinstance(state, dict) or "config_hash" not in state or "model" not in state:
            raise CheckpointError("not a replica checkpoint (no config hash or model)", file=name)
        if self.config_hash is not None and state["config_hash"] != self.config_hash:
            raise ConfigMismatchError(
                f"config mismatch: written by config {str(state['config_hash'])[:12]}, this job "
                f"runs config {self.config_hash[:12]}",
                file=name,
            )
        return LoadedCheckpoint(state, check)

    def verified_steps(self) -> list[int]:
        """Steps whose checkpoint verifies on disk right now (real sha256 against the
        manifest, this store's config), oldest first. What a dead job could still resume."""
        return [r.step for r in self.list() if self.verify(r.step).ok]

    # ----- fault injection ---------------------------------------------------------------

    def corrupt(self, step: int | str, seed: int, *, count: int = 4) -> list[int]:
        """Flip one bit in the high byte of `count` float32 values of the model's weights.

        Deterministic from seed. Only bytes inside tensor storage records change, so the zip
        still opens and torch.load(weights_only=True) still succeeds: the corruption is silent
        unless someone verifies. High-byte bits are sign and exponent bits, so each flip changes
        a weight by a sign or a power of two: the kind of damage that poisons a run.
        Returns the file offsets changed. The manifest is left alone, so verify() catches it.
        """
        s = self._step_of(step)
        path = self.path(s)
        if not path.is_file():
            raise CheckpointError("no such checkpoint", file=path.name)
        data = path.read_bytes()
        spans = _model_storage_spans(data, path.name)
        big_endian = _byteorder(data) == "big"
        rng = random.Random(f"replica-corrupt/{seed}")
        total = sum(n for _, n in spans)
        picks = sorted(rng.sample(range(total), min(count, total)))
        offsets: list[int] = []
        with open(path, "r+b") as f:
            for element in picks:
                for start, n in spans:
                    if element < n:
                        offset = start + 4 * element + (0 if big_endian else 3)
                        break
                    element -= n
                f.seek(offset)
                byte = f.read(1)[0]
                f.seek(offset)
                f.write(bytes([byte ^ (1 << rng.randrange(8))]))
                offsets.append(offset)
            f.flush()
            os.fsync(f.fileno())
        return offsets

    # ----- listing and retention ---------------------------------------------------------

    def _record(self, step: int) -> CheckpointRecord:
        path = self.path(step)
        try:
            manifest = self._read_manifest(step)
        except CheckpointError:
            manifest = None
        return CheckpointRecord(
            step=step,
            file=path.name,
            path=path,
            size=path.stat().st_size,
            has_manifest=manifest is not None,
            sha256=manifest.get("sha256") if manifest else None,
            config_hash=manifest.get("config_hash") if manifest else None,
            world_size=manifest.get("world_size") if manifest else None,
        )

    def list(self) -> list[CheckpointRecord]:
        """Checkpoint files in the run directory, oldest first, with or without manifests."""
        records = []
        for entry in sorted(os.listdir(self.run_dir)):
            m = _CKPT_RE.match(entry)
            if not m:
                continue
            try:
                path = self._resolve(entry)
            except CheckpointError:
                continue  # a symlink out of the run directory is not our checkpoint
            if path.is_file():
                records.append(self._record(int(m.group(1))))
        return sorted(records, key=lambda r: r.step)

    def latest(self) -> int | None:
        """The step `latest` points at (even if that file is torn or gone), or None."""
        pointer = self._resolve(LATEST)
        if not pointer.is_file():
            return None
        name = pointer.read_text().strip()
        if not name:
            return None
        self._resolve(name)
        m = _CKPT_RE.match(name)
        if not m:
            raise CheckpointError(
                f"latest points at {name!r}, which is not a checkpoint name", file=LATEST
            )
        return int(m.group(1))

    def rm(self, step: int | str) -> None:
        """Delete a checkpoint and its manifest. If `latest` pointed at it, point it at the
        newest remaining checkpoint that has a manifest, or remove it when there is none."""
        s = self._step_of(step)
        path = self.path(s)
        mpath = self._resolve(manifest_name(s))
        if not path.exists() and not mpath.exists():
            raise CheckpointError("no such checkpoint", file=path.name)
        was_latest = self._latest_or_none() == s
        path.unlink(missing_ok=True)
        mpath.unlink(missing_ok=True)
        _fsync_dir(self.run_dir)
        if was_latest:
            self._repoint_latest()

    def prune(self, keep: int) -> builtins.list[int]:  # `list` here is the method above
        """Retention: keep the newest `keep` checkpoints by step, delete the rest.

        Counts every checkpoint file, torn or not, as a naive retention script does: a torn
        newest file takes a slot and can push the last good one out. Returns deleted steps.
        """
        if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
            raise ValueError(f"keep must be a positive integer, got {keep!r}")
        steps = [r.step for r in self.list()]
        doomed = steps[:-keep] if len(steps) > keep else []
        for s in doomed:
            self.rm(s)
        return doomed

    def _latest_or_none(self) -> int | None:
        try:
            return self.latest()
        except CheckpointError:
            return None

    def _repoint_latest(self) -> None:
        good = [r for r in self.list() if r.has_manifest]
        if good:
            self._write_atomic(LATEST, f"{good[-1].file}\n".encode())
        else:
            self._resolve(LATEST).unlink(missing_ok=True)
            _fsync_dir(self.run_dir)


# ----- helpers --------------------------------------------------------------------------


def _serialize(state: dict[str, Any]) -> bytes:
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.getvalue()


def _write_limited(f: io.BufferedIOBase, data: bytes, limit: int | None, name: str) -> None:
    """Write data in chunks; with a limit, stop there and fail like a full disk."""
    view = memoryview(data)
    end = len(data) if limit is None else limit
    for pos in range(0, end, _CHUNK):
        f.write(view[pos : min(pos + _CHUNK, end)])
    if limit is None:
        return
    f.flush()
    cause = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    record = _record_at(data, limit)
    raise CheckpointWriteError(
        f"PytorchStreamWriter failed writing file {record}: file write failed "
        f"([Errno {errno.ENOSPC}] {os.strerror(errno.ENOSPC)}); {limit} of {len(data)} bytes written",
        file=name,
        errno=errno.ENOSPC,
    ) from cause


def _record_at(data: bytes, offset: int) -> str:
    """The zip record torch would have been writing when the bytes stopped at `offset`."""
    try:
        infos = sorted(zipfile.ZipFile(io.BytesIO(data)).infolist(), key=lambda i: i.header_offset)
    except zipfile.BadZipFile:
        return "data"
    current = infos[0].filename if infos else "data"
    for info in infos:
        if info.header_offset <= offset:
            current = info.filename
    last = infos[-1] if infos else None
    if last is not None and offset >= _data_start(data, last) + last.compress_size:
        return "central directory"
    return current.split("/", 1)[-1]


def _data_start(data: bytes, info: zipfile.ZipInfo) -> int:
    off = info.header_offset
    name_len, extra_len = struct.unpack("<HH", data[off + 26 : off + 30])
    return off + 30 + name_len + extra_len


def _byteorder(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            if info.filename.endswith("/byteorder"):
                return zf.read(info).decode().strip()
    return "little"


def _model_storage_spans(data: bytes, name: str) -> list[tuple[int, int]]:
    """(file offset, float32 count) of each model weight storage.

    Trainer.full_state puts "model" first and clones every tensor, so the model's tensors are
    pickled first and get storage keys 0..P-1 in state-dict order. The sizes are checked
    against the loaded tensors so a different layout is refused rather than guessed at.
    """
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise CheckpointError(f"cannot corrupt: not a zip checkpoint ({exc})", file=name) from exc
    records: dict[int, zipfile.ZipInfo] = {}
    for info in zf.infolist():
        m = re.match(r"^[^/]+/data/(\d+)$", info.filename)
        if m:
            records[int(m.group(1))] = info
    state = _torch_load(io.BytesIO(data), name)
    model = state.get("model") if isinstance(state, dict) else None
    if not isinstance(model, dict) or not model:
        raise CheckpointError("cannot corrupt: not a replica checkpoint", file=name)
    spans = []
    for key, tensor in enumerate(model.values()):
        stored = records.get(key)
        if stored is None or stored.compress_type != zipfile.ZIP_STORED:
            raise CheckpointError("cannot corrupt: unexpected storage layout", file=name)
        if tensor.dtype != torch.float32:
            continue  # a replica's integer buffers (step counters, say) are not weights
        if stored.file_size != tensor.numel() * 4:
            raise CheckpointError("cannot corrupt: unexpected storage layout", file=name)
        spans.append((_data_start(data, stored), tensor.numel()))
    if not spans:
        raise CheckpointError("cannot corrupt: the model has no float32 weights", file=name)
    return spans


def _torch_load(src: Path | IO[bytes], name: str) -> Any:
    try:
        return torch.load(src, map_location="cpu", weights_only=True)
    except Exception as exc:
        raise CheckpointError(f"torch.load failed: {type(exc).__name__}: {exc}", file=name) from exc


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable. Not possible on every platform (Windows); skipped there."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)

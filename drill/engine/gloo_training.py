"""The replica as N real processes joined by torch.distributed on gloo over 127.0.0.1.

The simulation still decides when everything happens; these processes do the real work and,
when the night kills or freezes a rank, a real worker gets SIGKILL or SIGSTOP and the survivors'
own exception texts become part of what the pager says. Worker start-up, the kill and the wait
for the survivors' errors take wall time, never sim time.

Which fault does what to a process: a rank whose process dies (kill_rank, a crashing Xid) is
SIGKILLed, so the survivors see the connection close at once; a rank that stops without dying
(hang_rank, a GPU gone from under it, a node that stops answering) is SIGSTOPped, so the
survivors wait in silence and hit the process group timeout, as real peers would.

One clock for a stuck collective: the real process group timeout (`process_group_timeout`, a
few wall seconds, so nobody waits ten minutes at the keyboard) stands for the job's
`collective_timeout` in night time. The survivors' timeout is held back and the job stays
silent until the night's collective timeout (drill/sim/failures.py), so the no-progress page
comes first and the watchdog failure after it, at the same night times as on the sim; gloo's
line then says the night's timeout (`Timed out waiting 600000ms`). A killed rank's peers learn
at once on both backends, so "Connection closed by peer" is logged when it happens. The real
texts are tagged with the simulated job's rank numbers, so a night has one world, and their
run-specific values (the peer's port, a pid) are replaced by placeholders (real_text.py), so
two runs of the same night give the same save and a gloo save verifies.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from drill.engine.real_text import night_timeout, steady_text
from drill.engine.replica_training import ReplicaTraining
from drill.incident.models import Incident

if TYPE_CHECKING:
    from replica.distributed.launcher import GlooGroup

# (step, loss, parameters, loss history): parameters are torch tensors by name, which drill
# does not name itself (only the replica imports torch).
Weights = tuple[int, float | None, dict[str, Any] | None, list[tuple[int, float]]]


class GlooTraining(ReplicaTraining):
    backend = "gloo"

    def __init__(self, incident: Incident, *, ranks: int = 2, cache_dir: Path | None = None):
        if any(fault.kind == "bad_shard" for fault in incident.faults):
            self._refuse_data("a bad stretch of data (bad_shard)")
        if any(fault.kind == "gpu_sdc" for fault in incident.faults):
            self._refuse_data("a GPU's wrong results (gpu_sdc)")
        if any(fault.kind == "collective_mismatch" for fault in incident.faults):
            self._refuse_nccl("a mismatched collective (collective_mismatch)")
        super().__init__(incident, cache_dir=cache_dir, ranks=ranks)
        self.timeout = incident.learner_job.process_group_timeout
        self.collective_timeout = incident.learner_job.collective_timeout
        self.group: GlooGroup | None = None
        self.real_errors: list[str] = []
        # (step, loss, parameters, loss history) as the last group left them: a killed group
        # cannot be asked afterwards.
        self._last: Weights = (0, None, None, [])

    def _launch(self, ranks: int, from_step: int | None, verify: bool) -> str | None:
        from replica.distributed import GlooGroup, GroupError

        self._stop_group()
        # The workers build the same replica from its ref and settings: a learner's own
        # replica module is imported in each of them.
        group = GlooGroup(self.replica, ranks, self.run_dir, timeout=self.timeout)
        try:
            group.start(load_step=from_step, verify=verify)
        except GroupError as exc:
            group.stop()
            if exc.checkpoint_error is not None:
                raise exc.checkpoint_error from None
            raise
        self.group = group
        self._last = (group.step_count, None, None, [])
        if self.bad_data:
            self._data_changed()
        return group.last_load_check

    # The worker processes read the stream themselves and do not take bad stretches or skips
    # yet: refused in one line rather than trained on the wrong batches.
    def _data_changed(self) -> None:
        self._refuse_data("a bad stretch of data (bad_shard)")

    def _skip(self, first: int, last: int) -> None:
        self._refuse_data("`restart --skip`")

    def _replica_world(self) -> int:
        return len(self._group().pids)

    def _wrong(self, rank: int, seed: int) -> None:
        self._refuse_data("a GPU's wrong results (gpu_sdc)")

    def _refuse_nccl(self, what: str) -> None:
        """A night whose evidence is NCCL's own (the watchdog's op types, the flight recorder)
        cannot be told in gloo's words: refused in one line."""
        from replica.errors import ReplicaRefused

        raise ReplicaRefused(
            f"the gloo backend cannot play {what}: its evidence is the NCCL watchdog and flight"
            " recorder, which gloo does not have; play this night with the in-process backend or"
            " --backend sim"
        )

    def _refuse_data(self, what: str) -> None:
        from replica.errors import ReplicaRefused

        raise ReplicaRefused(
            f"the gloo backend does not carry {what} to its workers yet; play this night with"
            " the in-process backend"
        )

    def _running(self) -> bool:
        return self.group is not None and self.group.running

    def _group(self) -> GlooGroup:
        """The running group: the `_` methods are called only while it runs (`_running()`)."""
        assert self.group is not None, "called with no group running"
        return self.group

    def _train_step(self) -> float:
        group = self._group()
        loss = group.step()
        self._last = (group.step_count, loss, None, [])
        return loss

    def _trained_step(self) -> int:
        return self.group.step_count if self.group is not None else self._last[0]

    def _save(self, atomic: bool, fail_fraction: float | None) -> None:
        self._group().save(atomic=atomic, fail_after_fraction=fail_fraction)

    def _final_weights(self):
        if self._running():
            group = self._group()
            step, loss, _, _ = self._last
            return group.step_count, loss, group.parameters(), group.losses()
        return self._last

    def rank_fault(self, job: str, sim_rank: int, sim_world: int, how: str) -> list[str]:
        if job != self.job or not self._running():
            return []
        from replica.ranks import replica_rank_for

        group = self._group()
        replica_world = len(group.pids)  # the group forgets its workers once it is torn down
        rank = replica_rank_for(sim_rank, sim_world, replica_world)
        step, loss, _, _ = self._last
        self._last = (group.step_count, loss, group.parameters(), group.losses())
        texts = group.hang_rank(rank) if how == "hang" else group.kill_rank(rank)
        self.group = None  # torn down by the fault: the next attempt relaunches
        # The one place real text enters the engine: made steady here (ports, pids, scratch
        # folders), so the save, the timeline and the screen hold the same words every run.
        texts = [
            night_timeout(
                steady_text(sim_rank_tag(text, sim_world, replica_world)),
                self.timeout,
                self.collective_timeout,
            )
            for text in texts
        ]
        self.real_errors.extend(texts)
        return texts

    def _stop_group(self) -> None:
        if self.group is not None:
            self.group.stop()
            self.group = None

    def close(self) -> None:
        self._stop_group()
        super().close()


_TAG = re.compile(r"^\[rank (\d+)\] ")


def sim_rank_tag(text: str, sim_world: int, replica_world: int) -> str:
    """Tag a worker's error with the simulated rank it stands for (the first of its block),
    in the form the simulated ranks' own lines use: `[rank8]: RuntimeError: ...`."""
    match = _TAG.match(text)
    if match is None:
        return text
    replica_rank = int(match.group(1))
    sim_rank = -(-replica_rank * sim_world // replica_world)
    return f"[rank{sim_rank}]: {text[match.end() :]}"

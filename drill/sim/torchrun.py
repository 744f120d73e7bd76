"""What torchrun's agent and PyTorch's NCCL watchdog print, in their own words.

The launcher's summary of a failed job is torchrun's ChildFailedError: the first rank it saw
fail, with its host, local rank, exit code and pid. A rank that the watchdog takes down exits
with SIGABRT after logging the collective that timed out and its last enqueued and completed
collective numbers, which is how the rank holding everyone up is found: its numbers lag.
"""

from __future__ import annotations

import signal

SCRIPT = "train.py"
# Collectives a training step issues (gradient buckets): sequence numbers advance this much a
# step, so a rank's last collective says which step it reached.
COLLECTIVES_PER_STEP = 4
SIGABRT = -int(signal.SIGABRT)
SIGKILL = -int(signal.SIGKILL)
# How long NCCL keeps retrying an InfiniBand send before it gives up: the verbs timeout at
# NCCL_IB_TIMEOUT's default (4.096 us x 2^20, about 4.3 s) times NCCL_IB_RETRY_CNT's 7.
IB_RETRY_WINDOW = 30.0
NCCL_VERSION = "2.21.5"


# What torchrun's error summary says as the traceback of a child that wrote no error file.
NO_TRACEBACK = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def exit_cause(exitcode: int, pid: int) -> str:
    """The block's error_file and traceback fields: no rank here records an error file, so the
    traceback is the signal that ended it, or torchrun's pointer to how to get one."""
    if exitcode < 0:
        name = signal.Signals(-exitcode).name
        return f"error_file: <N/A>, traceback: Signal {-exitcode} ({name}) received by PID {pid}"
    return f"error_file: <N/A>, traceback: {NO_TRACEBACK}"


def child_failed(host: str, rank: int, local_rank: int, pid: int, exitcode: int, error: str) -> str:
    """torchrun's Root Cause entry, folded onto one line for the page (the page's own time
    stands for the entry's `time` field). With no error file torchrun cannot quote what the
    rank raised, so a quote is marked as a line from that rank's own log."""
    text = (
        f"ChildFailedError: {SCRIPT} FAILED. Root Cause (first observed failure): host: {host},"
        f" rank: {rank} (local_rank: {local_rank}), exitcode: {exitcode} (pid: {pid}),"
        f" {exit_cause(exitcode, pid)}"
    )
    return f"{text}. From rank {rank}'s log: {error}" if error else text


def agent_failed(local_rank: int, pid: int, exitcode: int) -> str:
    """The agent's own log line when it sees a worker exit."""
    return (
        f"torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: {exitcode})"
        f" local_rank: {local_rank} (pid: {pid}) of binary: /usr/bin/python3"
    )


def collective_seq(step: int) -> int:
    """The sequence number of the last collective of a finished step."""
    return step * COLLECTIVES_PER_STEP


# A data-parallel gradient bucket: the collective and its NumelIn and NumelOut.
ALLREDUCE_BUCKET = ("ALLREDUCE", 8388608, 8388608)


def watchdog_lines(
    rank: int, seq: int, timeout_ms: int, op: tuple[str, int, int] = ALLREDUCE_BUCKET
) -> list[str]:
    """What a rank's NCCL watchdog logs when collective `seq` times out, before it aborts.
    `op` is the collective it waits in (sharded jobs: drill/sim/shards.watchdog_op; a rank on
    another code path: its own, drill/sim/failures.Failures._collective)."""
    tag = f"[rank{rank}]:[E ProcessGroupNCCL.cpp]"
    name, numel_in, numel_out = op
    return [
        f"{tag} [Rank {rank}] Watchdog caught collective operation timeout:"
        f" WorkNCCL(SeqNum={seq}, OpType={name}, NumelIn={numel_in}, NumelOut={numel_out},"
        f" Timeout(ms)={timeout_ms}) ran for {timeout_ms + 17} milliseconds before timing out.",
        f"{tag} [PG 0 Rank {rank}] Timeout at NCCL work: {seq}, last enqueued NCCL work: {seq},"
        f" last completed NCCL work: {seq - 1}.",
        f"{tag} [Rank {rank}] To avoid data inconsistency, we are taking the entire process down.",
    ]


def ib_completion_error(local, peer, rank: int, pid: int, tid: int) -> str:
    """NCCL's warning when a send on InfiniBand ran out of retries (work completion status 12),
    prefixed with host, pid and the id of NCCL's proxy thread, as NCCL prints them."""
    return (
        f"{local.name}:{pid}:{tid} [{rank % 8}] NCCL WARN NET/IB :"
        f" Got completion from peer {peer.address}<43515> with status=12 opcode=0 len=0"
        f" vendor err 129 (Send) localGid ::ffff:{local.address}"
        f" remoteGids::ffff:{peer.address}: transport retry counter exceeded"
    )


def nccl_remote_error(local, peer) -> str:
    """The NCCL error a rank's watchdog catches: ncclRemoteError, with the network error it last
    saw."""
    return (
        "NCCL error: remote process exited or there was a network error, NCCL version"
        f" {NCCL_VERSION}. ncclRemoteError: A call failed possibly due to a network error or a"
        " remote process exiting prematurely. Last error: NET/IB : Got completion from peer"
        f" {peer.address}<43515> with status=12 opcode=0 len=0 vendor err 129 (Send): transport"
        " retry counter exceeded"
    )


# What the C++ runtime prints as it aborts on the exception the watchdog rethrew.
TERMINATE = "terminate called after throwing an instance of 'c10::DistBackendError'"


def watchdog_exception(rank: int, error: str) -> str:
    """An asynchronous NCCL error is caught by the rank's watchdog thread, not raised in Python:
    it logs this, rethrows, and the process aborts (SIGABRT), so no Python traceback follows."""
    return (
        f"[rank{rank}]:[E ProcessGroupNCCL.cpp] [PG 0 Rank {rank}] Process group watchdog thread"
        f" terminated with exception: {error}"
    )


# gloo's own `[file:line]` prefix on a TCP read error, with the build path this torch prints
# (its "Connection closed by peer" comes from the same file).
GLOO_PAIR = "/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:589"


def gloo_read_error(peer_address: str) -> str:
    """What a rank raises on the gloo backend when its TCP connection to a peer gives up: the
    job runs on gloo, so its network errors are gloo's, never NCCL's InfiniBand ones. The
    port is `<port>`, as real gloo text shows it once made steady (drill/engine/real_text.py)."""
    return f"[{GLOO_PAIR}] Read error [{peer_address}]:<port>: Connection timed out"

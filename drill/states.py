"""The states of nodes and jobs, as operators know them from Slurm and Kubernetes.

They are string enums, so a state prints and saves as the word an operator types, and a typo in
code is an AttributeError instead of a silent miss.
"""

from __future__ import annotations

from enum import StrEnum


class NodeState(StrEnum):
    UP = "up"  # takes work
    CORDONED = "cordoned"  # takes no new work; running work continues
    DRAINING = "draining"  # takes no new work; becomes drained when its work is gone
    DRAINED = "drained"
    DOWN = "down"  # out: no heartbeat, or swapped out for repair
    REBOOTING = "rebooting"  # comes back up (or drained) after the reboot time
    SPARE = "spare"  # out of service until `swap` brings it in
    JOINING = "joining"  # a spare on its way in


OUT_OF_SERVICE = (NodeState.SPARE, NodeState.JOINING)
MARKED = (NodeState.CORDONED, NodeState.DRAINING, NodeState.DRAINED)  # taken out by a person


class JobState(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    PREEMPTED = "preempted"
    REQUEUED = "requeued"
    FAILED = "failed"
    NODE_FAIL = "node_fail"
    COMPLETED = "completed"
    CANCELLED = "cancelled"


TERMINAL = (JobState.FAILED, JobState.NODE_FAIL, JobState.COMPLETED, JobState.CANCELLED)

"""Why each waiting job waits, as the last scheduling pass decided, without writing it per job.

A pass over a long queue used to set every pending job's reason, which made it cost the queue's
length even when it started nothing. But every job a pass leaves waiting gets one of four
answers, read from a few facts of that pass:

- held: "held: `release` lets it schedule";
- its shape fits no usable nodes even with nothing running: why not, per shape (drill/sim/
  scheduler.py `_never_fits`, worked out once per shape and pass);
- it is the first blocked job, holding the reservation: "resources: needs ..." or, when the
  pass preempted for it, "resources: preempting ...";
- anything else waits behind that job: "priority: behind HEAD".

So the pass records those facts here, and a job's reason (drill/sim/job_fields.py) is read from
them when something asks (`queue`, `status`, the snapshot), for the jobs that were filed in the
queue at that pass and have had no reason of their own set since. A job is read as it was filed
(its hold and shape then), since one whose filing changes has its reason fixed first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from drill.sim.jobs import Job
    from drill.sim.shape_queue import Shape, ShapeQueue

HELD = "held: `release` lets it schedule"


class PassReasons:
    def __init__(self, queue: ShapeQueue) -> None:
        self.queue = queue
        # Passes so far: a job's own reason set at or after this count outranks the pass's.
        self.seq = 0
        self.head: Job | None = None
        self.head_reason = ""
        self.never: dict[Shape, str] = {}

    def begin(self) -> None:
        """A pass starts: reasons set from here on are newer than what it decides."""
        self.seq += 1
        self.head, self.head_reason, self.never = None, "", {}

    def decided(self, head: Job | None, head_reason: str, never: dict[Shape, str]) -> None:
        self.head, self.head_reason, self.never = head, head_reason, never

    def reason_of(self, job: Job, own: str) -> str:
        filed = self.queue.filed.get(job.name)
        if filed is None:
            return own  # not waiting in the queue: not the pass's to say
        shape = filed[0]
        if shape is None:
            return HELD
        if shape in self.never:
            return self.never[shape]
        head = self.head
        if head is None:
            return own  # nothing blocked at the pass: it came in after (never read so)
        if head is job:
            return self.head_reason
        return f"priority: behind {head.name}"

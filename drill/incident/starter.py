"""The commented starter incident that `drill new` writes. It validates as written."""

STARTER = """\
# yaml-language-server: $schema={schema}
# A new incident. Every field is described in incidents/README.md; `drill validate` checks it
# and `drill test` plays the reference and the graded runbooks at the seeds below.
schema: 2
id: {id}
title: Describe the night in one line
difficulty: easy            # tutorial, easy, medium or hard
tags: [health]
order: 50                   # place in the suggested learning path
estimated_minutes: 10
briefing: |
  What the learner knows at 03:00: which job is theirs, how it is set up, what to protect.

night:
  start: "03:00"
  length: 2h

cluster:
  gpus_per_node: 8
  islands:
    - {{name: a, leaves: 2, nodes_per_leaf: 4, spares: 1}}
  mtbf: 2000h               # per node; the runbook uses it for checkpoint cadence advice

jobs:
  - name: llm-pretrain
    yours: true             # the job the score follows
    gpus: 16
    steps: 300
    step_time: 12s
    retry: {{max_restarts: 3, backoff: 30s}}
    checkpoint: {{every: 50, keep: 3, atomic: true, write_time: 45s}}

background:
  utilization: 0.5          # other teams' work at the start
  arrivals_per_hour: 4

faults:
  - id: gpu-dies
    kind: gpu_xid
    xid: 79                 # hardware: the GPU fell off the bus
    at: "03:20"
    jitter: 5m
    target: {{job: llm-pretrain, select: one}}

noise:
  - at: "03:05"
    severity: warning
    source: gpu-a-7
    text: "gpu-a-7: fan speed above its usual range"

hints:
  - after: 25m
    text: "Look at the job first, then run `health` on its nodes."

# Timed action lines; {{fault.ID.FIELD}} names what the fault chose at this seed.
reference:
  - "{{fault.gpu-dies.time}}+6m status llm-pretrain"
  - "+0s health {{fault.gpu-dies.node}}"
  - "+0s drain {{fault.gpu-dies.node}}"
  - "+0s restart llm-pretrain --from latest --exclude {{fault.gpu-dies.node}}"
  - "+0s note Xid 79 on {{fault.gpu-dies.node}}; drained, restarted from latest without it"

runbooks:
  - name: restart-from-scratch
    why: "Starting from step 0 threw away the checkpoints."
    actions:
      - "{{fault.gpu-dies.time}}+6m status llm-pretrain"
      - "+0s health {{fault.gpu-dies.node}}"
      - "+0s drain {{fault.gpu-dies.node}}"
      - "+0s restart llm-pretrain --from scratch --exclude {{fault.gpu-dies.node}}"
    expect: {{recovered: true, loses_in: [progress]}}

seeds: [1, 2]

debrief:
  takeaways:
    - "One sentence the learner should keep."
  opinion: "A question with no right answer, for the learner to argue."
"""

"""A whole `drill run dead-rank` process against a plain process training the same steps.

    .venv/bin/python benchmarks/bench_night_process.py [REPEATS]

Target (issue 17): the night at most 1.2 times its bare training, as whole processes, so no
start-up import or report load that the night does not need. Both sides are fresh interpreters
started the same way, measured in the same run, interleaved, REPEATS times (default 5), median
of each; caches (baseline, par and floor) are warmed first, because a warm night is what a
learner replays. Two references are printed:

- bare: import torch and the replica, build the Trainer, train the steps the night trained
  (its final step plus the steps it trained twice), nothing else;
- plain loop: the same model, data and AdamW written as a textbook loop with optimizer.step(),
  which in torch 2.13 imports torch._dynamo on its first call (the replica's trainer does not).

Figures are wall time and CPU time (user + system of the child). On a machine shared with other
work, trust the CPU ratio more than the wall one.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from suite import hand_over, row  # noqa: E402

BARE = r"""
import sys
from replica.config import ReplicaConfig
from replica.trainer import Trainer
t = Trainer(ReplicaConfig())
for _ in range(int(sys.argv[1])):
    t.train_step()
"""

PLAIN_LOOP = r"""
import sys
import torch
from replica.config import ReplicaConfig
from replica.data import global_batch
from replica.model import build_model
torch.set_num_threads(1)
config = ReplicaConfig()
model = build_model(config)
opt = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.99), foreach=True)
micro = config.global_batch // config.ranks
for step in range(int(sys.argv[1])):
    x, y = global_batch(config, step)
    opt.zero_grad(set_to_none=True)
    for i in range(config.ranks):
        loss = model.loss(x[i * micro : (i + 1) * micro], y[i * micro : (i + 1) * micro])
        (loss / config.ranks).backward()
    opt.step()
"""


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def main() -> int:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="bench-night-") as tmp:
        save = Path(tmp) / "night.jsonl"
        night = [
            sys.executable, "-m", "drill", "run", "dead-rank", "--reference", "--json",
            "--saves-dir", str(Path(tmp) / "saves"), "--save", str(save),
        ]  # fmt: skip
        warm = subprocess.run(night, cwd=REPO, env=env, check=True, capture_output=True)
        replica = json.loads(warm.stdout)["replica"]
        steps = replica["final_step"] + replica["steps_recomputed"]
        sides = {
            "night": night,
            "bare": [sys.executable, "-c", BARE, str(steps)],
            "plain loop": [sys.executable, "-c", PLAIN_LOOP, str(steps)],
        }
        results: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in sides}
        for _ in range(repeats):
            for name, cmd in sides.items():
                save.unlink(missing_ok=True)
                wall, cpu = timed(cmd, env)
                results[name][0].append(wall)
                results[name][1].append(cpu)
    print(f"dead-rank reference night, {steps} replica steps trained; {repeats} interleaved runs")
    walls = {k: median(v[0]) for k, v in results.items()}
    cpus = {k: median(v[1]) for k, v in results.items()}
    for name in sides:
        print(f"  {name:<11} wall {walls[name]:6.2f} s   cpu {cpus[name]:6.2f} s")
    hand_over(
        [
            row(
                "night process",
                f"drill run dead-rank --reference, whole process, {kind}",
                (walls if kind == "wall" else cpus)["night"],
                "s",
                f"{ref}: a process training the same {steps} steps",
                (walls if kind == "wall" else cpus)[ref],
                target="<= 1.2x" if ref == "bare" else "",
            )
            for ref in ("bare", "plain loop")
            for kind in ("wall", "cpu")
        ]
    )
    for ref in ("bare", "plain loop"):
        print(
            f"  night / {ref:<10} wall {walls['night'] / walls[ref]:.3f}x"
            f"   cpu {cpus['night'] / cpus[ref]:.3f}x   (target at most 1.2x against bare)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

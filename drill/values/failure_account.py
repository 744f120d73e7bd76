"""The published failure account the fleet models are set from, in one place.

Meta's Llama 3 report (54 days, 16,384 H100 GPUs) counted 419 unexpected interruptions on 2,048
nodes of 8 GPUs, with a table of root causes as shares of the interruptions. The season
(drill/season/play.py) and `random_failures` (drill/faults/random_failures.py) draw from the same
mix, and tests/season/test_published_account.py measures the season against these figures.

The game plays seven groups of the table. Each group's share is its rows' published shares added
up; together they are 88.7% of the table (the rest: GPU SRAM 4.5%, NCCL watchdog timeouts 1.7%,
and what the table's own percentages leave out), so the game plays each group's share of the
88.7%. incidents/README.md ("Fleet failure model") says the same for the instructor.
"""

from __future__ import annotations

# The account's size.
INTERRUPTIONS = 419
DAYS = 54
NODES = 2048
GPUS = 16_384
HOURS = DAYS * 24
NODE_MTBF_HOURS = NODES * HOURS / INTERRUPTIONS  # about 6,334 h per node

# The groups the game plays, with the published rows each one adds up (percent of the 419).
PUBLISHED: dict[str, tuple[float, str]] = {
    "gpu": (35.6, "faulty GPU 30.1%, GPU system processor 4.1%, thermal interface 1.4%"),
    "gpu_memory": (17.2, "GPU HBM3 memory 17.2%"),
    "network": (8.4, "network switch and cable 8.4%"),
    "nic": (1.7, "NIC 1.7%"),
    "node": (
        11.0,
        "host maintenance 7.6%, SSD, power supply, chassis, IO board, CPU and system memory 3.4%",
    ),
    "software": (13.4, "software bug 12.9%, dependency 0.5%"),
    "sdc": (1.4, "silent data corruption 1.4%"),
}
PLAYED = sum(percent for percent, _ in PUBLISHED.values())  # 88.7


def published_share(cause: str) -> float:
    """The share of the game's interruptions with this cause: its published share of the 88.7%."""
    return PUBLISHED[cause][0] / PLAYED


def published_mix() -> list[tuple[str, float]]:
    """Every cause with its share, rounded to 3 places and adding up to 1 (the largest absorbs
    the rounding), as an incident file writes them."""
    shares = {cause: round(published_share(cause), 3) for cause in PUBLISHED}
    largest = max(shares, key=lambda cause: shares[cause])
    shares[largest] = round(shares[largest] + 1.0 - sum(shares.values()), 3)
    return list(shares.items())

"""Named random substreams derived from the incident seed.

Each concern (background load, fault jitter, target selection) gets its own stream, so adding a
fault to an incident does not reshuffle the background jobs. Derivation uses sha256, never
Python's hash(), which changes with PYTHONHASHSEED.
"""

from __future__ import annotations

import hashlib
import random


def substream(seed: int, name: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))

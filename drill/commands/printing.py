"""What the commands print for machines: one JSON object, indented, in the order built."""

from __future__ import annotations

import json


def print_json(data) -> None:
    print(json.dumps(data, indent=2, sort_keys=False))

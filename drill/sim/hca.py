"""A node's InfiniBand host channel adapters (HCAs): one per GPU, as on the 8-GPU nodes the game
models, each with one port cabled to the node's leaf switch.

What `ibstat NODE` prints (drill/engine/actions/ib.py) comes from here: each port's state and
physical state, and the error counters that perfquery reads from the port. A port that flaps
(drill/faults/port_flap.py) or a leaf switch that resets under it (drill/faults/link_flap.py)
bumps LinkDownedCounter; only a bad cable, optic or HCA also piles up symbol and receive
errors, which is how a person tells one node's port from the switch.
"""

from __future__ import annotations

from dataclasses import dataclass

# ConnectX-7 (its ibstat CA type), at NDR's 400 Gb/s.
CA_TYPE = "MT4129"
RATE = 400
# What ibstat shows for a port whose link is down: the rate it falls back to while polling,
# and no LID, as the subnet manager has not configured it.
DOWN_RATE = 10


@dataclass
class HcaPort:
    index: int  # mlx5_<index>, the HCA next to GPU <index>
    lid: int  # the base LID the subnet manager gave its port 1
    up: bool = True
    link_downed: int = 0  # perfquery LinkDownedCounter
    symbol_errors: int = 0  # perfquery SymbolErrorCounter
    rcv_errors: int = 0  # perfquery PortRcvErrors

    @property
    def name(self) -> str:
        return f"mlx5_{self.index}"

    def goes_down(self, symbol_errors: int = 0, rcv_errors: int = 0) -> None:
        """The link drops: the counters say so, and a bad physical link says why."""
        self.up = False
        # The counters' widths: they stop at their maximum, they do not wrap.
        self.link_downed = min(255, self.link_downed + 1)
        self.symbol_errors = min(65535, self.symbol_errors + symbol_errors)
        self.rcv_errors = min(65535, self.rcv_errors + rcv_errors)

    def comes_up(self) -> None:
        self.up = True


def ports_for(node_ordinal: int, count: int) -> list[HcaPort]:
    """A node's HCA ports, LIDs handed out in node order after the subnet manager's own (1)."""
    return [HcaPort(i, lid=2 + node_ordinal * count + i) for i in range(count)]
